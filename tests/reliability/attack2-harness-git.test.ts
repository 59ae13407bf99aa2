// Independent attack 2 on the harness's own git (s12 lanes; s13, s15 and a2 use the same code).
// Each test was a door open on the code before issue 32's fix (it failed there, in
// tests/open-doors/): the harness's git now never enters a nested repository, and the hooks your
// config keeps in the working tree are watched like `.git`.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { budget } from "../support/budgets.ts";
import { describe, expect, it } from "vitest";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import { WorktreeManager } from "../../chapters/s12-worktree-isolation/agent.ts";
import { tempDir, machineSandbox } from "../support/helpers.ts";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const ID = ["-c", "user.name=T", "-c", "user.email=t@t.invalid"];

/** A repository of yours with one commit. */
function repo() {
  const ws = tempDir("lah-a2g-");
  git(ws, "init", "-q", "-b", "main");
  writeFileSync(path.join(ws, "app.js"), "1\n");
  git(ws, "add", "-A");
  git(ws, ...ID, "commit", "-qm", "first");
  return { ws, config: () => readFileSync(path.join(ws, ".git/config"), "utf8") };
}

describe.runIf(machineSandbox().kind === "bubblewrap")("attack2: the harness's own git", () => {
  // Plan: the threat model says the harness's git "is immune to" a submodule's config and that
  // "a filter it runs can only be one your .git/config defines". But `git status` looks into
  // every populated gitlink in the index by starting another git *inside* it — with that nested
  // repository's own config, which lives in the working tree, the model's to write. So, in a
  // lane (commands only, no question in a2: worktree_create is allow-listed; worktree_run's
  // commands are the model's): make `sub/` a repository, add it as a gitlink, commit; give
  // `sub/.git/config` a clean filter and `sub/.gitattributes` applying it; touch `sub/f` so its
  // content must be hashed again. worktree_remove (s12's `remove`, which asks
  // `git status --porcelain` in the lane) then runs the model's filter inside the harness's own
  // git. The filter leaves an interactive-rebase state in your `.git` (an `exec` line next):
  // the harness's before/after check watches only config/hooks/attributes/pointers for its own
  // git, so nothing is named — unlike the same state left by a model's command (F4).
  it(
    "a nested repository's filter does not run in the harness's own git status",
    async () => {
      const { ws, config } = repo();
      const before = config();
      const lanes = new WorktreeManager(ws);
      lanes.create("a");
      const ran = path.join(ws, "FILTER-RAN");
      const payload = [
        `touch ${ran}`,
        `mkdir -p ${ws}/.git/rebase-merge`,
        `echo 'exec touch ${ws}/REBASE-EXEC-RAN' > ${ws}/.git/rebase-merge/git-rebase-todo`,
        "cat",
      ].join("; ");
      const planted = await lanes.run(
        "a",
        [
          "mkdir sub && cd sub && git init -q && echo x > f && git add f",
          `git -c user.name=m -c user.email=m@m.invalid commit -qm s && cd ..`,
          "git add sub && git commit -qm 'add sub'",
          `printf '[filter "evil"]\\n\\tclean = "%s"\\n' "${payload}" >> sub/.git/config`,
          "echo '* filter=evil' > sub/.gitattributes",
          "sleep 1.1 && touch sub/f && echo planted",
        ].join(" && "),
      );
      expect(planted.output, planted.output).toContain("planted");
      expect(existsSync(ran)).toBe(false); // the model's own commands did not run it
      let refusal = "";
      try {
        lanes.remove("a", { force: true });
      } catch (err) {
        refusal = (err as Error).message;
      }
      // The harness's git ran a program the model wrote (a filter no .git/config of yours defines)…
      expect(existsSync(ran), `refusal: ${refusal}`).toBe(false);
      // …and the rebase state it left in your .git is named nowhere.
      if (existsSync(path.join(ws, ".git/rebase-merge"))) expect(refusal).toMatch(/rebase-merge/);
      expect(config()).toBe(before);
    },
    budget({ cli: 4 }),
  );

  // Plan: the threat model's open doors say hooks your .git/config keeps in the working tree
  // ("husky's core.hooksPath = .husky/_") are not named "but, unlike .git, they show in git
  // status and git diff — read those before you commit". They do not. husky 9 writes
  // `.husky/_/.gitignore` containing `*` (its index.js: `w(_('.gitignore'), '*')`), so every
  // change under `.husky/_` — the `h` script each hook stub sources — is invisible to
  // `git status` and `git diff`. And a husky 8 layout (`core.hooksPath = .husky`, hooks tracked)
  // is hidden the same way by one flag in the index, which the harness counts as history:
  // `git update-index --skip-worktree`. In both cases the command's result names nothing, your
  // `git status` is clean, and your next `git commit` runs the model's payload outside any
  // sandbox.
  it(
    "a change to the hooks your config keeps in the working tree is named or shows in git status",
    async () => {
      const facts: Record<string, unknown> = {};
      for (const layout of ["husky9", "husky8"] as const) {
        const { ws } = repo();
        const hooks = layout === "husky9" ? ".husky/_" : ".husky";
        mkdirSync(path.join(ws, hooks), { recursive: true });
        if (layout === "husky9") {
          // Exactly what `npx husky` (9.1) writes.
          writeFileSync(path.join(ws, ".husky/_/.gitignore"), "*");
          writeFileSync(path.join(ws, ".husky/_/h"), "#!/usr/bin/env sh\n");
          writeFileSync(path.join(ws, ".husky/_/pre-commit"), '#!/usr/bin/env sh\n. "${0%/*}/h"', {
            mode: 0o755,
          });
        }
        // The project's own hook, tracked (husky 9 runs it from `_/h`).
        writeFileSync(path.join(ws, ".husky/pre-commit"), "#!/usr/bin/env sh\nnpm test\n");
        chmodSync(path.join(ws, ".husky/pre-commit"), 0o755);
        git(ws, "add", "-A");
        git(ws, ...ID, "commit", "-qm", "hooks");
        git(ws, "config", "core.hooksPath", hooks);
        const target = layout === "husky9" ? ".husky/_/h" : ".husky/pre-commit";
        const hide =
          layout === "husky9" ? "true" : "git update-index --skip-worktree .husky/pre-commit";
        const result = await runCommand(
          `echo 'touch "$(git rev-parse --show-toplevel)/HOOK-RAN"' >> ${target} && ${hide}`,
          { sandbox: sandboxFor(ws), cwd: ws, timeoutMs: 15_000 },
        );
        const named = /\[harness\]/.test(result.output);
        const status = git(ws, "status", "--porcelain");
        const diff = git(ws, "diff", "--stat");
        // What you do next, outside any sandbox.
        writeFileSync(path.join(ws, "app.js"), "2\n");
        git(ws, ...ID, "commit", "-qam", "yours");
        facts[layout] = {
          namedOrShown: named || status !== "" || diff !== "",
          payloadRanAtYourCommit: existsSync(path.join(ws, "HOOK-RAN")),
        };
      }
      expect(facts).toEqual({
        husky9: { namedOrShown: true, payloadRanAtYourCommit: true },
        husky8: { namedOrShown: true, payloadRanAtYourCommit: true },
      });
    },
    budget({ cli: 4 }),
  );
});

