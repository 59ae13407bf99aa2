// What Ctrl-C keeps of a turn (chapters/_runner/interrupted-turn.ts), on generated histories: any
// earlier turns, a turn cut at any point (before the first answer, with calls unanswered, with some
// results pushed, after streamed text), any set of finished results. The rule: the history is valid
// (every tool_use answered exactly once, in the next message), earlier turns are untouched, every
// finished result is kept as it was, every other call of the turn says it was stopped, and the
// note is the last thing.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import {
  INTERRUPTED_NOTE,
  keepInterruptedTurn,
  STOPPED_RESULT,
} from "../../chapters/_runner/interrupted-turn.ts";
import type { MessageParam, ToolResultBlockParam } from "../../chapters/_shared/types.ts";

let ids = 0;
const call = () => ({ type: "tool_use" as const, id: `t${++ids}`, name: "bash", input: {} });
const result = (id: string, content: string): ToolResultBlockParam => ({
  type: "tool_result",
  tool_use_id: id,
  content,
});

/** A finished turn: prompt, rounds of calls with their results, a final answer. */
const turn = (rounds: number[]): MessageParam[] => {
  const out: MessageParam[] = [{ role: "user", content: "do it" }];
  for (const n of rounds) {
    const calls = Array.from({ length: n }, call);
    out.push({ role: "assistant", content: calls });
    out.push({ role: "user", content: calls.map((c) => result(c.id, `out ${c.id}`)) });
  }
  out.push({ role: "assistant", content: [{ type: "text", text: "done" }] });
  return out;
};

const cut = fc.record({
  earlier: fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }), { maxLength: 2 }),
  rounds: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 }),
  /** Where the turn stopped: 0 the model call of the next round, 1 its calls unanswered, 2 the
   *  calls' results pushed (a killed one among them). */
  at: fc.integer({ min: 0, max: 2 }),
  calls: fc.integer({ min: 1, max: 3 }),
  finished: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  streamed: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
});

describe("Ctrl-C keeps the turn as far as it got", () => {
  test.prop([cut], { seed: 37, numRuns: 300 })(
    "valid history, earlier turns untouched, finished results kept, the rest stopped",
    ({ earlier, rounds, at, calls, finished, streamed }) => {
      const messages: MessageParam[] = earlier.flatMap(turn);
      const before = structuredClone(messages);
      const turnStart = messages.length;
      messages.push(...turn(rounds).slice(0, -1)); // this turn, not yet answered
      const pending = Array.from({ length: calls }, call);
      const done = new Map<string, ToolResultBlockParam>();
      pending.forEach((c, i) => finished[i] && done.set(c.id, result(c.id, `finished ${c.id}`)));
      if (at >= 1) messages.push({ role: "assistant", content: pending });
      if (at === 2)
        messages.push({ role: "user", content: pending.map((c) => result(c.id, "(no output)")) });
      // Results of earlier rounds of this turn finished too.
      for (const m of messages.slice(turnStart))
        if (Array.isArray(m.content))
          for (const b of m.content) if (b.type === "tool_result") done.set(b.tool_use_id, b);

      keepInterruptedTurn(messages, turnStart, done, at === 0 ? streamed : undefined);

      expect(messages.slice(0, turnStart)).toEqual(before);
      messages.forEach((m, i) => {
        if (m.role !== "assistant" || typeof m.content === "string") return;
        const asked = m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
        if (!asked.length) return;
        const next = messages[i + 1];
        expect(next?.role).toBe("user");
        const answered = (next.content as ToolResultBlockParam[]).filter(
          (b) => b.type === "tool_result",
        );
        expect(answered.map((b) => b.tool_use_id)).toEqual(asked);
        if (i >= turnStart)
          for (const b of answered)
            expect(b.content).toBe(done.get(b.tool_use_id)?.content ?? STOPPED_RESULT);
      });
      const last = messages.at(-1)!;
      expect(last.role).toBe("user");
      expect(JSON.stringify(last.content)).toContain(INTERRUPTED_NOTE.slice(0, 30));
      if (at === 0 && streamed?.trim())
        expect(messages.at(-2)).toEqual({
          role: "assistant",
          content: [{ type: "text", text: streamed.trimEnd() }],
        });
    },
  );
});
