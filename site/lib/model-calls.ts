// Each model call of a recorded run, as the recording holds it, for the player's inspector: the
// request step (how many messages, their estimated size, the tools offered, the system prompt
// when it changed) and the response step (stop reason, text, the tools asked for, token counts
// when a real model answered), with the tool calls that response made (their inputs), or the
// model_error event of a call that failed (its status and the server's message). A request
// carries `system` only when the agent's prompt changed (trace-normalize.ts); the call then says
// which step last showed it. Pure: the player's data endpoint and the recording worker use it.
import type { TraceEvent } from "../../chapters/_trace/contract.ts";

export interface ModelCall {
  /** Who called the model. */
  agent: string;
  /** The steps that belong to the call: its request, its response, the tool calls it made. */
  steps: number[];
  request: TraceEvent;
  response?: TraceEvent;
  /** The call failed: its model_error event instead of a response. */
  error?: TraceEvent;
  toolCalls: TraceEvent[];
  /** The step whose request last carried this agent's system prompt, when this one does not. */
  systemFrom?: number;
}

/** The model calls of a run in order, and for each step the call it belongs to (or null). */
export function modelCalls(steps: readonly TraceEvent[]): {
  calls: ModelCall[];
  callOf: (number | null)[];
} {
  const calls: ModelCall[] = [];
  const callOf: (number | null)[] = steps.map(() => null);
  const open = new Map<string, ModelCall>(); // per agent: its call still taking steps
  const systemAt = new Map<string, number>();
  steps.forEach((step, i) => {
    const agent = step.agent;
    if (step.kind === "request") {
      const call: ModelCall = { agent, steps: [i], request: step, toolCalls: [] };
      if (step.system !== undefined) systemAt.set(agent, i);
      else if (systemAt.has(agent)) call.systemFrom = systemAt.get(agent);
      open.set(agent, call);
      callOf[i] = calls.push(call) - 1;
      return;
    }
    // Until the agent's next request, its response and the tool calls it asked for join the
    // call (tool results and events may come between them: they are steps of their own).
    const call = open.get(agent);
    if (!call) return;
    const answered = call.response || call.error;
    if (step.kind === "response" && !answered) call.response = step;
    else if (step.kind === "event" && step.type === "model_error" && !answered) call.error = step;
    else if (
      step.kind === "tool_call" &&
      call.response?.kind === "response" &&
      call.response.calls.length > call.toolCalls.length
    )
      call.toolCalls.push(step);
    else return;
    call.steps.push(i);
    callOf[i] = calls.indexOf(call);
  });
  return { calls, callOf };
}
