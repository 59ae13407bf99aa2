// The .git watch also watches the hooks your .git/config keeps in the working tree (issue 32): a
// fresh attack on the fix, after husky's relative `.husky/_`, tried the same folder named by an
// absolute path, which the first version of the rule skipped. No sandbox needed: this is the
// harness's own look, outside it.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRunSurface, surfaceChanges } from "../../chapters/_shared/git-guard.ts";
import { tempDir } from "../support/helpers.ts";

describe("the hooks your config keeps in the working tree are watched like .git", () => {
  for (const [layout, hooksPath, changed] of [
    ["husky 9, relative", ".husky/_", ".husky/_/h"],
    ["husky 9, the hook the stub runs", ".husky/_", ".husky/pre-commit"],
    ["absolute path into the working tree", "ABS/.husky", ".husky/pre-commit"],
  ] as const)
    it(`${layout}: a change to ${changed} is named`, () => {
      const ws = tempDir("lah-hooks-");
      execFileSync("git", ["init", "-q"], { cwd: ws });
      mkdirSync(path.join(ws, ".husky/_"), { recursive: true });
      for (const file of [".husky/_/h", ".husky/pre-commit"])
        writeFileSync(path.join(ws, file), "#!/bin/sh\n");
      const value = hooksPath.replace("ABS", ws);
      execFileSync("git", ["config", "core.hooksPath", value], { cwd: ws });
      const git = [path.join(ws, ".git")];
      const before = gitRunSurface(git);
      appendFileSync(path.join(ws, changed), "touch PWNED\n");
      expect(surfaceChanges(before, gitRunSurface(git))).toEqual([path.join(ws, changed)]);
    });
});
