import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bash, createAgent, MAX_OUTPUT } from "../../chapters/s01-agent-loop/agent.ts";
import scenario from "../../chapters/s01-agent-loop/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use, useAll } from "../../chapters/_shared/scripted.ts";
import * as s01 from "../../chapters/s01-agent-loop/agent.ts";
import { scriptedEnv, tempDir, toolNames } from "../support/helpers.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

const results = (env: ReturnType<typeof scriptedEnv>) =>
  env.io.trace.filter((e) => e.kind === "tool_result");

describe("s01 agent loop", () => {
  it("has exactly one tool, bash, in its first request", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s01.lead);
  });

  it("stops as soon as stop_reason is not tool_use", async () => {
    const env = scriptedEnv([
      use("bash", { command: "echo one" }),
      say("done"),
      use("bash", { command: "echo never" }),
    ]);
    await createAgent(env).send("go");
    expect(env.requests).toHaveLength(2);
    expect(results(env).map((r) => r.kind === "tool_result" && r.output)).toEqual(["one"]);
  });

  it("answers every tool_use with one tool_result of the same id, all in one user message", async () => {
    const env = scriptedEnv([
      useAll([
        { name: "bash", input: { command: "echo a" } },
        { name: "bash", input: { command: "echo b" } },
      ]),
      say("ok"),
    ]);
    const agent = createAgent(env);
    await agent.send("two at once");
    const [, assistant, user] = agent.messages;
    const ids = (assistant.content as { type: string; id?: string }[])
      .filter((b) => b.type === "tool_use")
      .map((b) => b.id);
    expect(user.role).toBe("user");
    const blocks = user.content as { type: string; tool_use_id: string; content: string }[];
    expect(blocks.map((b) => b.type)).toEqual(["tool_result", "tool_result"]);
    expect(blocks.map((b) => b.tool_use_id)).toEqual(ids);
    expect(blocks.map((b) => b.content)).toEqual(["a", "b"]);
  });

  it("never runs a blocked command", async () => {
    const ws = tempDir();
    const marker = path.join(ws, "ran");
    const { output, isError } = await bash(`sudo touch ${marker}`, ws);
    expect(isError).toBe(true);
    expect(output).toMatch(/blocked/);
    expect(existsSync(marker)).toBe(false);
  });

  it('reports empty output as "(no output)"', async () => {
    expect((await bash("true", tempDir())).output).toBe("(no output)");
  });

  it("caps long output", async () => {
    const { output } = await bash(`head -c ${MAX_OUTPUT * 3} /dev/zero | tr '\\0' x`, tempDir());
    expect(output.length).toBeLessThan(MAX_OUTPUT + 200);
    expect(output).toMatch(/output capped/);
  });

  it("turns a timeout into an error result and the loop goes on", async () => {
    const { output, isError } = await bash("sleep 5", tempDir(), { timeoutMs: 300 });
    expect(isError).toBe(true);
    expect(output).toMatch(/timed out/);
  });

  it("plays its scenario offline: hello.js is written and run for real", async () => {
    const ws = tempDir();
    const { env } = await playScenario(s01, scenario, ws);
    expect(readFileSync(path.join(ws, "hello.js"), "utf8")).toContain("Hello from the agent loop!");
    const last = env.io.trace.filter((e) => e.kind === "response").at(-1);
    expect(last && last.kind === "response" && last.text).toContain("Hello from the agent loop!");
  });
});
