// The trace contract: what a run records, step by step, the file a recorded run is kept in
// (site/traces/<id>.json) and the recording a learner makes (`--record FILE`). One zod schema is
// the source of it all: the types are inferred from it, a file from anywhere is checked against
// it, and the format's name and version are defined here and nowhere else. The runner writes
// traces, the site and the tests read them; all of them import this module, and it imports
// nothing of theirs (`npm run lint:deps` keeps it so). The event kinds and their data are the
// table in chapters/_shared/events.ts.
import { z } from "zod";
import { EVENT_DATA, EVENT_TYPES, type HarnessEvent } from "../_shared/events.ts";
import { fromV2 } from "./v2.ts";

export { EVENT_TYPES };

/** The first line's `format`: how a reader tells a recording from any other JSON Lines file. */
export const RECORDING_FORMAT = "learn-agent-harness recording";

/** The version of the trace format. 1: event kinds as each chapter spelled them (dotted in s12)
 *  and no `version` field; 2: the kinds and data of events.ts; 3: the state the player shows (a
 *  plan, a task board, background jobs) is reported as events (todos, task, job_started), not
 *  read back out of tool results' text; 4: a step says where the code that took it is (`at`),
 *  found by the runner as it records (chapters/_runner/code-spots.ts), not guessed by the site
 *  from the lessons' text. A version-2 file is upgraded as it is read (v2.ts); a version-3 file
 *  is read as it is (its steps have no `at`). */
export const TRACE_VERSION = 4;

/** The first version whose steps say where their code is (`at`). A step of a later recording
 *  without one has none on purpose (a learner's own copy, a line printed by the runner). */
export const STEPS_SAY_WHERE = 4;

const text = z.string();
const count = z.number().int().nonnegative();
const agent = text.min(1);
/** A value that is there (a tool's input may be any JSON, but not missing). */
const present = z.custom<unknown>((v) => v !== undefined, "missing");
/** A count the API may send as null (a real model's cache counts): left out then. */
const maybeCount = count
  .nullish()
  .transform((v) => v ?? undefined)
  .optional();

/** What one model call cost, as the Messages API counts it. */
export const tokenUsageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  /** Prompt tokens read from the cache (billed at a tenth of the input price). */
  cache_read_input_tokens: maybeCount,
  /** Prompt tokens written to the cache (billed at 1.25 times the input price). */
  cache_creation_input_tokens: maybeCount,
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** Where the code that took a step is: a lesson file of the repository and a line in it. */
export const stepAtSchema = z.object({
  /** "chapters/s02-tool-use/agent.ts" */
  file: text.regex(/^chapters\/(?:s\d\d|a\d+)-[\w-]+\/[\w-]+\.ts$/, "a lesson file"),
  line: count.min(1),
});
export type StepAt = z.infer<typeof stepAtSchema>;
const at = stepAtSchema.optional();

type Discriminable = z.ZodObject<{ kind: z.ZodLiteral<string> } & z.ZodRawShape>;

/** An `event` step: one of the harness's events (events.ts), by `type`. */
export type EventStep = { kind: "event"; agent: string; at?: StepAt } & HarnessEvent;
const eventStep = z.discriminatedUnion(
  "type",
  EVENT_TYPES.map((type) =>
    z.object({
      kind: z.literal("event"),
      agent,
      type: z.literal(type),
      data: EVENT_DATA[type],
      at,
    }),
  ) as unknown as [Discriminable, ...Discriminable[]],
) as unknown as z.ZodType<EventStep>;

/** Each step kind's schema, by kind. */
export const KINDS = {
  user: z.object({ kind: z.literal("user"), agent, text, at }),
  request: z.object({
    kind: z.literal("request"),
    agent,
    messages: count,
    /** The messages' estimated size (chapters/_shared/tokens.ts: four characters a token). */
    tokens: count.optional(),
    tools: z.array(text),
    system: text.optional(),
    at,
  }),
  response: z.object({
    kind: z.literal("response"),
    agent,
    stop_reason: text.nullable(),
    text,
    calls: z.array(text),
    /** The API's token counts for this call, when a real model (or a fake API) answered; the
     *  scripted model's are made up, so its runs leave them out. */
    usage: tokenUsageSchema.optional(),
    at,
  }),
  tool_call: z.object({
    kind: z.literal("tool_call"),
    agent,
    id: text,
    name: text,
    input: present,
    at,
  }),
  tool_result: z.object({
    kind: z.literal("tool_result"),
    agent,
    id: text,
    name: text,
    output: text,
    is_error: z.boolean(),
    at,
  }),
  note: z.object({ kind: z.literal("note"), agent, text, at }),
  event: eventStep,
};

