import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s12 from "../../chapters/s12-worktree-isolation/agent.ts";
import { createAgent, WorktreeManager } from "../../chapters/s12-worktree-isolation/agent.ts";
import scenario from "../../chapters/s12-worktree-isolation/scenario.ts";
import { TaskBoard } from "../../chapters/s10-task-system/agent.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { scriptedEnv, tempDir, testKit, toolNames, type Env } from "../support/helpers.ts";
import {
  createBindsTask,
  refusesUnbindable,
  removeCompletesTask,
  removeUnbinds,
} from "../../chapters/s12-worktree-isolation/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const branches = (ws: string) =>
  git(ws, "branch", "--format=%(refname:short)").split("\n").filter(Boolean);
const results = (env: Pick<Env, "io">) =>
  env.io.trace.flatMap((e) =>
    e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
  );

/** The harness's state for a workspace, beside it: the task board and the lane index/log. */
const boardDir = (ws: string) => path.join(stateDirFor(ws), "tasks");
const laneFile = (ws: string, name: "index.json" | "events.jsonl") =>
  path.join(stateDirFor(ws), "lanes", name);

/** A fresh (non-git) workspace with a task board and a lane manager on it. */
function setup() {
  const ws = tempDir("lah-wt-");
  const board = new TaskBoard(boardDir(ws));
  return { ws, board, lanes: new WorktreeManager(ws, { board }) };
}

