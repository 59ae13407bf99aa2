// Comparing two recorded runs of a scenario: what must stay the same (the steps, in order where
// order is deterministic) and what is noise (timings, `ls -l` owners, the interleaving of a team).
// tests/site/traces.test.ts and `npm run traces` use it to tell whether a trace must be recorded
// again. Pure.
import { escapeRegExp } from "../../chapters/_runner/text.ts";
import type { TraceFile } from "../../chapters/_trace/contract.ts";

/** What differs between runs and machines but is worth seeing in the player (a backoff's
 *  random delay, who owns a file in `ls -l`): kept in the committed trace, blanked only when
 *  two traces are compared. */
const NOISE: [RegExp, string][] = [
  [/\b\d+(?:\.\d+)? ?ms\b/g, "<n> ms"],
  [/\b\d+(?:\.\d+)?s\b/g, "<n>s"],
  [/^total \d+$/gm, "total <n>"],
  // ls -l: keep the type, permissions and name; links, owner, group, size and date vary
  [
    /^([bcdlps-][rwxsStT-]{9}[.@+]?)\s+\d+\s+\S+\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+\s+(.+)$/gm,
    "$1 <ls> $2",
  ],
];
/** Numeric fields that carry the same kind of noise (s14's backoff delays; a request's estimated
 *  tokens, which count made-up ids whose length varies). */
const NOISY_FIELD = /delay|wait|elapsed|duration|_ms$|^ms$|^tokens$/i;

/** What must stay the same between two runs. Single-agent chapters (and s06's child, which
 *  runs inside a tool call) are compared step by step. In a team, teammates run concurrently:
 *  which teammate claims which task, and whether a message arrives before or after a claim,
 *  is a race. So there the teammates' steps are pooled and compared as a set, with their names
 *  and tool-call ids blanked; the lead, which waits for the team to be quiet, keeps its order.
 *  Everywhere, structured events are compared as a set per agent (a drained mailbox yields its
 *  messages in arrival order), mailbox ids are blanked, several messages read at once are
 *  sorted (a teammate may go idle twice: repeats count once), and noise (timings, `ls -l` owners, backoff delays) is blanked. */
export function canonicalTrace(trace: TraceFile): Record<string, string[]> {
  const team = trace.steps.some((s) => s.kind === "event" && s.type.startsWith("mailbox_"));
  const teammates = team ? trace.agents.filter((a) => a !== "lead") : [];
  const teammateNames = teammates.length
    ? new RegExp(`\\b(?:${teammates.map(escapeRegExp).join("|")})\\b`, "g")
    : null;
  const sortMessages = (text: string) => {
    const blocks = text.match(/<message [^>]*>[\s\S]*?<\/message>/g);
    if (!blocks || blocks.length < 2) return text;
    const rest = text.replace(/<message [^>]*>[\s\S]*?<\/message>/g, "").trim();
    return [...new Set(blocks)].sort().join("\n") + (rest ? `\n${rest}` : "");
  };
  const blank = (text: string) => {
    let out = text.replace(/\bmsg_\d+\b/g, "msg_*");
    if (teammateNames)
      out = out
        .replace(/\btoolu_[A-Za-z0-9-]+_\d+\b/g, "toolu_*")
        .replace(teammateNames, "<teammate>");
    for (const [pattern, replacement] of NOISE) out = out.replace(pattern, replacement);
    return sortMessages(out);
  };
  const quiet = (value: unknown, key = ""): unknown => {
    if (typeof value === "string") return blank(value);
    if (typeof value === "number") return NOISY_FIELD.test(key) ? "<n>" : value;
    if (Array.isArray(value)) return value.map((v) => quiet(v));
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, quiet(v, k)]));
    return value;
  };
  const projection: Record<string, string[]> = {
    "(scenario)": [
      JSON.stringify({
        chapter: trace.chapter,
        summary: trace.summary,
        prompts: trace.prompts,
        agents: trace.agents.length,
        offered: trace.offered,
      }),
    ],
  };
  const sets: Record<string, string[]> = {};
  for (const step of trace.steps) {
    const teammate = teammates.includes(step.agent);
    // How many messages a teammate's request carried depends on what had arrived by then.
    const json = JSON.stringify(
      quiet(teammate && step.kind === "request" ? { ...step, messages: "<n>" } : step),
    );
    if (teammate) (sets["(teammates, as a set)"] ??= []).push(json);
    else if (step.kind === "event") (sets[`${step.agent} (events, as a set)`] ??= []).push(json);
    else (projection[step.agent] ??= []).push(json);
  }
  for (const [key, list] of Object.entries(sets)) projection[key] = [...new Set(list)].sort();
  return projection;
}

/** The first difference between two traces' projections, in words; null when they match. */
export function traceDifference(expected: TraceFile, actual: TraceFile): string | null {
  const a = canonicalTrace(expected);
  const b = canonicalTrace(actual);
  for (const agent of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
    const x = a[agent] ?? [];
    const y = b[agent] ?? [];
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      if (x[i] === y[i]) continue;
      // Show both sides around the first character that differs.
      let at = 0;
      while (x[i] && y[i] && x[i][at] === y[i][at]) at++;
      const from = Math.max(0, at - 120);
      const show = (s: string | undefined) =>
        s === undefined
          ? "(nothing)"
          : `${from > 0 ? "…" : ""}${s.slice(from, from + 320)}${s.length > from + 320 ? "…" : ""}`;
      return `${agent}, step ${i + 1} of ${x.length}:\n  recorded: ${show(x[i])}\n  today:    ${show(y[i])}`;
    }
  }
  return null;
}
