// Normalising a recorded run: what differs between two runs of the same scenario and means
// nothing (the workspace path, times, commit hashes, made-up ids) becomes a placeholder, so the
// committed trace (site/traces/<id>.json) is the same each time it is recorded. Pure.
import { scrubber, type Secret } from "../../chapters/_trace/scrub.ts";
import type { TraceEvent } from "../../chapters/_trace/contract.ts";

/** What differs between two runs of the same scenario and means nothing: it becomes a
 *  placeholder in the committed trace. (Ids are renamed before the hex-hash rule runs.) */
const VOLATILE: [RegExp, string][] = [
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?/g, "<time>"],
  [/\b\d{4}-\d\d-\d\d\b/g, "<date>"],
  // the machine's Node version (s08's SessionStart hook prints `node -v`)
  [/\bNode v\d+\.\d+\.\d+\b/g, "Node <version>"],
  [/(?<!\d)1\d{12}(?!\d)/g, "<epoch>"],
  // test runners' timings: "(2.04ms)", "duration_ms: 6.09", "# duration_ms 327.8"
  [/\bduration_ms:? [\d.]+/g, "duration_ms <n>"],
  [/\b\d+(?:\.\d+)?ms\b/g, "<n>ms"],
  // git commit hashes: `git log --oneline` lines, `[branch abc1234]`, and any hex with a digit and a letter
  [/(\[[^\]\s]+ (?:\(root-commit\) )?)[0-9a-f]{7,40}\]/g, "$1<sha>]"],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g, "<sha>"],
];

/** Ids a run makes up: `toolu_<agent>_<n>` from the scripted model (one counter shared by all
 *  agents), `<prefix>_<base36 time>_<pid>_<n>` from mailboxes and a5's session ids. Both are renumbered in order
 *  of first appearance — tool ids per agent, the others per prefix. */
function idRenamer(): (text: string) => string {
  const names = new Map<string, string>();
  const counters = new Map<string, number>();
  const rename = (id: string, group: string, make: (n: number) => string) => {
    let name = names.get(id);
    if (!name) {
      const n = (counters.get(group) ?? 0) + 1;
      counters.set(group, n);
      name = make(n);
      names.set(id, name);
    }
    return name;
  };
  return (text) =>
    text
      .replace(/\btoolu_([A-Za-z0-9-]+?)_(\d+)\b/g, (id, agent: string) =>
        rename(id, `toolu:${agent}`, (n) => `toolu_${agent}_${n}`),
      )
      .replace(/\b([a-z]+)_[0-9a-z]{6,}_\d+_\d+\b/g, (id, prefix: string) =>
        rename(id, prefix, (n) => `${prefix}_${n}`),
      )
      // a5's session ids: `<yyyymmdd>-<hhmmss>-<6 hex>` (newSessionId)
      .replace(/\b\d{8}-\d{6}-[0-9a-f]{6}\b/g, (id) =>
        rename(id, "session", (n) => `session-${n}`),
      );
}

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  }
  return value;
}

/** Makes a raw trace repeatable: the workspace path (and `more`: the repository's, the home
 *  folder) becomes a placeholder, in values and keys; times, dates,
 *  durations and commit hashes become placeholders, made-up ids are renumbered, and a
 *  request's system prompt is kept only when it changed for that agent. */
export function normalizeTrace(
  events: readonly TraceEvent[],
  workspaces: readonly string[],
  more: readonly Secret[] = [],
): TraceEvent[] {
  // The recording's scrubber (chapters/_trace/scrub.ts), values and keys: first, so no other
  // rule sees a path.
  const scrub = scrubber([
    ...workspaces.map((text) => ({ text, placeholder: "<workspace>" })),
    ...more,
  ]);
  const renameIds = idRenamer();
  // A short hash can be all digits: learn the hashes from git's own output lines first, then
  // replace them wherever they are quoted (a teammate's summary, a mailbox message).
  const hashes = new Set<string>();
  mapStrings(events, (text) => {
    for (const m of text.matchAll(/^([0-9a-f]{7,40}) \S/gm)) hashes.add(m[1]);
    return text;
  });
  const hashPattern = hashes.size ? new RegExp(`\\b(?:${[...hashes].join("|")})\\b`, "g") : null;
  const clean = (text: string) => {
    let out = renameIds(text);
    if (hashPattern) out = out.replace(hashPattern, "<sha>");
    for (const [pattern, replacement] of VOLATILE) out = out.replace(pattern, replacement);
    return out;
  };
  const system = systemWhenChanged();
  return events.map((event) => system(mapStrings(scrub(event), clean) as TraceEvent));
}

/** A step as a trace keeps it: a request carries its `system` prompt only when it changed for
 *  that agent since its previous request. One per trace (it remembers each agent's last one). */
export function systemWhenChanged(): (step: TraceEvent) => TraceEvent {
  const lastSystem = new Map<string, string | undefined>();
  return (step) => {
    if (step.kind !== "request") return step;
    const { system, ...rest } = step;
    const changed = lastSystem.get(step.agent) !== system || !lastSystem.has(step.agent);
    lastSystem.set(step.agent, system);
    return changed && system !== undefined ? { ...rest, system } : rest;
  };
}

export function agentsOf(steps: readonly TraceEvent[]): string[] {
  const agents = [...new Set(steps.map((s) => s.agent))];
  return agents.includes("lead") ? ["lead", ...agents.filter((a) => a !== "lead")] : agents;
}
