// Reading a learner's own run: a recording (`npm run chapter sNN -- --record FILE`, written by
// chapters/_runner/recording.ts: a header line, then one trace step per line), or a trace file
// like the committed site/traces/<id>.json. The file comes from anywhere, so nothing in it is
// trusted: every step is checked against a schema of its kind (and, for an event, of its type's
// data, chapters/_shared/events.ts) before the player's code (run-state.ts, player.ts …) sees it,
// and what a step carries beyond its schema is dropped. A wrong file is refused in one sentence
// (RecordingProblem); a recording whose last line was cut short (a run that crashed, or was
// killed) shows the steps before it. Pure, and incremental (RecordingReader takes the text in
// chunks), so the browser can read a 50 MB file without holding the tab: Node and browser alike.
import { z } from "zod";
import type { EventKind } from "../../chapters/_shared/events.ts";
import {
  EVENT_TYPES,
  headerSchema,
  KINDS,
  OLDEST_READABLE,
  RECORDING_FORMAT,
  stepUpgrader,
  TRACE_VERSION,
  traceFileSchema,
  traceStepSchema,
  type RecordingHeader,
  type TraceEvent,
  type TraceFile,
} from "../../chapters/_trace/contract.ts";
import { agentsOf, systemWhenChanged } from "./trace-normalize.ts";

export { EVENT_TYPES, RECORDING_FORMAT, traceStepSchema } from "../../chapters/_trace/contract.ts";

// ── what a reader says ───────────────────────────────────────────────────────────────────────

/** Why a file cannot be shown. */
export type RecordingProblem =
  | { code: "not-recording" }
  | { code: "newer"; version: number; supported: number }
  | { code: "older"; version: number; supported: number }
  | { code: "invalid-step"; step: number; reason: string };

/** A file refused, with the reason as data (the page says it in its language) and in English. */
export class RecordingError extends Error {
  constructor(readonly problem: RecordingProblem) {
    super(problemText(problem));
    this.name = "RecordingError";
  }
}

/** The sentence for a problem, in English (the site's pages use their own language's). */
export function problemText(p: RecordingProblem | Truncation): string {
  switch (p.code) {
    case "not-recording":
      return "This is not a recording: record a run with `npm run chapter sNN -- --record FILE`.";
    case "newer":
      return `This run was recorded by a newer version of the harness (version ${p.version}); this site reads version ${p.supported}.`;
    case "older":
      return `This run was recorded by an older version of the harness (version ${p.version}); this site reads version ${p.supported}: record it again.`;
    case "invalid-step":
      return `Step ${p.step} is not a step this site can show: ${p.reason}.`;
    case "truncated":
      return `The recording is truncated at step ${p.step}: showing ${p.shown} steps.`;
  }
}

/** The last line was cut short (or is not a step): the steps before it are shown. */
export interface Truncation {
  code: "truncated";
  step: number;
  shown: number;
}

/** A recording read: a trace the player shows, and what the recording said about itself. */
export interface Recording {
  /** "recording" (JSON Lines) or "trace" (a trace file, like site/traces/<id>.json). */
  source: "recording" | "trace";
  trace: TraceFile;
  /** The recording's header (a trace file has none). */
  header?: RecordingHeader;
  truncated?: Truncation;
}

/** Why a step failed its schema, in a few words: "data.tool: expected string, received number". */
function stepReason(value: unknown, error: z.ZodError): string {
  const step = value as { kind?: unknown; type?: unknown } | null;
  if (!step || typeof step !== "object" || Array.isArray(step)) return "it is not an object";
  if (!(String(step.kind) in KINDS)) return `unknown kind ${JSON.stringify(step.kind) ?? "(none)"}`;
  if (step.kind === "event" && !EVENT_TYPES.includes(step.type as EventKind))
    return `unknown event type ${JSON.stringify(step.type) ?? "(none)"}`;
  const issue = error.issues[0];
  const where = issue.path.length ? `${issue.path.map(String).join(".")}: ` : "";
  return `${where}${issue.message.replace(/^Invalid input: /, "")}`.slice(0, 200);
}

/** How a file of `version` is read as this version's steps (a version-2 file is upgraded, the
 *  contract's v2.ts); a version too new or too old is refused. */