describe("s12 worktree isolation", () => {
  it("offers the base tools, the 4 task tools and the 4 worktree tools (13)", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s12.lead);
  });

  for (const check of [createBindsTask, refusesUnbindable, removeCompletesTask, removeUnbinds])
    it(`behaviour: ${check.id}`, () => check.run(s12, testKit()));

  it("keeps the lane index and the board beside the workspace; the checkouts stay in it", async () => {
    const env = scriptedEnv([
      use("task_create", { subject: "Build the API" }),
      use("worktree_create", { name: "api", task_id: 1 }),
      // A command forging lanes and tasks where they used to live changes nothing the harness reads.
      use("bash", {
        command:
          "mkdir -p .tasks && echo '{}' > .tasks/task_2.json && " +
          `echo '{"lanes":[{"name":"evil","path":"/etc","branch":"main","taskId":null}]}' > .worktrees/index.json`,
      }),
      use("worktree_list", {}),
      use("task_list", {}),
      say("done"),
    ]);
    await createAgent(env).send("go");
    const ws = env.workspace;
    expect(existsSync(path.join(ws, ".worktrees/api/.git"))).toBe(true); // the checkout: in the workspace
    expect(
      JSON.parse(readFileSync(laneFile(ws, "index.json"), "utf8")).lanes.map(
        (l: { name: string }) => l.name,
      ),
    ).toEqual(["api"]);
    const [, , , lanes, tasks] = results(env);
    expect(lanes).toEqual({
      output: expect.stringMatching(/^api {2}\.worktrees\/api {2}wt\/api {2}task #1/),
      isError: false,
    });
    expect(tasks.output).toMatch(/^\[>\] #1 Build the API {2}\(lane: api\)\n1 tasks/);
    expect(readdirSync(boardDir(ws))).toEqual(["task_1.json"]);

    // Without the last argument a manager finds the same index: the state folder beside the workspace.
    expect(new WorktreeManager(ws).list().map((l) => l.name)).toEqual(["api"]);
    expect(new WorktreeManager(ws, { stateDir: env.stateDir }).list()).toHaveLength(1);
    expect(new WorktreeManager(ws, { stateDir: tempDir() }).list()).toEqual([]);
  });

  it("worktree_run runs with the lane as its working directory", async () => {
    const env = scriptedEnv([
      use("worktree_create", { name: "api" }),
      use("worktree_run", {
        name: "api",
        command: "pwd; git branch --show-current; echo made-here > marker.txt",
      }),
      say("done"),
    ]);
    await createAgent(env).send("go");
    const lane = realpathSync(path.join(env.workspace, ".worktrees/api"));
    expect(results(env)[1]).toEqual({ output: `${lane}\nwt/api`, isError: false });
    expect(readFileSync(path.join(lane, "marker.txt"), "utf8")).toBe("made-here\n");
    expect(existsSync(path.join(env.workspace, "marker.txt"))).toBe(false); // the main checkout is untouched
  });

  it("refuses invalid and duplicate names, creating nothing", async () => {
    const { ws, lanes } = setup();
    lanes.create("ok-1");
    const before = {
      entries: readdirSync(path.join(ws, ".worktrees")).sort(),
      branches: branches(ws),
    };
    const bad = [
      "",
      "Upper",
      "-dash",
      ".dot",
      "has space",
      "a/b",
      "../up",
      "a..b",
      "x".repeat(41),
      "ends.",
      "name.lock",
      "index.json",
      "ümlaut",
    ];
    for (const name of bad)
      expect(() => lanes.create(name), JSON.stringify(name)).toThrow(/invalid lane name/);
    expect(() => lanes.create("ok-1")).toThrow(/already exists/);
    expect(readdirSync(path.join(ws, ".worktrees")).sort()).toEqual(before.entries);
    expect(branches(ws)).toEqual(before.branches);
    expect(lanes.list().map((l) => l.name)).toEqual(["ok-1"]);

    // Through the tool, a refused name is an error result and the loop goes on.
    const env = scriptedEnv(
      [
        use("worktree_create", { name: "Bad Name" }),
        ...[1e21, "1", 0, 1.5].map((task_id) => use("worktree_create", { name: "fine", task_id })),
        use("worktree_list", {}),
        say("ok"),
      ],
      { workspace: ws },
    );
    await createAgent(env).send("go");
    expect(results(env).map((r) => r.isError)).toEqual([true, true, true, true, true, false]);
    // Text and 1.5 are refused by the tool's schema, 1e21 and 0 by the board's id check.
    for (const r of results(env).slice(1, 5))
      expect(r.output).toMatch(
        /task id must be a whole number from 1 to|"task_id" to be a whole number/,
      );
    expect(existsSync(lanes.path("fine"))).toBe(false);
  });

  it("remove needs force for uncommitted work; with complete_task it completes the bound task", () => {
    const { ws, board, lanes } = setup();
    const task = board.create({ subject: "Fix the parser" });
    lanes.create("parser", task.id);
    writeFileSync(path.join(lanes.path("parser"), "parser.js"), "export {};\n");

    expect(() => lanes.remove("parser", { completeTask: true })).toThrow(/uncommitted/);
    expect(existsSync(lanes.path("parser"))).toBe(true);
    expect(board.get(task.id).status).toBe("in_progress");

    git(lanes.path("parser"), "add", "-A");
    git(lanes.path("parser"), "commit", "-q", "-m", "fix parser");
    lanes.remove("parser", { completeTask: true });
    expect(existsSync(lanes.path("parser"))).toBe(false);
    expect(lanes.list()).toEqual([]);
    expect(board.get(task.id)).toMatchObject({ status: "completed", worktree: null });
    expect(git(ws, "log", "--format=%s", "wt/parser", "-1")).toBe("fix parser"); // the branch keeps the work

    lanes.create("scratch");
    writeFileSync(path.join(lanes.path("scratch"), "junk.txt"), "x");
    lanes.remove("scratch", { force: true });
    expect(existsSync(lanes.path("scratch"))).toBe(false);
  });

  it("logs every step to events.jsonl, one JSON object per line", async () => {
    const { ws, board, lanes } = setup();
    const task = board.create({ subject: "Write docs" });
    lanes.create("docs", task.id);
    await lanes.run("docs", "echo hi");
    lanes.remove("docs", { completeTask: true });
    const lines = readFileSync(laneFile(ws, "events.jsonl"), "utf8").trim().split("\n");
    const events = lines.map((line) => JSON.parse(line));
    expect(events.map((e) => e.event)).toEqual([
      "worktree_create",
      "task_bound",
      "worktree_run",
      "task_completed",
      "worktree_remove",
    ]);
    expect(events.every((e) => e.worktree === "docs" && typeof e.ts === "string")).toBe(true);
    expect(events[1].task).toBe(task.id);
    expect(events[2]).toMatchObject({ command: "echo hi", ok: true });
  });

  it("events() skips a line cut off by a crash, with a note, and the next event starts on a fresh line", async () => {
    const ws = tempDir("lah-wt-");
    const board = new TaskBoard(boardDir(ws));
    const notes: string[] = [];
    const lanes = new WorktreeManager(ws, { board, onNote: (text) => notes.push(text) });
    lanes.create("docs");
    appendFileSync(
      laneFile(ws, "events.jsonl"),
      '{"ts":"2026-01-01T00:00:00.000Z","event":"worktree.ru',
    ); // the crash
    await lanes.run("docs", "echo hi"); // logged after the cut-off line, not glued onto it
    expect(lanes.events().map((e) => e.event)).toEqual(["worktree_create", "worktree_run"]);
    expect(notes).toEqual([`skipped a malformed line in ${laneFile(ws, "events.jsonl")} (line 2)`]);

    // Valid JSON that is not an event is skipped the same way.
    writeFileSync(
      laneFile(ws, "events.jsonl"),
      '["not an event"]\n{"event":"worktree_run","worktree":"docs"}\n',
    );
    expect(lanes.events().map((e) => e.event)).toEqual(["worktree_run"]);
    expect(notes.at(-1)).toBe(
      `skipped a malformed line in ${laneFile(ws, "events.jsonl")} (line 1)`,
    );
  });

  it("keeps the harness's own state folders out of git, so a lane's first commit holds only the project", () => {
    const { ws, lanes } = setup();
    writeFileSync(path.join(ws, "app.js"), "console.log(1);\n");
    for (const dir of [".mailboxes", ".team", ".transcripts", ".memory"]) {
      mkdirSync(path.join(ws, dir), { recursive: true });
      writeFileSync(path.join(ws, dir, "state.json"), "{}\n");
    }
    lanes.create("feature");
    expect(git(ws, "ls-tree", "-r", "--name-only", "wt/feature").split("\n")).toEqual(["app.js"]);
    expect(git(ws, "status", "--porcelain", "--untracked-files=all")).toBe("");
    const exclude = readFileSync(path.join(ws, ".git/info/exclude"), "utf8").split("\n");
    for (const line of s12.HARNESS_STATE) expect(exclude).toContain(line);
    lanes.create("second"); // ensureRepo again: nothing is added twice
    expect(
      readFileSync(path.join(ws, ".git/info/exclude"), "utf8")
        .split("\n")
        .filter((l) => l === ".team/"),
    ).toHaveLength(1);
  });

  it("plays its scenario offline: the lane's commit is merged and the task completed", async () => {
    const ws = tempDir();
    const { env } = await playScenario(s12, scenario, ws);
    expect(readFileSync(path.join(ws, "greet.js"), "utf8")).toContain("Hello, ${name}!");
    expect(git(ws, "log", "--format=%s", "-1")).toBe("Add greet()");
    expect(existsSync(path.join(ws, ".worktrees/greet"))).toBe(false);
    expect(new TaskBoard(boardDir(ws)).get(1)).toMatchObject({
      status: "completed",
      worktree: null,
    });
    expect(results(env).filter((r) => r.isError)).toHaveLength(1); // only the refused remove of uncommitted work
    expect(env.io.trace.some((e) => e.kind === "event" && e.type === "task_completed")).toBe(true);
  });
});
