import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s03 from "../../chapters/s03-todo-write/agent.ts";
import { createAgent, MAX_TODOS, REMINDER, TodoList } from "../../chapters/s03-todo-write/agent.ts";
import scenario from "../../chapters/s03-todo-write/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { CreateParams } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, testKit, toolNames, toolAt } from "../support/helpers.ts";
import {
  reminderAfterThree,
  resultsFirst,
  todoResets,
} from "../../chapters/s03-todo-write/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

type Env = ReturnType<typeof scriptedEnv>;
const item = (text: string, status: string, id?: string) => ({
  text,
  status,
  ...(id ? { id } : {}),
});
const bash = (command = "true") => use("bash", { command });
const todo = (...items: ReturnType<typeof item>[]) => use("todo", { items });

/** The text blocks (not tool results) of the last user message of a request. */
const injected = (body: CreateParams): string[] => {
  const last = body.messages.at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
};
/** For each request, whether a reminder rides in its last user message. */
const reminders = (env: Env) => env.requests.map((r) => injected(r.body).includes(REMINDER));
const todoResults = (env: Env) =>
  env.io.trace.flatMap((e) =>
    e.kind === "tool_result" && e.name === "todo"
      ? [{ output: e.output, isError: e.is_error }]
      : [],
  );

describe("s03 todo-write", () => {
  it("offers the five base tools plus todo", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s03.lead);
  });

  it("renders the plan readably", () => {
    const todos = new TodoList();
    const out = todos.update({
      items: [item("a", "completed"), item("b", "in_progress"), item("c", "pending", "x")],
    });
    expect(out).toBe("[x] #1 a\n[>] #2 b\n[ ] #x c\n(1/3 completed)");
  });

  it("rejects two in_progress items and keeps the old list", async () => {
    const env = scriptedEnv([
      todo(item("first", "in_progress"), item("second", "pending")),
      todo(item("first", "in_progress"), item("second", "in_progress")),
      say("ok"),
    ]);
    const agent = createAgent(env);
    await agent.send("plan");
    const [ok, rejected] = todoResults(env);
    expect(ok.isError).toBe(false);
    expect(rejected.isError).toBe(true);
    expect(rejected.output).toMatch(/only one item may be in_progress.*previous plan is unchanged/);
    expect(await agent.commands!["/todos"].run("")).toBe(
      "[>] #1 first\n[ ] #2 second\n(0/2 completed)",
    );
  });

  it(`rejects more than ${MAX_TODOS} items and keeps the old list`, () => {
    const todos = new TodoList();
    todos.update({ items: [item("keep me", "pending")] });
    const many = Array.from({ length: MAX_TODOS + 1 }, (_, i) => item(`step ${i}`, "pending"));
    expect(() => todos.update({ items: many })).toThrow(/too many/);
    expect(todos.current).toEqual([{ id: "1", text: "keep me", status: "pending" }]);
    expect(() => todos.update({ items: many.slice(0, MAX_TODOS) })).not.toThrow();
  });

  it("the todo tool reports the plan as it now stands to the trace; a refused update reports nothing", async () => {
    const todos = new TodoList();
    const events: unknown[] = [];
    const todo = s03.todoHandler(todos, { event: (type, data) => events.push({ type, data }) });
    const ctx = toolAt(tempDir());
    await todo(
      {
        items: [
          { text: " write it ", status: "in_progress" },
          { text: "test it", status: "pending" },
        ],
      },
      ctx,
    );
    const plan = [
      { status: "in_progress", text: "write it" },
      { status: "pending", text: "test it" },
    ];
    expect(events).toEqual([{ type: "todos", data: { items: plan } }]);
    await expect(async () =>
      todo(
        {
          items: [
            { text: "a", status: "in_progress" },
            { text: "b", status: "in_progress" },
          ],
        },
        ctx,
      ),
    ).rejects.toThrow(/only one item/);
    expect(events).toHaveLength(1);
  });

  it("rejects malformed items with a clear reason", () => {
    const todos = new TodoList();
    expect(() => todos.update({ items: "do stuff" })).toThrow(/items must be an array/);
    expect(() => todos.update({ items: [item("a", "doing")] })).toThrow(/item 1: status must be/);
    expect(() => todos.update({ items: [item("", "pending")] })).toThrow(/item 1: text/);
    expect(() =>
      todos.update({ items: [item("a", "pending", "1"), item("b", "pending", "1")] }),
    ).toThrow(/unique/);
    expect(todos.current).toEqual([]);
  });

  // The curriculum's reminder behaviours, defined once with the exercises (exercises/checks.ts beside the chapter)
  // and run here against the chapter's own code.
  for (const check of [reminderAfterThree, todoResets, resultsFirst])
    it(`behaviour: ${check.id}`, () => check.run(s03, testKit()));

  it("the reminder is announced with a note each time", async () => {
    const env = scriptedEnv([bash(), bash(), bash(), bash(), bash(), bash(), say("done")]);
    await createAgent(env).send("work");
    expect(reminders(env)).toEqual([false, false, false, true, false, false, true]);
    expect(env.io.trace.filter((e) => e.kind === "note")).toHaveLength(2);
  });

  it("plays its scenario offline: the plan is finished, the reminder shows, the test passes", async () => {
    const ws = tempDir();
    const { env, agent } = await playScenario(s03, scenario, ws);
    const notes = env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
    expect(notes).toEqual([expect.stringMatching(/reminder injected/)]);
    expect(await agent.commands!["/todos"].run("")).toMatch(/\(3\/3 completed\)$/);
    const out = execFileSync("node", [path.join(ws, "test/slugify.test.mjs")], {
      encoding: "utf8",
    });
    expect(out).toContain("all tests pass");
  });
});
