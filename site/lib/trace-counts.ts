// What canonicalTrace (trace-compare.ts) blanks more widely than it must, checked on its own.
// In a team run it compares the teammates' steps as a set with their names blanked, and the
// scenario by its number of agents. Which teammate did a piece of work, and in which order, varies
// from run to run; who is on the team, and how often each piece of work was done, does not. So:
// the agents' names (sorted), and every tool call of a teammate, name blanked, counted. (Idle
// notices, waits and mail batches are not tool calls: their counts may vary.)
// Used by tests/site/traces.test.ts and `npm run traces` (site/scripts/traces.ts), so both agree.
import { escapeRegExp } from "../../chapters/_runner/text.ts";
import type { TraceFile } from "../../chapters/_trace/contract.ts";

/** How many times each teammate tool call (name and input, teammate names blanked) occurs. */
export function teammateCallCounts(trace: TraceFile): Map<string, number> {
  const counts = new Map<string, number>();
  const team = trace.steps.some((s) => s.kind === "event" && s.type.startsWith("mailbox_"));
  const teammates = team ? trace.agents.filter((a) => a !== "lead") : [];
  if (!teammates.length) return counts;
  const names = new RegExp(`\\b(?:${teammates.map(escapeRegExp).join("|")})\\b`, "g");
  for (const step of trace.steps) {
    if (step.kind !== "tool_call" || !teammates.includes(step.agent)) continue;
    const key = `${step.name} ${JSON.stringify(step.input).replace(names, "<teammate>")}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** A different team, or the first teammate tool call done a different number of times, in words;
 *  null when neither. */
export function teamDifference(expected: TraceFile, actual: TraceFile): string | null {
  const [x, y] = [expected, actual].map((t) => [...t.agents].sort().join(", "));
  if (x !== y) return `agents:\n  recorded: ${x}\n  today:    ${y}`;
  const a = teammateCallCounts(expected);
  const b = teammateCallCounts(actual);
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if ((a.get(key) ?? 0) !== (b.get(key) ?? 0)) {
      return `teammates' tool calls: ${key.slice(0, 300)}\n  recorded: ${a.get(key) ?? 0} times\n  today:    ${b.get(key) ?? 0} times`;
    }
  }
  return null;
}