const upgraderFor = (version: number) => {
  if (version > TRACE_VERSION)
    throw new RecordingError({ code: "newer", version, supported: TRACE_VERSION });
  if (version < OLDEST_READABLE)
    throw new RecordingError({ code: "older", version, supported: TRACE_VERSION });
  return stepUpgrader(version);
};

/** `checked` (what the schema kept of `raw`) with its keys in `raw`'s order: a step reads, and
 *  compares (trace-compare.ts), as it was written. */
function inOrderOf<T>(checked: T, raw: unknown): T {
  if (Array.isArray(checked) && Array.isArray(raw))
    return checked.map((v, i) => inOrderOf(v, raw[i])) as T;
  if (!checked || typeof checked !== "object" || !raw || typeof raw !== "object") return checked;
  const out: Record<string, unknown> = {};
  const kept = checked as Record<string, unknown>;
  // JSON.parse makes "__proto__" a key like any other; assigned, it would set the copy's
  // prototype, and the panels would read through it what the step on screen does not show.
  const keys = [...Object.keys(raw), ...Object.keys(kept)].filter((k) => k !== "__proto__");
  for (const key of keys)
    if (Object.hasOwn(kept, key) && !Object.hasOwn(out, key))
      out[key] = inOrderOf(kept[key], (raw as Record<string, unknown>)[key]);
  return out as T;
}

/** How deep a step's JSON may nest: far more than any tool input, and few enough for the
 *  player's code, which walks a step recursively, never to run out of stack. */
export const MAX_DEPTH = 100;

/** Whether `value` nests more than MAX_DEPTH arrays and objects deep (counted without recursion). */
function tooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== "object") continue;
    if (depth >= MAX_DEPTH) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

const parseJson = (line: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(line) };
  } catch {
    return { ok: false };
  }
};

// ── the reader ───────────────────────────────────────────────────────────────────────────────

/** Reads a recording in chunks of text as they come (`push`), then `finish()`. A problem is
 *  thrown (RecordingError) as soon as it is seen: a wrong file stops being read at its first
 *  line. `steps` grows as lines are read, for a page that shows the first steps early. */
export class RecordingReader {
  readonly steps: TraceEvent[] = [];
  header: RecordingHeader | undefined;
  /** The current line so far, in the pieces it came in. */
  #rest: string[] = [];
  /** Not JSON Lines: the whole text, for a trace file (one JSON document) or a refusal. */
  #whole: string[] | undefined;
  #started = false;
  /** The last line read, kept until the next one shows it was not the last. */
  #pending: string | undefined;
  #system = systemWhenChanged();
  #upgrade: (step: TraceEvent) => TraceEvent[] = (step) => [step];
  /** How many step lines were read (a version-2 line may stand for more than one step). */
  #read = 0;

