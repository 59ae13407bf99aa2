import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bash, createAgent, MAX_OUTPUT } from "../../chapters/s01-agent-loop/agent.ts";
import scenario from "../../chapters/s01-agent-loop/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say } from "../../chapters/_shared/scripted.ts";
import * as s01 from "../../chapters/s01-agent-loop/agent.ts";
import { scriptedEnv, tempDir, testKit, toolNames, scratchArgs } from "../support/helpers.ts";
import {
  oneResultPerCall,
  resultsReachTheModel,
  stopsWhenAnswered,
} from "../../chapters/s01-agent-loop/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";
import { sandboxFor } from "../../chapters/_shared/shell.ts";

describe("s01 agent loop", () => {
  it("has exactly one tool, bash, in its first request", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s01.lead);
  });

  // The curriculum's loop behaviours, defined once with the exercises (exercises/checks.ts beside the chapter)
  // and run here against the chapter's own code.
  for (const check of [stopsWhenAnswered, oneResultPerCall, resultsReachTheModel])
    it(`behaviour: ${check.id}`, () => check.run(s01, testKit()));

  it("never runs a blocked command", async () => {
    const ws = tempDir();
    const marker = path.join(ws, "ran");
    const { output, isError } = await bash(`sudo touch ${marker}`, ws, sandboxFor(ws));
    expect(isError).toBe(true);
    expect(output).toMatch(/blocked/);
    expect(existsSync(marker)).toBe(false);
  });

  it('reports empty output as "(no output)"', async () => {
    expect((await bash("true", ...scratchArgs())).output).toBe("(no output)");
  });

  it("caps long output", async () => {
    const { output } = await bash(
      `head -c ${MAX_OUTPUT * 3} /dev/zero | tr '\\0' x`,
      ...scratchArgs(),
    );
    expect(output.length).toBeLessThan(MAX_OUTPUT + 200);
    expect(output).toMatch(/output capped/);
  });

  it("turns a timeout into an error result and the loop goes on", async () => {
    const { output, isError } = await bash("sleep 5", ...scratchArgs(), { timeoutMs: 300 });
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