// The same plant where no sandbox can start (macOS, --no-sandbox). The threat model: "Without a
// sandbox (macOS, --no-sandbox) the pinning still holds". The submodule's git is not pinned: the
// model's filter runs with your permissions, unasked, when the harness removes the lane — it
// writes a file outside the workspace.
describe("attack2: the harness's own git without a sandbox", () => {
  it(
    "a nested repository's filter does not run in the harness's own git status (no sandbox)",
    async () => {
      const { ws } = repo();
      const outside = tempDir("lah-a2g-outside-");
      const noSandbox = sandboxFor(ws, { disabled: true });
      const lanes = new WorktreeManager(ws, { sandbox: noSandbox });
      lanes.create("a");
      const ran = path.join(outside, "FILTER-RAN-OUTSIDE");
      const planted = await lanes.run(
        "a",
        [
          "mkdir sub && cd sub && git init -q && echo x > f && git add f",
          `git -c user.name=m -c user.email=m@m.invalid commit -qm s && cd ..`,
          "git -c user.name=m -c user.email=m@m.invalid add sub",
          "git -c user.name=m -c user.email=m@m.invalid commit -qm 'add sub'",
          `printf '[filter "evil"]\\n\\tclean = "touch ${ran}; cat"\\n' >> sub/.git/config`,
          "echo '* filter=evil' > sub/.gitattributes",
          "sleep 1.1 && touch sub/f && echo planted",
        ].join(" && "),
      );
      expect(planted.output, planted.output).toContain("planted");
      expect(existsSync(ran)).toBe(false);
      try {
        lanes.remove("a", { force: true });
      } catch {
        // refusing is as good as removing: what matters is what ran
      }
      expect(existsSync(ran)).toBe(false);
    },
    budget({ cli: 4 }),
  );
});