  /** Reads the complete lines of `chunk` (what follows the last line break waits for more). */
  push(chunk: string): void {
    if (this.#whole) return void this.#whole.push(chunk);
    if (!this.#started) {
      const start = (this.#rest.join("") + chunk).trimStart();
      if (!start) return void this.#rest.push(chunk);
      this.#started = true;
      // A recording's first line, and a trace file, are JSON objects; anything else is refused
      // at its first character (a binary file is not read to its end).
      if (!start.startsWith("{")) throw new RecordingError({ code: "not-recording" });
    }
    // Only the new chunk is searched for the end of a line: a line longer than a chunk is held
    // back in pieces, joined once it ends (searching the held text again would take time that
    // grows with the square of the line's length).
    let from = 0;
    for (let end = chunk.indexOf("\n"); end >= 0; end = chunk.indexOf("\n", from)) {
      this.#line(this.#rest.join("") + chunk.slice(from, end));
      this.#rest = [];
      from = end + 1;
      const whole = this.#whole as string[] | undefined;
      if (whole) return void whole.push(chunk.slice(from));
    }
    if (from < chunk.length) this.#rest.push(chunk.slice(from));
  }

  /** The end of the text: the last line read, and the recording. */
  finish(): Recording {
    if (this.#whole) return readTraceFile(this.#whole.join(""));
    const last = this.#rest.join("");
    this.#rest = [];
    if (last.trim()) this.#line(last);
    if (!this.header) {
      // A one-line file that is not a recording may still be a trace file written on one line.
      if (this.#pending !== undefined) return readTraceFile(this.#pending);
      throw new RecordingError({ code: "not-recording" });
    }
    let truncated: Truncation | undefined;
    if (this.#pending !== undefined) {
      const step = ++this.#read;
      const last = this.#step(this.#pending);
      if (last.ok) this.steps.push(...last.steps);
      else truncated = { code: "truncated", step, shown: step - 1 };
      this.#pending = undefined;
    }
    const h = this.header;
    return {
      source: "recording",
      header: h,
      trace: {
        version: TRACE_VERSION,
        chapter: h.chapter,
        name: h.name,
        summary: h.summary ?? "",
        prompts: h.prompts ?? [],
        agents: agentsOf(this.steps),
        steps: this.steps,
      },
      ...(truncated && { truncated }),
    };
  }

  #line(raw: string): void {
    const line = raw.trim();
    if (!line) return;
    if (!this.header) {
      // A second line without a header before it: JSON Lines, but not a recording.
      if (this.#pending !== undefined) throw new RecordingError({ code: "not-recording" });
      return this.#first(line);
    }
    // A line is read when the next one arrives: the last one may be cut short.
    if (this.#pending !== undefined) {
      const step = ++this.#read;
      const read = this.#step(this.#pending);
      if (!read.ok) throw new RecordingError({ code: "invalid-step", step, reason: read.reason });
      this.steps.push(...read.steps);
    }
    this.#pending = line;
  }

  /** The first line: a recording's header, or the start of another JSON document. */
  #first(line: string): void {
    const json = parseJson(line);
    const value = json.ok ? (json.value as { format?: unknown; version?: unknown }) : undefined;
    if (value && typeof value === "object" && value.format === RECORDING_FORMAT) {
      // The version first: a newer header may have fields this site does not know.
      if (typeof value.version === "number") this.#upgrade = upgraderFor(value.version);
      const header = headerSchema.safeParse(value);
      if (!header.success) throw new RecordingError({ code: "not-recording" });
      this.header = header.data;
      return;
    }
    if (json.ok) {
      // One JSON value on the first line: a one-line trace file, or not a recording at all.
      this.#pending = line;
      return;
    }
    // A JSON document over many lines: a trace file (site/traces/<id>.json), or nothing of ours.
    this.#whole = [line, "\n"];
  }

  #step(line: string): { ok: true; steps: TraceEvent[] } | { ok: false; reason: string } {
    const json = parseJson(line);
    if (!json.ok) return { ok: false, reason: "it is not JSON" };
    if (tooDeep(json.value))
      return { ok: false, reason: `it nests more than ${MAX_DEPTH} levels deep` };
    const read = traceStepSchema.safeParse(json.value);
    if (!read.success) return { ok: false, reason: stepReason(json.value, read.error) };
    return {
      ok: true,
      steps: this.#upgrade(this.#system(inOrderOf(read.data, json.value))),
    };
  }
}

/** A trace file's text (site/traces/<id>.json), checked step by step like a recording's lines. */
function readTraceFile(text: string): Recording {
  const json = parseJson(text);
  const value = json.ok ? (json.value as { version?: unknown; steps?: unknown }) : undefined;
  if (!value || typeof value !== "object" || !Array.isArray(value.steps))
    throw new RecordingError({ code: "not-recording" });
  const upgrade = upgraderFor(typeof value.version === "number" ? value.version : 1);
  const file = traceFileSchema.safeParse(value);
  if (!file.success) throw new RecordingError({ code: "not-recording" });
  const system = systemWhenChanged();
  const steps = file.data.steps.flatMap((raw, i) => {
    if (tooDeep(raw))
      throw new RecordingError({
        code: "invalid-step",
        step: i + 1,
        reason: `it nests more than ${MAX_DEPTH} levels deep`,
      });
    const read = traceStepSchema.safeParse(raw);
    if (!read.success)
      throw new RecordingError({
        code: "invalid-step",
        step: i + 1,
        reason: stepReason(raw, read.error),
      });
    return upgrade(system(inOrderOf(read.data, raw)));
  });
  const { offered, ...rest } = file.data;
  return {
    source: "trace",
    trace: {
      ...rest,
      version: TRACE_VERSION,
      ...(offered?.length && { offered }),
      agents: agentsOf(steps),
      steps,
    } as TraceFile,
  };
}

/** A whole file's text, read: a recording (JSON Lines) or a trace file. */
export function readRecording(text: string): Recording {
  const reader = new RecordingReader();
  reader.push(text);
  return reader.finish();
}
