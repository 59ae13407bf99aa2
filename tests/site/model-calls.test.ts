// The inspector's model calls (site/lib/model-calls.ts), stated as properties over every recorded
// run and over generated runs of several agents whose steps interleave: each request opens exactly
// one call; the call holds that agent's next response and the tool calls it asked for, nothing of
// another agent's; a step is in at most one call; a request without a system prompt points at the
// one that last carried it; a call that failed holds its model_error event instead of a response.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { SEED } from "../../chapters/_exercises/property.ts";
import type { TraceEvent } from "../../chapters/_trace/contract.ts";
import { modelCalls } from "../../site/lib/model-calls.ts";

const TRACES = path.join(REPO_ROOT, "site/traces");
const traces = readdirSync(TRACES).map(
  (f) => JSON.parse(readFileSync(path.join(TRACES, f), "utf8")) as { steps: TraceEvent[] },
);

/** What must hold of the calls of any run. */
function checkCalls(steps: readonly TraceEvent[]) {
  const { calls, callOf } = modelCalls(steps);
  const requests = steps.flatMap((s, i) => (s.kind === "request" ? [i] : []));
  expect(calls.map((c) => c.steps[0])).toEqual(requests);
  calls.forEach((call, n) => {
    for (const i of call.steps) {
      expect(steps[i].agent).toBe(call.agent);
      expect(callOf[i]).toBe(n);
    }
    const next = requests.find((r) => r > call.steps[0] && steps[r].agent === call.agent);
    const before = (i: number) => next === undefined || i < next;
    // its response is the agent's first response after the request, before its next request
    const response = steps.findIndex(
      (s, i) => i > call.steps[0] && before(i) && s.kind === "response" && s.agent === call.agent,
    );
    // or, when the call failed first, its model_error event (and then no response)
    const failed = steps.findIndex(
      (s, i) =>
        i > call.steps[0] &&
        before(i) &&
        s.kind === "event" &&
        s.type === "model_error" &&
        s.agent === call.agent,
    );
    const failedFirst = failed >= 0 && (response < 0 || failed < response);
    expect(call.error).toBe(failedFirst ? steps[failed] : undefined);
    expect(call.response).toBe(response < 0 || failedFirst ? undefined : steps[response]);
    if (call.response?.kind === "response") {
      expect(call.toolCalls.map((t) => (t.kind === "tool_call" ? t.name : ""))).toEqual(
        call.response.calls.slice(0, call.toolCalls.length),
      );
    }
    if (call.systemFrom !== undefined) {
      const carried = steps[call.systemFrom];
      expect(carried.kind === "request" && carried.system !== undefined).toBe(true);
      expect(carried.agent).toBe(call.agent);
    }
  });
  // every step in a call is listed by it
  callOf.forEach((n, i) => {
    if (n !== null) expect(calls[n].steps).toContain(i);
  });
}

describe("model calls for the inspector", () => {
  it("every recorded run: each request is a call, and every tool call is in the call that asked for it", () => {
    for (const trace of traces) {
      checkCalls(trace.steps);
      const { calls } = modelCalls(trace.steps);
      const toolCalls = trace.steps.filter((s) => s.kind === "tool_call").length;
      expect(calls.reduce((n, c) => n + c.toolCalls.length, 0)).toBe(toolCalls);
    }
  });

  /** One agent's turn: a request, maybe a response asking for some tools, their calls and results. */
  const turn = (agent: string) =>
    fc
      .record({
        system: fc.option(fc.constantFrom("You are a lead.", "You are a teammate.")),
        answered: fc.boolean(),
        failed: fc.boolean(),
        tools: fc.array(fc.constantFrom("bash", "read", "send"), { maxLength: 3 }),
      })
      .map(({ system, answered, failed, tools }) => {
        const steps: TraceEvent[] = [
          {
            kind: "request",
            agent,
            messages: 1,
            tools: ["bash", "read", "send"],
            ...(system ? { system } : {}),
          },
        ];
        if (failed) {
          steps.push({
            kind: "event",
            agent,
            type: "model_error",
            data: { status: 529, message: "Overloaded" },
          });
          return steps;
        }
        if (!answered) return steps;
        steps.push({ kind: "response", agent, stop_reason: "tool_use", text: "", calls: tools });
        tools.forEach((name, k) => {
          const id = `${agent}-${k}`;
          steps.push({ kind: "tool_call", agent, id, name, input: {} });
          steps.push({ kind: "tool_result", agent, id, name, output: "ok", is_error: false });
        });
        return steps;
      });

  test.prop(
    [
      fc.array(fc.tuple(fc.constantFrom("lead", "alice", "bob"), fc.integer()), { maxLength: 8 }),
      fc.array(turn("lead"), { maxLength: 4 }),
      fc.array(turn("alice"), { maxLength: 4 }),
      fc.array(turn("bob"), { maxLength: 4 }),
    ],
    { seed: SEED, numRuns: 100 },
  )("agents whose turns interleave step by step each keep their own calls", (order, ...turns) => {
    // Interleave the three agents' steps in an order drawn from `order` (then what is left).
    const queues = turns.map((t) => t.flat());
    const steps: TraceEvent[] = [];
    for (const [agent, n] of order) {
      const queue = queues[["lead", "alice", "bob"].indexOf(agent)];
      steps.push(...queue.splice(0, 1 + (Math.abs(n) % 3)));
    }
    for (const queue of queues) steps.push(...queue);
    checkCalls(steps);
  });
});
