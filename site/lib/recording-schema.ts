// The schemas a recording's lines are checked against (site/lib/recording.ts reads them): one per
// step kind (chapters/_runner/trace.ts) and, for an event, one per type's data
// (chapters/_shared/events.ts). A step's fields beyond its schema are dropped by zod.
import { z } from "zod";
import type { EventKind, HarnessEvents } from "../../chapters/_shared/events.ts";
import type { RecordingHeader } from "../../chapters/_runner/recording.ts";
import type { TraceEvent } from "../../chapters/_runner/trace.ts";

/** The header's `format` (chapters/_runner/recording.ts's RECORDING_FORMAT; that module writes
 *  files, so the browser cannot import it: the type keeps the two the same). */
export const RECORDING_FORMAT: RecordingHeader["format"] = "learn-agent-harness recording";

const text = z.string();
const count = z.number().int().nonnegative();
/** A board id, or the null of "no task". */
const task = z.number().int();
const laneFacts = { worktree: text, ts: text };
/** Protocol fields a mailbox message may carry (s15's approve, reason …): plain values only. */
const plain = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** Every event type's data, as events.ts has it: a type left out, or spelled otherwise, is a
 *  type error here. */
const EVENT_DATA = {
  compacted: z.object({ transcript: text, before: count, after: count }),
  permission: z.object({ tool: text, allowed: z.boolean(), reason: text.nullable() }),
  hook: z.object({
    event: text,
    command: text,
    exitCode: z.number().int().nullable(),
    timedOut: z.boolean(),
  }),
  background_result: z.object({ id: text, status: text }),
  worktree_create: z.object({ ...laneFacts, branch: text, path: text, task: task.nullable() }),
  task_bound: z.object({ ...laneFacts, task }),
  worktree_run: z.object({ ...laneFacts, command: text, ok: z.boolean() }),
  worktree_remove: z.object({ ...laneFacts, branch: text, force: z.boolean(), discarded: count }),
  task_completed: z.union([z.object({ task, owner: text }), z.object({ task, ...laneFacts })]),
  task_claimed: z.object({ task, owner: text, lane: text.nullable() }),
  task_handed_back: z.object({ task, owner: text }),
  member_state: z.object({
    name: text,
    state: text,
    task: task.nullable(),
    role: text.optional(),
  }),
  mailbox_send: z
    .object({
      id: text,
      type: text,
      from: text,
      to: text,
      content: text,
      request_id: text.optional(),
    })
    .catchall(plain),
  mailbox_read: z.object({ id: text, type: text, from: text, to: text }),
  protocol: z.object({ request_id: text, type: text, from: text, to: text, status: text }),
  recovery: z.discriminatedUnion("kind", [
    z.object({
      kind: z.literal("backoff"),
      attempt: count,
      delay: z.number().nonnegative(),
      status: z.number().int().nullable(),
    }),
    z.object({
      kind: z.literal("max_tokens"),
      action: z.enum(["continue", "stop"]),
      times: count,
    }),
    z.object({ kind: z.literal("too_long"), action: z.literal("identity_reinjected") }),
  ]),
  mcp_server: z.object({ server: text, tools: z.array(text) }),
  file_version: z.object({ path: text, version: z.number(), hash: text, by: text }),
} satisfies { [K in EventKind]: z.ZodType<HarnessEvents[K]> };

/** The event types a trace may hold (events.ts's kinds), for whoever needs them as values. */
export const EVENT_TYPES = Object.keys(EVENT_DATA) as EventKind[];

const agent = text.min(1);
/** A value that is there (a tool's input may be any JSON, but not missing). */
const present = z.custom<unknown>((v) => v !== undefined, "missing");
/** A count the API may send as null (a real model's cache counts): left out then. */
const maybeCount = count
  .nullish()
  .transform((v) => v ?? undefined)
  .optional();

type Discriminable = z.ZodObject<{ kind: z.ZodLiteral<string> } & z.ZodRawShape>;
const eventStep = z.discriminatedUnion(
  "type",
  EVENT_TYPES.map((type) =>
    z.object({ kind: z.literal("event"), agent, type: z.literal(type), data: EVENT_DATA[type] }),
  ) as unknown as [Discriminable, ...Discriminable[]],
) as unknown as z.ZodType<Extract<TraceEvent, { kind: "event" }>>;

/** Each step kind's schema, by kind. */
export const KINDS = {
  user: z.object({ kind: z.literal("user"), agent, text }),
  request: z.object({
    kind: z.literal("request"),
    agent,
    messages: count,
    tokens: count.optional(),
    tools: z.array(text),
    system: text.optional(),
  }),
  response: z.object({
    kind: z.literal("response"),
    agent,
    stop_reason: text.nullable(),
    text,
    calls: z.array(text),
    usage: z
      .object({
        input_tokens: count,
        output_tokens: count,
        cache_read_input_tokens: maybeCount,
        cache_creation_input_tokens: maybeCount,
      })
      .optional(),
  }),
  tool_call: z.object({
    kind: z.literal("tool_call"),
    agent,
    id: text,
    name: text,
    input: present,
  }),
  tool_result: z.object({
    kind: z.literal("tool_result"),
    agent,
    id: text,
    name: text,
    output: text,
    is_error: z.boolean(),
  }),
  note: z.object({ kind: z.literal("note"), agent, text }),
  event: eventStep,
} satisfies { [K in TraceEvent["kind"]]: z.ZodType<Extract<TraceEvent, { kind: K }>> };

/** One step of a trace, checked: what it gives is a TraceEvent, with nothing else in it. */
export const traceStepSchema = z.discriminatedUnion(
  "kind",
  Object.values(KINDS) as unknown as [Discriminable, ...Discriminable[]],
) as unknown as z.ZodType<TraceEvent>;

const chapterId = z.string().regex(/^[a-z]\d{1,2}$/, "a chapter's id, like s13");
export const headerSchema = z.object({
  format: z.literal(RECORDING_FORMAT),
  version: z.number().int(),
  chapter: chapterId,
  name: text,
  title: text,
  model: text,
  started: text,
  prompts: z.array(text).optional(),
  summary: text.optional(),
}) satisfies z.ZodType<RecordingHeader>;

export const traceFileSchema = z.object({
  version: z.number().int(),
  chapter: chapterId,
  name: text,
  summary: text,
  prompts: z.array(text),
  agents: z.array(text),
  offered: z
    .array(z.object({ name: text, description: text.optional(), input_schema: present }))
    .optional(),
  steps: z.array(z.unknown()),
});
