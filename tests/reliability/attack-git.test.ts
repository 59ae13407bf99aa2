// The harness's own git, attacked again (issue 32, F1, F1b, F2, F4). Each plan is in its test's
// comment; each test failed on the code before the fix, as the comment says.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import xterm from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import { bash } from "../../chapters/s01-agent-loop/agent.ts";
import { WorktreeManager } from "../../chapters/s12-worktree-isolation/agent.ts";
import {
  BackgroundJobs,
  injectBackgroundResults,
} from "../../chapters/s11-background-tasks/agent.ts";
import { createIO } from "../../chapters/_runner/printer.ts";
import type { AgentEnv, MessageParam, ToolUseBlock } from "../../chapters/_shared/types.ts";
import { budget } from "../support/budgets.ts";
import { tempDir, machineSandbox } from "../support/helpers.ts";

const { Terminal } = xterm;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const ID = ["-c", "user.name=T", "-c", "user.email=t@t.invalid"];

/** A repository of yours with one commit and no identity of its own in `.git/config`. */
function repo() {
  const ws = tempDir("lah-ag-");
  git(ws, "init", "-q", "-b", "main");
  writeFileSync(path.join(ws, "app.js"), "1\n");
  git(ws, "add", "-A");
  git(ws, ...ID, "commit", "-qm", "first");
  return { ws, config: () => readFileSync(path.join(ws, ".git/config"), "utf8") };
}

/** The model's own command, sandboxed (what `sh prep.sh` runs after one approval). */
const modelRuns = (command: string, cwd: string) =>
  runCommand(command, { sandbox: sandboxFor(cwd), cwd, timeoutMs: 15_000 });

/** What an 80×24 terminal shows of `output` once written: its last 24 rows. */
async function lastScreen(output: string): Promise<string> {
  const term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true, convertEol: true });
  await new Promise<void>((done) => term.write(output, done));
  const buffer = term.buffer.active;
  const rows: string[] = [];
  for (let y = buffer.baseY; y < buffer.baseY + 24; y++)
    rows.push(buffer.getLine(y)?.translateToString(true) ?? "");
  term.dispose();
  return rows.join("\n");
}

