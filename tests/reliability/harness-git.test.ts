// s12's own git, attacked: what the model plants in the repository must not make the harness act
// outside the sandbox (issue 22, items 2–4). Each plan is in its test's comment. Before the fix:
// the harness ran git unsandboxed with its whole environment, so planted hooks, fsmonitor and
// smudge filters ran with the API key and wrote anywhere; it followed a `.git` file into another
// repository, a `.worktrees` link out of the workspace and a linked `info/exclude`; and it
// committed everything, `.env` included, to a repository of yours that had no commits.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bwrapArgs, runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import { WorktreeManager } from "../../chapters/s12-worktree-isolation/agent.ts";
import { BASE_HANDLERS, runTool } from "../../chapters/s02-tool-use/agent.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { tempDir, machineSandbox, toolAt } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
/** The model's own command: it runs sandboxed, writing only in the workspace. */
const modelRuns = async (command: string, cwd: string) => {
  const result = await runCommand(command, {
    sandbox: sandboxFor(cwd),
    cwd,
    timeoutMs: budget("command"),
  });
  expect(result.exitCode, result.output).toBe(0);
};

/** A workspace that is a repository of its own with one commit, and a folder beside it that
 *  nothing run for the model may write. */
function repo() {
  const parent = tempDir("lah-hg-");
  const ws = path.join(parent, "ws");
  mkdirSync(ws);
  git(ws, "init", "-q", "-b", "main");
  git(ws, "config", "user.name", "T");
  git(ws, "config", "user.email", "t@t.invalid");
  writeFileSync(path.join(ws, "app.js"), "1\n");
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "first");
  const outside = path.join(parent, "outside");
  mkdirSync(outside);
  return { ws, outside, lanes: new WorktreeManager(ws) };
}

const call = (name: string, input: Record<string, unknown>) =>
  ({ type: "tool_use", id: `t_${name}`, name, input }) as ToolUseBlock;
const SECRET = `sk-ant-harness-git-${process.pid}`;
beforeEach(() => {
  process.env.LAH_TEST_API_KEY = SECRET;
});
afterEach(() => {
  delete process.env.LAH_TEST_API_KEY;
});

