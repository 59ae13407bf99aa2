// How one step of a recorded run reads in the player and in `npm run notes`: a headline and the
// longer part (text, input, output, data), the words around them given in the page's language.
// Pure. (An event's headline in plain words is the player's: player.ts.)
import { clip as clipTo } from "../../chapters/_runner/text.ts";
import type { TraceEvent } from "../../chapters/_trace/contract.ts";

export interface StepView {
  kind: TraceEvent["kind"];
  agent: string;
  /** A short headline: "→ model · 3 messages · 5 tools", "⚙ bash", "mailbox_send". */
  title: string;
  /** The longer part (text, input, output, data), if any. */
  body?: string;
  /** The body is code-like (JSON, command output) rather than prose. */
  code?: boolean;
  error?: boolean;
}

/** What a step shows of a long text (the trace file keeps all of it). */
const clip = (text: string, lines = 30, chars = 3000) => clipTo(text, lines, chars);

/** Labels the player needs, in the page's language. */
export interface ViewLabels {
  user: string;
  request: (messages: number, tools: number) => string;
  response: (stop: string) => string;
  system: string;
  note: string;
  result: string;
  error: string;
}

/** How one step is shown in the player (the words around it come from `labels`). */
export function stepView(step: TraceEvent, labels: ViewLabels): StepView {
  const base = { kind: step.kind, agent: step.agent };
  switch (step.kind) {
    case "user":
      return { ...base, title: labels.user, body: clip(step.text) };
    case "request":
      return {
        ...base,
        title: labels.request(step.messages, step.tools.length),
        body: step.system ? `${labels.system}\n${clip(step.system, 12, 1200)}` : undefined,
      };
    case "response": {
      const calls = step.calls.length ? ` · ${step.calls.join(", ")}` : "";
      return {
        ...base,
        title: `${labels.response(String(step.stop_reason))}${calls}`,
        body: step.text ? clip(step.text) : undefined,
      };
    }
    case "tool_call":
      return {
        ...base,
        title: `⚙ ${step.name}`,
        body: clip(JSON.stringify(step.input, null, 2)),
        code: true,
      };
    case "tool_result":
      return {
        ...base,
        title: `${step.is_error ? labels.error : labels.result} · ${step.name}`,
        body: clip(step.output || "(empty)"),
        code: true,
        error: step.is_error,
      };
    case "note":
      return { ...base, title: labels.note, body: clip(step.text) };
    case "event":
      return {
        ...base,
        title: `◇ ${step.type}`,
        body: clip(JSON.stringify(step.data, null, 2), 16, 1200),
        code: true,
      };
  }
}