describe.runIf(machineSandbox().kind === "bubblewrap")("attack: the harness's own git", () => {
  // F1. Plan: prep.sh plants `.git/commondir` → `.git/x`, whose config defines a smudge filter
  // and whose info/attributes applies it to every file. worktree_create (no question) runs the
  // harness's git, which followed commondir and ran the filter with `.git` unguarded: the filter
  // wrote `core.fsmonitor` into the real `.git/config` and removed commondir. Before the fix:
  // the filter ran, `.git/config` gained the payload.
  it("a commondir to a planted config: the lane is refused, no filter runs, .git/config unchanged", async () => {
    const { ws, config } = repo();
    const before = config();
    const ran = path.join(ws, "filter-ran");
    // (Written with the `write` tool: files in the workspace are the model's.)
    writeFileSync(
      path.join(ws, "evil.cfg"),
      `[filter "evil"]\n\tsmudge = "touch ${ran}; printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> ${ws}/.git/config; rm -f ${ws}/.git/commondir; cat"\n`,
    );
    writeFileSync(
      path.join(ws, "prep.sh"),
      [
        "mkdir -p .git/x/info",
        "cp -r .git/objects .git/refs .git/x/",
        "cp evil.cfg .git/x/config",
        "echo '* filter=evil' > .git/x/info/attributes",
        "echo x > .git/commondir",
      ].join("\n"),
    );
    const planted = await modelRuns("sh prep.sh", ws);
    expect(planted.exitCode, planted.output).toBe(0);
    const lanes = new WorktreeManager(ws);
    expect(() => lanes.create("a")).toThrow(/commondir/);
    expect(existsSync(ran)).toBe(false);
    expect(config()).toBe(before);
    expect(existsSync(path.join(ws, ".git/commondir"))).toBe(true); // left for you to see
  });

  // F1, the same plant through a lane's own pointers: the lane's `.git/worktrees/<name>/commondir`
  // sent to a planted config whose clean filter covers every file. `git status` in the lane
  // (worktree_remove asks it) runs the clean filter on a file whose timestamp changed. Before the
  // fix: the filter ran, and wrote the real `.git/config` (not guarded for the harness's git).
  it("a lane's commondir sent to a planted config: the harness's git reads only your .git/config", async () => {
    const { ws, config } = repo();
    const lanes = new WorktreeManager(ws);
    lanes.create("a");
    const before = config();
    const ran = path.join(ws, "filter-ran");
    writeFileSync(
      path.join(ws, "evil.cfg"),
      `[filter "evil"]\n\tclean = "touch ${ran}; printf '[core]\\n\\tfsmonitor = x\\n' >> ${ws}/.git/config; cat"\n`,
    );
    const planted = await modelRuns(
      [
        "mkdir -p .git/x/info",
        "cp -r .git/objects .git/refs .git/x/",
        "cp evil.cfg .git/x/config",
        "echo '* filter=evil' > .git/x/info/attributes",
        "echo ../../x > .git/worktrees/a/commondir",
        "sleep 1.1 && touch .worktrees/a/app.js",
      ].join(" && "),
      ws,
    );
    expect(planted.exitCode, planted.output).toBe(0);
    try {
      lanes.remove("a");
    } catch {
      // refusing is as good as removing: what matters is what ran
    }
    expect(existsSync(ran)).toBe(false);
    expect(config()).toBe(before);
  });

  // F1, the other pointers the harness's git would read: an include in your .git/config naming a
  // file in the workspace (the model writes it), and a `.git/worktrees/<lane>` planted before the
  // lane is made (the harness's git would later work on the planted one by name). Before the
  // fix: the include was read (its fsmonitor was overridden, its filters were not); the planted
  // entry made git name the lane's entry `a1` and the harness's status read the planted `a`.
  it("an include in .git/config and a planted lane entry are refused in one sentence", async () => {
    const { ws, config } = repo();
    git(ws, "config", "include.path", "../team.gitconfig");
    const lanes = new WorktreeManager(ws);
    expect(() => lanes.create("a")).toThrow(/reads other files \(include\.path\)/);
    git(ws, "config", "--unset", "include.path");
    const before = config();
    const planted = await modelRuns(
      "mkdir -p .git/worktrees/a && echo ref: refs/heads/main > .git/worktrees/a/HEAD && " +
        "echo ../.. > .git/worktrees/a/commondir && echo $PWD/app.js > .git/worktrees/a/gitdir",
      ws,
    );
    expect(planted.output).toMatch(/\[harness\].*\.git\/worktrees\/a/s);
    expect(() => lanes.create("a")).toThrow(/\.git\/worktrees\/a already exists/);
    expect(config()).toBe(before);
  });

  // The before/after check on the harness's own git. Pinned, it runs only drivers your own
  // .git/config defines; say one of them (a filter you set up) writes `.git/info/attributes` on
  // checkout. The harness stops and names it rather than carry on. Before the fix: nothing looked.
  it("the harness's own git changing what git runs is stopped and named", async () => {
    const { ws } = repo();
    writeFileSync(path.join(ws, ".gitattributes"), "*.txt filter=yours\n");
    writeFileSync(path.join(ws, "a.txt"), "a\n");
    git(ws, "add", "-A");
    git(ws, ...ID, "commit", "-qm", "attributes");
    git(ws, "config", "filter.yours.smudge", `echo '* -text' > ${ws}/.git/info/attributes; cat`);
    const lanes = new WorktreeManager(ws);
    expect(() => lanes.create("a")).toThrow(
      /the harness's own git changed .*\.git\/info\/attributes in your repository: stopped/,
    );
  });

  // F2. Plan: none needed. worktree_create asked `git config user.email` in the sandbox (where
  // ~/.gitconfig is hidden), found none and wrote `Agent Harness` into your `.git/config`.
  // Before the fix: `.git/config` gained a [user] section.
  it("worktree_create writes no identity into your .git/config, yet a lane's commit works", async () => {
    const { ws, config } = repo();
    const before = config();
    const lanes = new WorktreeManager(ws);
    lanes.create("a");
    expect(config()).toBe(before);
    expect(config()).not.toMatch(/\[user\]|Agent Harness/);
    const committed = await lanes.run("a", "echo 2 > app.js && git commit -qam lane && echo ok");
    expect(committed.output).toContain("ok");
    expect(committed.output).not.toMatch(/\[harness\]/); // a lane's commit is history
    expect(git(ws, "log", "-1", "--format=%an <%ae>", "wt/a")).toBe(
      "Agent Harness <agent@harness.invalid>",
    );
    expect(config()).toBe(before);
  });

  // F2, the other side: a repository with an identity of its own keeps it for the lane's commits.
  it("a repository with its own identity keeps it for the model's commits", async () => {
    const { ws } = repo();
    git(ws, "config", "user.name", "You");
    git(ws, "config", "user.email", "you@example.invalid");
    const lanes = new WorktreeManager(ws);
    lanes.create("a");
    await lanes.run("a", "echo 2 > app.js && git commit -qam lane");
    expect(git(ws, "log", "-1", "--format=%an <%ae>", "wt/a")).toBe("You <you@example.invalid>");
  });

  // The identity check reads `.git/config` outside the sandbox, before every command. Where a
  // repository had none to guard, a command can put a FIFO there; reading it would hold the
  // harness for ever. (Found while building F2's fix, closed before it shipped.)
  it(
    "a FIFO where .git/config was does not hold the next command",
    async () => {
      const { ws } = repo();
      rmSync(path.join(ws, ".git/config"));
      await modelRuns("mkfifo .git/config", ws);
      const next = await modelRuns("echo still-here", ws);
      expect(next.output).toContain("still-here");
    },
    budget({ command: 2 }),
  );

  // F4. Plan: an approved command leaves an interactive rebase stopped at `break`, with
  // `exec <payload>` next; your `git rebase --continue` runs it. Before the fix: nothing named.
  it("a rebase left stopped with an exec next is named", async () => {
    const { ws } = repo();
    writeFileSync(
      path.join(ws, "ed.sh"),
      `#!/bin/sh\nprintf 'break\\nexec touch pwned\\n' > "$1"\n`,
      {
        mode: 0o755,
      },
    );
    const result = await modelRuns(
      `GIT_SEQUENCE_EDITOR=./ed.sh git ${ID.join(" ")} rebase -i HEAD`,
      ws,
    );
    expect(existsSync(path.join(ws, ".git/rebase-merge"))).toBe(true);
    expect(result.output).toMatch(/\[harness\].*\.git\/rebase-merge/s);
  });

  // F4, the rule's other side: an ordinary commit (index, refs, logs, objects, COMMIT_EDITMSG)
  // is not named, or the note would be noise nobody reads.
  it("an ordinary commit, branch and stash are not named", async () => {
    const { ws } = repo();
    const result = await modelRuns(
      `echo 2 > app.js && git ${ID.join(" ")} commit -qam two && git branch b && ` +
        `echo 3 > app.js && git ${ID.join(" ")} stash -q && git gc -q`,
      ws,
    );
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).not.toMatch(/\[harness\]/);
  });

  // F1b. Plan: 13 lines of fake test output, then the plant. The warning was appended to the
  // result, and the terminal shows a result's first 12 lines: only the model read it. Before the
  // fix: the screen ended with "… (2 more lines)".
  it("the warning stays on screen after 13 lines of output", async () => {
    const { ws } = repo();
    const command =
      'for i in $(seq 1 13); do echo "ok $i - test passes"; done; ' +
      "mkdir .git/x && echo x > .git/commondir";
    const result = await bash(command, ws, sandboxFor(ws));
    let written = "";
    const tty = {
      columns: 80,
      isTTY: true,
      write: (t: string) => ((written += t), true),
    } as unknown as NodeJS.WriteStream;
    const io = createIO({ stream: tty, color: false });
    const call = { type: "tool_use", id: "t1", name: "bash", input: { command } } as ToolUseBlock;
    await io.toolCall(call);
    io.toolResult(call, result.output, result.isError);
    const screen = await lastScreen(written);
    expect(screen).toContain("ok 1 - test passes");
    expect(screen).toMatch(/\[harness\] this command changed what git runs/);
    expect(screen).toContain(".git/commondir");
    // The model's copy still has it too.
    expect(result.output).toMatch(/changed what git runs/);
  });

  // F1b, the same through a background command (s11, a2): its result reaches the model as text
  // before the next call, and the screen showed only "background results injected: bg_1
  // completed". Before the fix: the warning was nowhere on screen.
  it("a background command's warning is shown on screen when its result is injected", async () => {
    const { ws } = repo();
    const jobs = new BackgroundJobs(ws, sandboxFor(ws));
    jobs.start("mkdir .git/x && echo x > .git/commondir");
    await jobs.nextResult();
    let written = "";
    const tty = {
      columns: 200,
      isTTY: true,
      write: (t: string) => ((written += t), true),
    } as unknown as NodeJS.WriteStream;
    const io = createIO({ stream: tty, color: false });
    const messages: MessageParam[] = [];
    injectBackgroundResults({ io } as unknown as AgentEnv, jobs, messages);
    expect(JSON.stringify(messages)).toMatch(/changed what git runs/);
    expect(written).toMatch(/◆ \[harness\] this command changed what git runs: .*\.git\/commondir/);
  });

  // New (found while fixing F4): the harness lists `.git` outside the sandbox to fingerprint it,
  // and names what changed. A `.git/info` or `.git/worktrees/x` linked to a folder the sandbox
  // hides would have it list that folder and name its files to the model.
  it("a link in .git to a hidden folder is named, never listed", async () => {
    const { ws } = repo();
    const hidden = tempDir("lah-ag-hidden-");
    writeFileSync(path.join(hidden, "secret-file-name"), "x");
    const result = await modelRuns(
      `mkdir -p .git/worktrees && ln -s ${hidden} .git/worktrees/x && rm -rf .git/info && ln -s ${hidden} .git/info`,
      ws,
    );
    expect(result.output).toMatch(/\[harness\].*\.git\/info.*\.git\/worktrees\/x/s);
    expect(result.output).not.toContain("secret-file-name");
  });

  // F1b, forgery: a command that prints the warning's words itself gets no harness note.
  it("a command printing the warning's words does not get a harness note", async () => {
    const { ws } = repo();
    const fake =
      "[harness] this command changed what git runs: nothing. Your own git would run it, outside any sandbox: look before you run git there (git config --list --show-origin).";
    const result = await bash(`printf '%s\\n' '${fake}'`, ws, sandboxFor(ws));
    let written = "";
    const tty = {
      columns: 200,
      isTTY: true,
      write: (t: string) => ((written += t), true),
    } as unknown as NodeJS.WriteStream;
    const io = createIO({ stream: tty, color: false });
    const call = { type: "tool_use", id: "t2", name: "bash", input: {} } as ToolUseBlock;
    io.toolResult(call, result.output, result.isError);
    expect(written).not.toContain("◆");
  });
});
