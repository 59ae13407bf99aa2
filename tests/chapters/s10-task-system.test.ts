import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s10 from "../../chapters/s10-task-system/agent.ts";
import { createAgent, TaskBoard, taskHandlers } from "../../chapters/s10-task-system/agent.ts";
import scenario from "../../chapters/s10-task-system/scenario.ts";
import { runTool } from "../../chapters/s02-tool-use/agent.ts";
import { TodoList } from "../../chapters/s03-todo-write/agent.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, testKit, toolNames, type Env, toolAt } from "../support/helpers.ts";
import {
  blockedCannotStart,
  freesHalfWrittenEdge,
  onlyCompletionFrees,
  unblocksDependant,
  waitsForEveryBlocker,
} from "../../chapters/s10-task-system/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}`, name, input }) as ToolUseBlock;
/** Where s10 keeps a workspace's board: in the harness's state folder beside it. */
const boardDir = (ws: string) => path.join(stateDirFor(ws), "tasks");
const results = (env: Env) =>
  env.io.trace.flatMap((e) =>
    e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
  );

describe("s10 task system", () => {
  it("offers the five base tools plus the four task tools", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s10.lead);
  });

  it("ids continue after a restart: a new session on the same workspace numbers on", async () => {
    const ws = tempDir();
    const first = scriptedEnv(
      [use("task_create", { subject: "one" }), use("task_create", { subject: "two" }), say("ok")],
      { workspace: ws },
    );
    await createAgent(first).send("plan");
    const second = scriptedEnv([use("task_create", { subject: "three" }), say("ok")], {
      workspace: ws,
    });
    await createAgent(second).send("more");
    expect(results(second)[0].output).toMatch(/^Created task #3\n/);
    expect(readdirSync(boardDir(ws)).sort()).toEqual(["task_1.json", "task_2.json", "task_3.json"]);
  });

  for (const check of [
    blockedCannotStart,
    unblocksDependant,
    waitsForEveryBlocker,
    onlyCompletionFrees,
    freesHalfWrittenEdge,
  ])
    it(`behaviour: ${check.id}`, () => check.run(s10, testKit()));

  it("keeps the board beside the workspace, where the model's commands cannot write it", async () => {
    const env = scriptedEnv([
      use("task_create", { subject: "real" }),
      // A command forging a task where the board used to live changes nothing on the board.
      use("bash", { command: "mkdir -p .tasks && printf '{}' > .tasks/task_2.json" }),
      use("task_list", {}),
      say("ok"),
    ]);
    await createAgent(env).send("go");
    expect(readFileSync(path.join(env.workspace, ".tasks/task_2.json"), "utf8")).toBe("{}"); // the forgery was written
    expect(readdirSync(boardDir(env.workspace))).toEqual(["task_1.json"]);
    expect(results(env)[2]).toEqual({
      output: expect.stringMatching(/^\[ \] #1 real\n1 tasks/),
      isError: false,
    });
  });

  it("keeps blockedBy and blocks consistent in both directions, and refuses cycles", () => {
    const board = new TaskBoard(path.join(tempDir(), ".tasks"));
    const a = board.create({ subject: "a" });
    const b = board.create({ subject: "b", blockedBy: [a.id] });
    const c = board.create({ subject: "c" });
    board.update(c.id, { addBlocks: [b.id] });
    expect(board.get(a.id).blocks).toEqual([b.id]);
    expect(board.get(c.id).blocks).toEqual([b.id]);
    expect(board.get(b.id).blockedBy).toEqual([a.id, c.id]);
    expect(board.isReady(board.get(b.id))).toBe(false);
    expect(() => board.update(a.id, { addBlockedBy: [b.id] })).toThrow(/cycle/);
    expect(() => board.update(a.id, { addBlockedBy: [a.id] })).toThrow(/itself/);
    expect(() => board.get(7)).toThrow("task 7 not found");
    expect(board.get(a.id).blockedBy).toEqual([]);
  });

  it("checks the input of its own tools against their schemas: an undeclared field is refused, and no task is made", async () => {
    const ws = tempDir();
    const env = scriptedEnv(
      [
        use("task_create", { subject: "ship", priority: "high" }),
        use("task_update", { id: "1", status: "completed" }),
        say("ok"),
      ],
      { workspace: ws },
    );
    await createAgent(env).send("plan");
    expect(results(env)).toEqual([
      {
        output: expect.stringMatching(/task_create does not take the field "priority"/),
        isError: true,
      },
      {
        output: expect.stringMatching(/task_update needs "id" to be a whole number/),
        isError: true,
      },
    ]);
    expect(readdirSync(boardDir(ws)).filter((f) => f.startsWith("task_"))).toEqual([]);
  });

  it("rejects an invalid status and writes nothing", async () => {
    const board = new TaskBoard(path.join(tempDir(), ".tasks"));
    board.create({ subject: "a" });
    const before = readFileSync(board.path(1), "utf8");
    const handlers = taskHandlers(board);
    const bad = await runTool(
      handlers,
      call("task_update", { id: 1, status: "done", owner: "me" }),
      toolAt("."),
    );
    expect(bad).toEqual({ output: expect.stringMatching(/invalid status "done"/), isError: true });
    expect(readFileSync(board.path(1), "utf8")).toBe(before);
    board.update(1, { status: "completed" });
    expect(() => board.update(1, { status: "pending" })).toThrow(/already completed/);
  });

  it("a fresh manager on the same folder sees identical state", () => {
    const dir = path.join(tempDir(), ".tasks");
    const board = new TaskBoard(dir);
    board.create({ subject: "design", description: "sketch the API" });
    board.create({ subject: "build", blockedBy: [1] });
    board.create({ subject: "ship", blockedBy: [2] });
    board.update(1, { status: "completed", owner: "alice" });
    board.update(2, { status: "in_progress", owner: "bob", worktree: "build" });
    const fresh = new TaskBoard(dir);
    expect(fresh.list()).toEqual(board.list());
    expect(fresh.list().map((t) => [t.id, t.status, t.owner, t.blockedBy, t.blocks])).toEqual([
      [1, "completed", "alice", [], []],
      [2, "in_progress", "bob", [], [3]],
      [3, "pending", null, [2], []],
    ]);
    expect(fresh.create({ subject: "next" }).id).toBe(4);
  });

  it("a broken task file is a clear error result, and the loop goes on", async () => {
    const ws = tempDir();
    const board = new TaskBoard(boardDir(ws));
    board.create({ subject: "ok" });
    writeFileSync(board.path(2), "{ not json");
    const env = scriptedEnv([use("task_list", {}), use("task_get", { id: 1 }), say("noted")], {
      workspace: ws,
    });
    await createAgent(env).send("show the board");
    const [list, get] = results(env);
    expect(list).toEqual({
      output: expect.stringMatching(/task_2\.json is not valid JSON/),
      isError: true,
    });
    expect(get.isError).toBe(false);
    expect(env.requests).toHaveLength(3);
  });

  it("plays its scenario offline: both tasks end completed on disk and the code works", async () => {
    const ws = tempDir();
    const { env } = await playScenario(s10, scenario, ws);
    const board = new TaskBoard(boardDir(ws));
    expect(board.list().map((t) => [t.subject, t.status])).toEqual([
      ["Write src/greet.js", "completed"],
      ["Test src/greet.js", "completed"],
    ]);
    expect(
      results(env)
        .filter((r) => r.isError)
        .map((r) => r.output),
    ).toEqual([expect.stringMatching(/blocked by #1/)]);
    expect(readFileSync(path.join(ws, "src/greet.js"), "utf8")).toContain("Hello");
    expect(env.scripted!.finished).toBe(true);
  });
});

describe("s10's board, reported to the trace", () => {
  it("each task an answer shows is reported as the board has it: every status, owner, blockers and lane", async () => {
    const board = new TaskBoard(tempDir());
    const events: unknown[] = [];
    const tools = taskHandlers(board, { event: (type, data) => events.push({ type, data }) });
    const ctx = toolAt(tempDir());
    const first = board.create({ subject: "Write src/greet.js" });
    const second = board.create({ subject: "Test it (both cases)", blockedBy: [first.id] });
    board.create({ subject: "Docs", worktree: "docs" });
    await tools.task_update({ id: first.id, status: "in_progress", owner: "alice" }, ctx);
    expect(events).toEqual([{ type: "task", data: s10.taskEvent(board.get(first.id)) }]);
    events.length = 0;
    await tools.task_list({}, ctx);
    expect(events).toEqual(board.list().map((t) => ({ type: "task", data: s10.taskEvent(t) })));
    expect(events[1]).toMatchObject({
      data: { task: second.id, blockedBy: [first.id], owner: null },
    });
    expect(events[2]).toMatchObject({ data: { status: "pending", lane: "docs" } });
    // Completing the first task frees the second: both are reported, as they now are.
    events.length = 0;
    await tools.task_update({ id: first.id, status: "completed" }, ctx);
    expect(events).toEqual(
      [first.id, second.id].map((id) => ({ type: "task", data: s10.taskEvent(board.get(id)) })),
    );
    expect(events[1]).toMatchObject({ data: { blockedBy: [] } });
    // A refused change reports nothing.
    events.length = 0;
    await expect(async () =>
      tools.task_update({ id: 99, status: "completed" }, ctx),
    ).rejects.toThrow();
    expect(events).toEqual([]);
  });

  it("shows a status with the same mark as s03's plan does", () => {
    const plan = new TodoList();
    const rendered = plan.update({
      items: [
        { text: "a", status: "completed" },
        { text: "b", status: "in_progress" },
        { text: "c", status: "pending" },
      ],
    });
    const board = new TaskBoard(tempDir());
    const marks = (["completed", "in_progress", "pending"] as const).map((status, i) => {
      const task = board.create({ subject: String(i) });
      return s10.taskLine(board.update(task.id, { status })).slice(0, 3);
    });
    expect(
      rendered
        .split("\n")
        .slice(0, 3)
        .map((l) => l.slice(0, 3)),
    ).toEqual(marks);
  });
});
