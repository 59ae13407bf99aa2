// Recorded runs: what a chapter's scripted scenario did, step by step (site/traces/sNN.json).
// Pure functions only — normalising a raw trace, comparing two traces, and turning one into a
// sequence diagram — so the site, the recording script and the tests share them.
// Recording itself (it runs the chapter) is in record-trace.ts.
import type { TraceEvent } from "../../chapters/_runner/io.ts";
import { mermaidId, mermaidText } from "./mermaid.ts";

export type { TraceEvent };

/** One recorded run, as committed in site/traces/sNN.json. */
export interface TraceFile {
  /** "s13" */
  chapter: string;
  /** "s13-agent-teams" */
  name: string;
  /** The scenario's one-line summary. */
  summary: string;
  prompts: string[];
  /** Who acted, in order of first appearance ("lead" first). */
  agents: string[];
  /** Tools the lead's first request offered that the chapter's TOOLS does not list, as sent:
   *  tools that exist only at run time (appendix A's MCP server tools). Absent when there are none. */
  offered?: { name: string; description?: string; input_schema: unknown }[];
  /** The trace, normalised: see normalizeTrace. A request carries `system` only when that
   *  agent's system prompt changed since its previous request. */
  steps: TraceEvent[];
}

// #region normalise
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

/** Ids a run makes up: `toolu_<agent>_<n>` from the scripted model (one counter shared by all
 *  agents) and `<prefix>_<base36 time>_<pid>_<n>` from mailboxes. Both are renumbered in order
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

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Makes a raw trace repeatable: the workspace path becomes `<workspace>`, times, dates,
 *  durations and commit hashes become placeholders, made-up ids are renumbered, and a
 *  request's system prompt is kept only when it changed for that agent. */
export function normalizeTrace(
  events: readonly TraceEvent[],
  workspaces: readonly string[],
): TraceEvent[] {
  const paths = [...new Set(workspaces)].filter(Boolean).sort((a, b) => b.length - a.length);
  const pathPattern = paths.length ? new RegExp(paths.map(escapeRegExp).join("|"), "g") : null;
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
    let out = pathPattern ? text.replace(pathPattern, "<workspace>") : text;
    out = renameIds(out);
    if (hashPattern) out = out.replace(hashPattern, "<sha>");
    for (const [pattern, replacement] of VOLATILE) out = out.replace(pattern, replacement);
    return out;
  };
  const lastSystem = new Map<string, string | undefined>();
  return events.map((event) => {
    const step = mapStrings(structuredClone(event), clean) as TraceEvent;
    if (step.kind === "request") {
      const { system, ...rest } = step;
      const changed = lastSystem.get(step.agent) !== system || !lastSystem.has(step.agent);
      lastSystem.set(step.agent, system);
      return changed && system !== undefined ? { ...rest, system } : rest;
    }
    return step;
  });
}

export function agentsOf(steps: readonly TraceEvent[]): string[] {
  const agents = [...new Set(steps.map((s) => s.agent))];
  return agents.includes("lead") ? ["lead", ...agents.filter((a) => a !== "lead")] : agents;
}
// #endregion normalise

// #region compare
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
// #endregion compare

// #region sequence
/** Participant ids mermaid accepts (agent names are plain words, but be safe). */
const participant = mermaidId;
/** Text mermaid draws character for character: '#', ';', '<' ... become entity codes (#35; ...). */
const label = mermaidText;

/** An MCP server tool's name, `mcp__<server>__<tool>` (appendix A), split; undefined otherwise. */
export function mcpToolName(name: string): { server: string; tool: string } | undefined {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  return m ? { server: m[1], tool: m[2] } : undefined;
}

/** A mermaid sequence diagram of who told whom what: one participant per agent, one arrow per
 *  mailbox message (its type, and its request_id when a protocol sent it) and per spawn; task
 *  claims, protocol state changes, shutdowns and recoveries (s14) as notes. An MCP server
 *  (appendix A) is a participant too: its start, each call the gate let through and its answer
 *  are arrows, a call the gate refused is a note. */
function buildSequence(trace: TraceFile): { code: string; stepOf: number[] } {
  // The diagram and its links, for the page in every locale: built once per recorded run.
  let built = sequences.get(trace);
  if (!built) sequences.set(trace, (built = sequenceOf(trace)));
  return built;
}
const sequences = new WeakMap<TraceFile, { code: string; stepOf: number[] }>();

