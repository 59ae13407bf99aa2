import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s06 from "../../chapters/s06-subagent/agent.ts";
import { createAgent } from "../../chapters/s06-subagent/agent.ts";
import scenario from "../../chapters/s06-subagent/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import type { MessageParam } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, testKit, toolNames } from "../support/helpers.ts";
import {
  childLoops,
  cutAtThirty,
  freshChild,
  onlyFinalText,
} from "../../chapters/s06-subagent/exercises/checks.ts";
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

  for (const check of [onlyFinalText, freshChild, childLoops, cutAtThirty])
    it(`behaviour: ${check.id}`, () => check.run(s06, testKit()));

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
