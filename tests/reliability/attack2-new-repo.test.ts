// Independent attack 2: a repository a command makes was not watched. It failed on the code
// before issue 32's fix (tests/open-doors/).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import { tempDir, machineSandbox } from "../support/helpers.ts";

describe.runIf(machineSandbox().kind === "bubblewrap")(
  "attack2: a repository the model makes",
  () => {
    // Plan: the guards (config and hooks read-only) and the before/after look into `.git` cover
    // the repositories that exist when a command starts (`gitDirIn`, taken before it runs). In a
    // workspace with no repository yet — a2 in a project of yours that is not under git, or in
    // the CLI's default empty workspace before its first worktree_create — one approved command
    // makes one and writes what your git runs into it: `git init && git config core.fsmonitor …`
    // (or core.pager, a hook). Nothing is named. The repository is then yours to use (s12 and
    // a2 build their lanes on it; you `git status` to see what the agent did) and your git runs
    // the payload outside any sandbox.
    it("a command that creates a repository with a config that runs things is named", async () => {
      const ws = tempDir("lah-a2n-");
      const result = await runCommand(
        "git init -q && git config core.fsmonitor 'touch \"$PWD/FSMONITOR-RAN\"; false' && echo made",
        { sandbox: sandboxFor(ws), cwd: ws, timeoutMs: 15_000 },
      );
      expect(result.output).toContain("made");
      // What you do next, outside any sandbox.
      execFileSync("git", ["status", "--porcelain"], { cwd: ws, stdio: "ignore" });
      const ranAtYourGitStatus = existsSync(path.join(ws, "FSMONITOR-RAN"));
      expect({ named: /\[harness\]/.test(result.output), ranAtYourGitStatus }).toEqual({
        named: true,
        ranAtYourGitStatus: true,
      });
    });
  },
);