/** One step of a run. */
export type TraceEvent = {
  [K in keyof typeof KINDS]: z.infer<(typeof KINDS)[K]>;
}[keyof typeof KINDS];

/** One step of a trace, checked: what it gives is a TraceEvent, with nothing else in it (a
 *  step's fields beyond its schema are dropped). */
export const traceStepSchema = z.discriminatedUnion(
  "kind",
  Object.values(KINDS) as unknown as [Discriminable, ...Discriminable[]],
) as unknown as z.ZodType<TraceEvent>;

const chapterId = z.string().regex(/^[a-z]\d{1,2}$/, "a chapter's id, like s13");

/** A recording's first line. */
export const headerSchema = z.object({
  format: z.literal(RECORDING_FORMAT),
  /** The trace vocabulary its steps use (TRACE_VERSION when it was recorded). */
  version: z.number().int(),
  /** "s13" */
  chapter: chapterId,
  /** "s13-agent-teams" */
  name: text,
  title: text,
  /** The model that answered: its id, or "scripted" for the offline model. */
  model: text,
  /** When the run began (ISO 8601). */
  started: text,
  /** The scenario's prompts, for a scripted run (a real run's prompts are its user steps). */
  prompts: z.array(text).optional(),
  summary: text.optional(),
});
export type RecordingHeader = z.infer<typeof headerSchema>;

/** One recorded run, as committed in site/traces/<id>.json; its steps are checked one by one
 *  (traceStepSchema), so a reader can say which step is wrong. */
export const traceFileSchema = z.object({
  /** TRACE_VERSION when it was recorded. */
  version: z.number().int(),
  chapter: chapterId,
  name: text,
  /** The scenario's one-line summary. */
  summary: text,
  prompts: z.array(text),
  /** Who acted, in order of first appearance ("lead" first). */
  agents: z.array(text),
  /** Tools the lead's first request offered that the chapter's TOOLS does not list, as sent:
   *  tools that exist only at run time (appendix A's MCP server tools). Absent when there are none. */
  offered: z
    .array(z.object({ name: text, description: text.optional(), input_schema: present }))
    .optional(),
  steps: z.array(z.unknown()),
});

/** One recorded run. Its steps are normalised (site/lib/trace-normalize.ts): a request carries
 *  `system` only when that agent's system prompt changed since its previous request. */
export type TraceFile = Omit<z.infer<typeof traceFileSchema>, "steps"> & { steps: TraceEvent[] };

/** How a trace file is written: stable key order, two-space indent, trailing newline. */
export const serializeTrace = (trace: TraceFile) => `${JSON.stringify(trace, null, 2)}\n`;

/** The oldest version this contract still reads: a version-2 trace is upgraded as it is read. */
export const OLDEST_READABLE = 2;

/** A function that reads one step of a trace of `version` (checked against traceStepSchema) as
 *  this version's steps: itself, or, for a version-2 step, itself and the state events version 3
 *  records (v2.ts). One per trace. Throws for a version this contract does not read. */
export function stepUpgrader(version: number): (step: TraceEvent) => TraceEvent[] {
  if (version === TRACE_VERSION || version === 3) return (step) => [step];
  if (version === 2) return fromV2();
  throw new RangeError(
    `a version ${version} trace: this harness reads versions ${OLDEST_READABLE} to ${TRACE_VERSION}`,
  );
}

/** A trace file's text, read: a version-2 file is upgraded to this version; any other version
 *  is refused (its steps would be read with the wrong vocabulary), so the reader records it
 *  again. The file is one of ours (site/traces/): its steps are taken as they are. */
export function parseTraceFile(text: string, file = "trace"): TraceFile {
  const trace = JSON.parse(text) as Partial<TraceFile>;
  const version = trace.version ?? 1;
  let upgrade: (step: TraceEvent) => TraceEvent[];
  try {
    upgrade = stepUpgrader(version);
  } catch {
    throw new Error(
      `${file} is a version ${version} trace; this harness reads versions ${OLDEST_READABLE} to ${TRACE_VERSION}: record it again (npm run traces)`,
    );
  }
  return {
    ...trace,
    version: TRACE_VERSION,
    steps: (trace.steps ?? []).flatMap(upgrade),
  } as TraceFile;
}