describe.runIf(machineSandbox().kind === "bubblewrap")("s12's own git runs sandboxed", () => {
  // Plan: the harness is started with a relative PATH entry (`bin`, as a direnv'd shell may have);
  // the model writes bin/git in the workspace; the harness's next git is looked up from there.
  // Inside the sandbox, but its output is what the harness trusts (what is dirty, what merged).
  it("the harness's git is found by full path: a bin/git the model wrote on a relative PATH entry never runs", () => {
    const { ws, lanes } = repo();
    const ran = path.join(ws, "fake-git-ran");
    mkdirSync(path.join(ws, "bin"));
    writeFileSync(path.join(ws, "bin/git"), `#!/bin/sh\necho "$@" >> ${ran}\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `bin${path.delimiter}${saved}`;
    try {
      lanes.create("a");
      expect(lanes.list().map((lane) => lane.name)).toEqual(["a"]);
    } finally {
      process.env.PATH = saved;
    }
    expect(existsSync(ran)).toBe(false);
  });

  // Plan: the model's bash writes .git/hooks/post-checkout; the next worktree_create checks out
  // the lane, and git runs the hook.
  it("a planted post-checkout hook never runs outside the sandbox", async () => {
    const { ws, outside, lanes } = repo();
    const leak = path.join(outside, "hook.txt");
    writeFileSync(path.join(ws, ".git/hooks/post-checkout"), `#!/bin/sh\nenv > ${leak}\n`, {
      mode: 0o755,
    });
    lanes.create("a");
    expect(existsSync(leak)).toBe(false);
  });

  // Plan: core.fsmonitor names a program; git status (worktree_list, remove) runs it.
  it("a planted core.fsmonitor never runs outside the sandbox", async () => {
    const { ws, outside, lanes } = repo();
    lanes.create("a");
    const leak = path.join(outside, "fsmonitor.txt");
    git(ws, "config", "core.fsmonitor", `env > ${leak}; false`);
    lanes.changes("a");
    expect(existsSync(leak)).toBe(false);
  });

  // Plan: a smudge filter (.git/info/attributes + filter.x.smudge) runs on every checkout, and no
  // switch turns filters off: only the sandbox stops it. It tries to write outside and to leak
  // the harness's environment into the lane.
  it("a planted smudge filter runs only inside the sandbox, without the harness's secrets", async () => {
    const { ws, outside, lanes } = repo();
    const leak = path.join(outside, "filter.txt");
    await modelRuns("mkdir -p .git/info && echo '* filter=evil' > .git/info/attributes", ws);
    // (The model's commands cannot change .git/config any more; a repository may hold it anyway.)
    git(ws, "config", "filter.evil.smudge", `env > ${leak}; env > ${ws}/env.txt; cat`);
    lanes.create("a");
    expect(existsSync(leak)).toBe(false);
    const seen = existsSync(path.join(ws, "env.txt"))
      ? readFileSync(path.join(ws, "env.txt"), "utf8")
      : "";
    expect(seen).not.toContain(SECRET);
  });

  // Plan: a `.git` file pointing at another repository; the lane would be that repository's
  // worktree, with a branch added to it.
  it("a .git file pointing at another repository is refused, the other repository untouched", async () => {
    const { ws } = repo();
    const other = repo();
    git(ws, "init", "-q"); // still a repository...
    // (Planted by hand: the model's commands can no longer remove .git.)
    rmSync(path.join(ws, ".git"), { recursive: true });
    writeFileSync(path.join(ws, ".git"), `gitdir: ${other.ws}/.git\n`);
    const lanes = new WorktreeManager(ws);
    expect(() => lanes.create("a")).toThrow(/\.git is a file or a link/);
    expect(git(other.ws, "branch", "--format=%(refname:short)")).toBe("main");
    expect(git(other.ws, "worktree", "list").split("\n")).toHaveLength(1);
  });

  // Plan: `.worktrees` linked to a folder outside; the lane's checkout would be written there.
  it("a .worktrees link out of the workspace is refused", async () => {
    const { ws, outside, lanes } = repo();
    symlinkSync(outside, path.join(ws, ".worktrees"));
    expect(() => lanes.create("a")).toThrow(/symlink/);
    expect(existsSync(path.join(outside, "a"))).toBe(false);
  });

  // Plan: `.git/info/exclude` linked to a file outside; the harness appends its lines to it.
  it("an info/exclude linked to a file outside is refused, not appended to", async () => {
    const { ws, outside, lanes } = repo();
    const target = path.join(outside, "precious.txt");
    writeFileSync(target, "precious\n");
    await modelRuns(`rm -f .git/info/exclude && ln -s ${target} .git/info/exclude`, ws);
    expect(() => lanes.create("a")).toThrow(/symlink/);
    expect(readFileSync(target, "utf8")).toBe("precious\n");
  });

  // Plan: a repository of yours with no commits yet, and a .env beside the code; worktree_create
  // used to make an "initial commit" of everything on your main.
  it("a repository of yours with no commits gets one sentence, and nothing is committed", () => {
    const ws = tempDir("lah-hg-empty-");
    git(ws, "init", "-q", "-b", "main");
    writeFileSync(path.join(ws, ".env"), "KEY=secret\n");
    const lanes = new WorktreeManager(ws);
    expect(() => lanes.create("a")).toThrow(/no commits yet: make a first commit yourself/);
    expect(() => git(ws, "rev-parse", "--verify", "-q", "HEAD")).toThrow();
    expect(git(ws, "status", "--porcelain")).toContain(".env");
  });

  // Plan (found by the independent attacker): the harness is safe, but *your* git is not: the
  // model's command sets core.fsmonitor or writes a hook in your repository's .git, and the next
  // `git status` you type (or your editor runs) executes it outside any sandbox.
  it("the model's commands cannot change what your own git runs later (.git/config, hooks)", async () => {
    const { ws, outside } = repo();
    const marker = path.join(outside, "ran.txt");
    const before = readFileSync(path.join(ws, ".git/config"), "utf8");
    const attempts = [
      `git config core.fsmonitor 'touch ${marker}; false'`,
      `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`,
      `mv .git/hooks .git/hooks-old; mkdir .git/hooks; printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit`,
      `mv .git .git-old && cp -a .git-old .git && git config core.fsmonitor 'touch ${marker}; false'`,
      `echo '[core]\\n\\tfsmonitor = touch ${marker}' > evil.cfg && git config include.path ../evil.cfg`,
    ];
    for (const attempt of attempts)
      await runCommand(attempt, { sandbox: sandboxFor(ws), cwd: ws, timeoutMs: budget("command") });
    // The file tools cannot either:
    for (const file of [
      ".git/config",
      ".git/hooks/pre-commit",
      "./sub/../.git/config",
      ".GIT/config",
    ]) {
      const wrote = await runTool(
        BASE_HANDLERS,
        call("write", { path: file, content: "[core]\n\tfsmonitor = x\n" }),
        toolAt(ws),
      );
      expect(wrote.output, file).toMatch(/inside \.git/);
    }
    // Your git, outside the sandbox, after the session:
    git(ws, "status", "--porcelain");
    writeFileSync(path.join(ws, "app.js"), "2\n");
    git(ws, "commit", "-qam", "yours");
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(path.join(ws, ".git/config"), "utf8")).toBe(before);
    // ...while the model can still commit, in the main checkout and in a lane.
    await modelRuns(
      "echo 3 > app.js && git -c user.name=m -c user.email=m@m commit -qam model",
      ws,
    );
    const lanes = new WorktreeManager(ws);
    lanes.create("b");
    const inLane = await lanes.run(
      "b",
      "echo 4 > app.js && git -c user.name=m -c user.email=m@m commit -qam lane && echo ok",
    );
    expect(inLane.output).toContain("ok");
    expect(git(ws, "log", "--format=%s", "-1", "wt/b")).toBe("lane");
  });

  // Plan (found by the independent attacker): config and hooks are read-only, but the model can
  // still create `.git/commondir` (your git then reads another config), `config.worktree`, a
  // submodule's config, or hooks where the folder was missing, since commits need `.git`
  // writable. Those are not blocked; the command's result says what changed, so you see it.
  it("a command that changes anything else your git runs is named in its result", async () => {
    const { ws } = repo();
    // (An ordinary commit first: it changes only history, and is not named. After the plant it
    // would be, rightly: its commit lands in the planted .git/x.)
    const plain = await runCommand(
      "echo 5 > app.js && git -c user.name=m -c user.email=m@m commit -qam plain",
      { sandbox: sandboxFor(ws), cwd: ws, timeoutMs: 10_000 },
    );
    expect(plain.output).not.toMatch(/changed what git runs/);
    const planted = await runCommand(
      "mkdir .git/x && cp -r .git/objects .git/refs .git/x/ && printf '[core]\\n\\tfsmonitor = x\\n' > .git/x/config && echo x > .git/commondir",
      { sandbox: sandboxFor(ws), cwd: ws, timeoutMs: budget("command") },
    );
    expect(planted.output).toMatch(/changed what git runs: .*\.git\/commondir/);
  });

  // Plan (found by the independent attacker): a1's servers are sandboxed by name, not by handle
  // (their transport passes no descriptors), and had no repository guards: code the server ran
  // appended core.fsmonitor to .git/config.
  it("a sandbox bound by name (a1's servers) guards the repository's config and hooks too", () => {
    const { ws } = repo();
    const before = readFileSync(path.join(ws, ".git/config"), "utf8");
    const args = bwrapArgs(sandboxFor(ws), ws, []);
    expect(args.join(" ")).toContain(`--ro-bind ${ws}/.git/config ${ws}/.git/config`);
    const result = spawnSync(
      "bwrap",
      [...args, "sh", "-c", "echo '[core]' >> .git/config; echo x > .git/hooks/pre-commit"],
      { encoding: "utf8" },
    );
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(path.join(ws, ".git/config"), "utf8")).toBe(before);
    expect(existsSync(path.join(ws, ".git/hooks/pre-commit"))).toBe(false);
  });
});