function sequenceOf(trace: TraceFile): { code: string; stepOf: number[] } {
  const lines: string[] = [];
  // For each line after the participants, the step it came from (the player links the two).
  const stepOf: number[] = [];
  let at = 0;
  const add = (line: string) => {
    lines.push(line);
    stepOf.push(at);
  };
  const seen = new Set<string>();
  const servers: string[] = [];
  const steps = trace.steps;
  const serverId = (server: string) => participant(`mcp_${server}`);
  for (let i = 0; i < steps.length; i++) {
    at = i;
    const step = steps[i];
    if (step.kind === "tool_call" && step.name === "spawn") {
      const name = String((step.input as { name?: unknown })?.name ?? "");
      if (name) add(`  ${participant(step.agent)}-)${participant(name)}: spawn`);
      continue;
    }
    const mcp = step.kind === "tool_call" ? mcpToolName(step.name) : undefined;
    if (step.kind === "tool_call" && mcp && servers.includes(mcp.server)) {
      const rest = steps.slice(i + 1);
      const gate = rest.find(
        (s) => s.kind === "event" && s.type === "permission" && s.data.tool === step.name,
      );
      const result = rest.find((s) => s.kind === "tool_result" && s.id === step.id);
      const who = participant(step.agent);
      if (gate?.kind === "event" && gate.data.allowed === false) {
        add(`  Note over ${who}: ${label(`${step.name}: refused by the gate`)}`);
        continue;
      }
      add(`  ${who}->>${serverId(mcp.server)}: ${label(`tools/call ${mcp.tool}`)}`);
      if (result?.kind === "tool_result")
        add(`  ${serverId(mcp.server)}-->>${who}: ${label(result.is_error ? "error" : "result")}`);
      continue;
    }
    if (step.kind !== "event") continue;
    if (step.type === "mcp_server" && typeof step.data.server === "string") {
      const server = step.data.server;
      servers.push(server);
      const tools = Array.isArray(step.data.tools) ? step.data.tools.join(", ") : "";
      const who = participant(step.agent);
      add(`  ${who}->>${serverId(server)}: ${label("start, initialize, tools/list")}`);
      add(`  ${serverId(server)}-->>${who}: ${label(tools || "no tools")}`);
      seen.add(step.agent);
      continue;
    }
    const data = step.data as Record<string, unknown>;
    if (step.type === "mailbox_send") {
      const from = String(data.from);
      const to = String(data.to);
      const type = String(data.type ?? "message");
      let requestId = data.request_id as string | undefined;
      if (!requestId && type !== "message") {
        // Protocol chapters record the request_id in a `protocol` event right after the send.
        const next = steps
          .slice(i + 1, i + 4)
          .find(
            (s) =>
              s.kind === "event" &&
              s.type === "protocol" &&
              (s.data as Record<string, unknown>).from === from &&
              (s.data as Record<string, unknown>).to === to,
          );
        if (next && next.kind === "event") requestId = String(next.data.request_id);
      }
      const dashed = /result|response|idle|ack/.test(type);
      add(
        `  ${participant(from)}${dashed ? "-->>" : "->>"}${participant(to)}: ${label(type)}${requestId ? ` ${label(requestId)}` : ""}`,
      );
    } else if (step.type === "protocol" && data.request_id) {
      add(
        `  Note over ${participant(String(data.from))}: ${label(`${data.request_id} ${data.status}`)}`,
      );
    } else if (step.type === "task_claimed") {
      add(`  Note over ${participant(step.agent)}: ${label(`claims task ${data.task}`)}`);
    } else if (step.type === "member_state" && data.state === "shutdown") {
      add(`  Note over ${participant(step.agent)}: shutdown`);
    } else if (step.type === "recovery" || step.type === "compacted") {
      const what =
        step.type === "compacted"
          ? "compacted"
          : [data.kind, data.action ?? (data.attempt ? `try ${data.attempt}` : "")].join(" ");
      add(`  Note over ${participant(step.agent)}: ${label(what)}`);
    } else continue;
    for (const who of [step.agent, data.from, data.to]) if (typeof who === "string") seen.add(who);
  }
  const order = agentsOf(trace.steps).filter((a) => seen.has(a) || a === "lead");
  const declare = (a: string) =>
    participant(a) === a ? `  participant ${a}` : `  participant ${participant(a)} as ${label(a)}`;
  const declareServer = (server: string) =>
    `  participant ${serverId(server)} as ${label(`MCP server ${server}`)}`;
  const code = ["sequenceDiagram", ...order.map(declare), ...servers.map(declareServer), ...lines];
  return { code: code.join("\n"), stepOf };
}

export function sequenceFromTrace(trace: TraceFile): string {
  return buildSequence(trace).code;
}

/** For the drawn diagram: the step each arrow (in the order mermaid draws them) and each note
 *  came from, so the player can light up the arrow of the current step, and an arrow can take
 *  the player to its step. */
export function sequenceLinks(trace: TraceFile): { messages: number[]; notes: number[] } {
  const { code, stepOf } = buildSequence(trace);
  const body = code.split("\n").slice(-stepOf.length || Infinity);
  const links = { messages: [] as number[], notes: [] as number[] };
  body.forEach((line, k) => {
    if (/^\s*Note over /.test(line)) links.notes.push(stepOf[k]);
    else if (/^\s*\S+?(?:--?>>|-\))\S/.test(line)) links.messages.push(stepOf[k]);
  });
  return links;
}
// #endregion sequence

// #region view
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

const clip = (text: string, lines = 30, chars = 3000): string => {
  let out = text.length > chars ? `${text.slice(0, chars)}…` : text;
  const rows = out.split("\n");
  if (rows.length > lines)
    out = [...rows.slice(0, lines), `… (${rows.length - lines} more lines)`].join("\n");
  return out;
};

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
// #endregion view
