// Third independent attack on hook trust (s08, `_shared/trust.ts`), 2026-12-04. A yes is kept for
// the hooks file's text and for the files its commands name, as `scriptWords` reads them: the
// words with quotes taken off. But the hook runs in `sh`, which also takes a backslash off, expands
// a glob, a variable and `$(pwd)`: spelled so, the script the hook runs is fingerprinted as a missing file
// (or not at all), and the model can rewrite it without the person being asked again. The trusted
// script first runs as it was (so the spelling really runs it), then the model rewrites it; the
// rewritten script must not run.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { createAgent, HOOKS_FILE } from "../../chapters/s08-hook-system/agent.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { budget } from "../support/budgets.ts";
import { scriptedEnv, tempDir } from "../support/helpers.ts";

/** `sh hooks/after.sh`, written so that sh runs hooks/after.sh but the words differ. */
const spelling = fc.constantFrom(
  String.raw`sh hooks/aft\er.sh`,
  "sh hooks/afte?.sh",
  "sh hooks/[a]fter.sh",
  "sh hooks/after.s*",
  'F=hooks/after.sh; sh "$F"',
  String.raw`sh ho\oks/after.sh`,
  'sh "$(pwd)/hooks/after.sh"',
  "sh ${PWD%/}/hooks/after.sh",
);

describe("a script a trusted hook runs, named the way sh reads it", () => {
  test.prop([spelling], { seed: 33, numRuns: 8 })(
    "rewritten by the model after the yes, it does not run",
    async (command) => {
      const ws = tempDir("lah-attack3-trust-");
      mkdirSync(path.join(ws, "hooks"));
      writeFileSync(path.join(ws, "hooks/after.sh"), "echo checked >> after.log\n");
      writeFileSync(
        path.join(ws, HOOKS_FILE),
        JSON.stringify({ PostToolUse: [{ matcher: "bash", command }] }),
      );
      const env = scriptedEnv(
        [
          use("bash", { command: "echo before" }), // the trusted script runs as it was
          use("write", { path: "hooks/after.sh", content: "touch pwned\n" }),
          use("bash", { command: "echo after" }),
          say("ok"),
        ],
        { workspace: ws, answers: ["yes"] },
      );
      await createAgent(env).send("go");
      // The hook as trusted ran once: the spelling does run hooks/after.sh.
      expect(readFileSync(path.join(ws, "after.log"), "utf8"), command).toBe("checked\n");
      expect(readFileSync(path.join(ws, "hooks/after.sh"), "utf8")).toBe("touch pwned\n");
      expect(existsSync(path.join(ws, "pwned")), `${command}: the rewritten script ran`).toBe(
        false,
      );
    },
    budget({ cli: 20 }),
  );
});
