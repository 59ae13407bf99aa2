// Independent attack 2: the harness's look into `.git` after each command (the fingerprint that
// names what a command changed in what git runs) runs outside the sandbox, on folders the
// model's command made. It failed on the code before issue 32's fix (tests/open-doors/), with and
// without a sandbox; it runs with bubblewrap where there is one, with --no-sandbox elsewhere.
import { budget } from "../support/budgets.ts";
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { endTurn, startFakeApi, toolUse, type FakeApi } from "../support/fake-api.ts";
import { tempDir, machineSandbox } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const sandbox = machineSandbox().kind === "bubblewrap" ? [] : ["--no-sandbox"];

describe("attack2: the .git watch", () => {
  // Plan: `surfaceFiles` looks into every `worktrees/<name>` (and `modules/<name>`) with the
  // same rule, recursively, with no depth limit, and `folder()` lstat's the whole path, which
  // throws ENAMETOOLONG past 4,096 bytes (only `names()` catches). One approved command (s01's
  // bash; in a2 any one command the person allows) nests `.git/worktrees/a/worktrees/a/…` 400
  // deep and, in the same breath, leaves an interactive rebase with an `exec` next. The
  // after-check throws inside the child's 'close' handler: an uncaught exception. The harness
  // dies with a stack trace, the warning that should name `.git/rebase-merge` is never issued,
  // and the rebase's `exec` waits for your `git rebase --continue`.
  it(
    "a deep .git/worktrees nest neither kills the harness nor hides what the command planted",
    async () => {
      const ws = tempDir("lah-a2w-");
      execFileSync("git", ["init", "-q", "-b", "main"], { cwd: ws });
      writeFileSync(path.join(ws, "app.js"), "1\n");
      const command = [
        'd=.git/worktrees; for i in $(seq 1 400); do mkdir -p "$d/a"; cd "$d/a"; d=worktrees; done',
        `cd ${ws}`,
        "mkdir -p .git/rebase-merge && echo 'exec touch PWNED' > .git/rebase-merge/git-rebase-todo",
        "echo planted",
      ].join("; ");
      api = await startFakeApi([toolUse("bash", { command }), endTurn("done"), endTurn("again")]);
      const { code, stdout, stderr } = await runCli(["s01", ...sandbox, "--workspace", ws], {
        input: "go\nagain\n",
        env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url },
      });
      expect(existsSync(path.join(ws, ".git/rebase-merge/git-rebase-todo"))).toBe(true); // planted
      expect({ code, crashed: /ENAMETOOLONG|\n\s+at /.test(stderr) }).toEqual({
        code: 0,
        crashed: false,
      });
      expect(stdout).toMatch(/changed what git runs:.*\.git\/rebase-merge/s);
    },
    budget({ cli: 8 }),
  );
});
