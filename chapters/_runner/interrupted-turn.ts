// What Ctrl-C leaves of a turn. Dropping the whole turn made the model forget the request and the
// work it had done while the files stayed changed (and, in s13, the teammates it had spawned). As
// Claude Code does, the turn is kept as far as it got: every finished tool result, the text the
// model had streamed so far, and a note that the person interrupted, so the next request is a valid
// conversation that says what happened.
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from "../_shared/types.ts";
import type { TraceEvent } from "../_trace/contract.ts";

export const INTERRUPTED_NOTE =
  "[The user interrupted this turn with Ctrl-C. What ran before stays done; what was still running was stopped.]";
export const STOPPED_RESULT = "(interrupted by the user before it finished)";

/** The lead's tool results that finished during the turn, by tool_use id, from the trace. */
export function finishedResults(steps: readonly TraceEvent[]): Map<string, ToolResultBlockParam> {
  const results = new Map<string, ToolResultBlockParam>();
  for (const step of steps)
    if (step.kind === "tool_result" && step.agent === "lead")
      results.set(step.id, {
        type: "tool_result",
        tool_use_id: step.id,
        content: step.output,
        is_error: step.is_error,
      });
  return results;
}

/** Makes `messages` end the interrupted turn validly: the last answer's tool calls each get their
 *  result — the one that finished before Ctrl-C, or "interrupted" (a command Ctrl-C killed may
 *  already have handed the loop an empty result: that one is replaced) —, the streamed text is
 *  kept, and the note is last. */
export function keepInterruptedTurn(
  messages: MessageParam[],
  turnStart: number,
  finished: Map<string, ToolResultBlockParam>,
  unfinishedText?: string,
): void {
  // Only this turn's last answer: an earlier turn's results are not this Ctrl-C's to change.
  const answer = messages.findLastIndex((m, i) => i >= turnStart && m.role === "assistant");
  const calls =
    answer >= 0 && Array.isArray(messages[answer].content)
      ? (messages[answer].content as ContentBlockParam[]).flatMap((b) =>
          b.type === "tool_use" ? [b.id] : [],
        )
      : [];
  if (calls.length) {
    const results = calls.map(
      (id): ToolResultBlockParam =>
        finished.get(id) ?? {
          type: "tool_result",
          tool_use_id: id,
          content: STOPPED_RESULT,
          is_error: true,
        },
    );
    const next = messages[answer + 1];
    if (next?.role === "user") {
      const others = blocks(next.content).filter((b) => b.type !== "tool_result");
      next.content = [...results, ...others];
    } else messages.splice(answer + 1, 0, { role: "user", content: results });
  }
  if (unfinishedText?.trim() && messages.at(-1)?.role === "user")
    messages.push({
      role: "assistant",
      content: [{ type: "text", text: unfinishedText.trimEnd() }],
    });
  const end = messages.at(-1);
  const note = { type: "text" as const, text: INTERRUPTED_NOTE };
  if (end?.role === "user") end.content = [...blocks(end.content), note];
  else messages.push({ role: "user", content: [note] });
}

const blocks = (content: MessageParam["content"]): ContentBlockParam[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;
