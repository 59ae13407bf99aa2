import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s06 from "../../chapters/s06-subagent/agent.ts";
import { createAgent, MAX_CHILD_ROUNDS } from "../../chapters/s06-subagent/agent.ts";
import scenario from "../../chapters/s06-subagent/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import type { MessageParam } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, toolNames } from "../support/helpers.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

const delegate = (prompt = "do the thing") => use("task", { prompt, description: "test" });

/** The tool_result blocks of a conversation, in order. */
const toolResults = (messages: MessageParam[]) =>
  messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === "tool_result") as { tool_use_id: string; content: string }[];
const toolUseIds = (messages: MessageParam[]) =>
  messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .flatMap((b) => (b.type === "tool_use" ? [b.id] : []));

describe("s06 subagent", () => {
  it("gives the lead the five base tools plus task, six in all", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s06.lead);
  });

  it("the child's first request has exactly one message, the prompt, and no task tool", async () => {
    const env = scriptedEnv({
      lead: [delegate("count the files"), say("ok")],
      subagent: [say("there are none")],
    });
    await createAgent(env).send("go");
    const first = env.requests.find((r) => r.agent === "subagent")!;
    expect(first.body.messages).toEqual([{ role: "user", content: "count the files" }]);
    expect(toolNames(env, "subagent")).toEqual(CURRICULUM_TOOLS.s06.subagent);
    expect(first.body.system).not.toBe(env.requests[0].body.system); // its own system prompt
  });

  it("the task result is only the child's final text", async () => {
    const env = scriptedEnv({
      lead: [delegate(), say("thanks")],
      subagent: [
        use("bash", { command: "echo SECRET-INTERMEDIATE-OUTPUT" }, "working on it"),
        say("FINAL SUMMARY"),
      ],
    });
    const agent = createAgent(env);
    await agent.send("go");
    const [result] = toolResults(agent.messages);
    expect(result.content).toBe("FINAL SUMMARY");
    expect(JSON.stringify(agent.messages)).not.toContain("SECRET-INTERMEDIATE-OUTPUT");
    expect(JSON.stringify(agent.messages)).not.toContain("working on it");
  });

  it("parent history holds only parent turns; the child's activity is reported as the subagent", async () => {
    const env = scriptedEnv({
      lead: [delegate(), say("done")],
      subagent: [
        use("glob", { pattern: "*" }),
        use("bash", { command: "echo hi" }),
        say("summary"),
      ],
    });
    const agent = createAgent(env);
    await agent.send("go");
    // user prompt, lead's task call, its one result, lead's answer
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const leadIds = toolUseIds(agent.messages);
    expect(leadIds).toHaveLength(1);
    const childCalls = env.io.trace.filter((e) => e.kind === "tool_call" && e.agent === "subagent");
    expect(childCalls.map((e) => e.kind === "tool_call" && e.name)).toEqual(["glob", "bash"]);
    for (const call of childCalls)
      expect(leadIds).not.toContain(call.kind === "tool_call" && call.id);
    // The lead's next request carries no trace of the child's two tool calls.
    const leadRequests = env.requests.filter((r) => r.agent === "lead");
    expect(toolUseIds(leadRequests[1].body.messages)).toEqual(leadIds);
  });

  it(`a child that never stops is cut at ${MAX_CHILD_ROUNDS} rounds and returns what it has`, async () => {
    const forever = Array.from({ length: MAX_CHILD_ROUNDS + 5 }, (_, i) =>
      use("glob", { pattern: "*.none" }, `step ${i + 1}`),
    );
    const env = scriptedEnv({ lead: [delegate(), say("ok")], subagent: forever });
    const agent = createAgent(env);
    await agent.send("go");
    expect(env.requests.filter((r) => r.agent === "subagent")).toHaveLength(MAX_CHILD_ROUNDS);
    const [result] = toolResults(agent.messages);
    expect(result.content).toContain(`step ${MAX_CHILD_ROUNDS}`);
    expect(result.content).toMatch(/stopped after 30 rounds/);
    expect(env.requests.filter((r) => r.agent === "lead")).toHaveLength(2); // the lead went on
  });

  it("files the child writes are visible to the parent", async () => {
    const env = scriptedEnv({
      lead: [delegate(), use("read", { path: "out/child.txt" }), say("seen")],
      subagent: [
        use("write", { path: "out/child.txt", content: "written by the child" }),
        say("wrote out/child.txt"),
      ],
    });
    const agent = createAgent(env);
    await agent.send("go");
    expect(toolResults(agent.messages).map((r) => r.content)).toEqual([
      "wrote out/child.txt",
      "written by the child",
    ]);
  });

  it("a task without a prompt is an error result and no child starts", async () => {
    const env = scriptedEnv({
      lead: [use("task", { description: "nothing" }), use("task", { prompt: "  " }), say("ok")],
      subagent: [say("never")],
    });
    const agent = createAgent(env);
    await agent.send("go");
    // No prompt at all: the task tool's schema refuses it; a blank one: its handler.
    expect(toolResults(agent.messages)[0].content).toMatch(/task needs "prompt"/);
    expect(toolResults(agent.messages)[1].content).toMatch(/non-empty prompt/);
    expect(env.requests.some((r) => r.agent === "subagent")).toBe(false);
  });

  it("plays its scenario offline: the child writes NOTES.md and the lead reads it", async () => {
    const ws = prepareWorkspace(tempDir(), {
      template: path.join(import.meta.dirname, "../../chapters/s06-subagent/workspace"),
    });
    const { env, agent } = await playScenario(s06, scenario, ws);
    expect(env.scripted!.finished).toBe(true);
    const notes = readFileSync(path.join(ws, "NOTES.md"), "utf8");
    expect(notes.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(3);
    expect(notes).toContain("unknown SKU throws");
    const leadReads = env.io.trace.filter(
      (e) => e.kind === "tool_result" && e.agent === "lead" && e.name === "read",
    );
    expect(leadReads.map((e) => e.kind === "tool_result" && e.output)).toEqual([notes]);
    // The child read three source files, but none of their code reached the lead's history.
    expect(JSON.stringify(agent.messages)).not.toContain("PRICES = {");
    expect(existsSync(path.join(ws, "src/cart.js"))).toBe(true);
  });
});
