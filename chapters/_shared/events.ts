// The harness's events: structured facts a chapter reports through `env.io.event(kind, data)`, for
// the trace and the site's player (its state panels, sequence diagrams and plain-words headlines).
// One table, kind → the zod schema of its data: the types come from it (z.infer), a recording's
// steps are checked against it (chapters/_trace/contract.ts), and every reader of a trace can
// switch over the kinds exhaustively: a new kind the site has not been taught is a type error there.
//
// To add a kind: one line in EVENT_DATA below. That is all the contract needs; the type checker
// then names every switch (site/lib/run-state.ts, player.ts, trace-sequence.ts) that must decide
// what the kind means.
//
// Kinds are snake_case; a task is `task` (its board id) wherever an event names one. `_shared/`
// imports no chapter, so states and statuses are plain strings here; the comment names the
// chapter's own type. A chapter that has state the player shows (a plan, a board, a job list)
// reports it here, so the site folds events and never reads it back out of a tool's text.
import { z } from "zod";

const text = z.string();
const count = z.number().int().nonnegative();
/** A board id, or the null of "no task". */
const task = z.number().int();
/** What a lane event (s12) carries besides its own fields: the lane (`.worktrees/<worktree>`), and
 *  when, as the lane log has it (ISO time). */
const laneFacts = { worktree: text, ts: text };
/** Protocol fields a mailbox message may carry (s15's approve, reason …): plain values only. */
const plain = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const EVENT_DATA = {
  /** s05 (and s14): the history was replaced by one summary; the full transcript is on disk. */
  compacted: z.object({ transcript: text, before: count, after: count }),
  /** s07, a1, a2: the permission gate decided on a tool call; `reason` says why it refused. */
  permission: z.object({ tool: text, allowed: z.boolean(), reason: text.nullable() }),
  /** s08: a hook's command ran for a lifecycle event (s08's HookEvent). */
  hook: z.object({
    event: text,
    command: text,
    exitCode: z.number().int().nullable(),
    timedOut: z.boolean(),
  }),
  /** s03 (and a2): the model's plan as it now is, after a `todo` call it accepted (s03's TodoStatus). */
  todos: z.object({ items: z.array(z.object({ status: text, text })) }),
  /** s10 (and s12, s13): a task as the board now has it, each time a tool's answer shows it
   *  (s10's TaskStatus; `lane` is s12's worktree). */
  task: z.object({
    task,
    status: text,
    subject: text,
    owner: text.nullable(),
    blockedBy: z.array(task),
    lane: text.nullable(),
  }),
  /** s11: a command was started in the background (its result comes as background_result). */
  job_started: z.object({ id: text, command: text }),
  /** s11: a background job finished (s11's JobStatus); its result goes to the model next. */
  background_result: z.object({ id: text, status: text }),
  /** s12 (and s13's lanes): a lane was created, on its own branch, for a task or for none. */
  worktree_create: z.object({ ...laneFacts, branch: text, path: text, task: task.nullable() }),
  /** s12: the task a lane was created for now runs in it (and is in progress). */
  task_bound: z.object({ ...laneFacts, task }),
  /** s12: a command ran inside a lane. */
  worktree_run: z.object({ ...laneFacts, command: text, ok: z.boolean() }),
  /** s12: a lane was closed; its branch stays. `discarded` counts uncommitted changes forced away. */
  worktree_remove: z.object({ ...laneFacts, branch: text, force: z.boolean(), discarded: count }),
  /** s12: removing its lane completed a task; s13: a teammate finished the task it held. */
  task_completed: z.union([
    z.object({ task, owner: text }), // s13: who finished it
    z.object({ task, ...laneFacts }), // s12: the lane whose removal completed it
  ]),
  /** s13: a teammate claimed a board task (and the lane it works in, if the task has one). */
  task_claimed: z.object({ task, owner: text, lane: text.nullable() }),
  /** s13: a teammate that leaves gave its task back to the board, pending and unowned. */
  task_handed_back: z.object({ task, owner: text }),
  /** s13: a teammate's state changed (s13's TeammateState); `role` comes with its spawn. */
  member_state: z.object({
    name: text,
    state: text,
    task: task.nullable(),
    role: text.optional(),
  }),
  /** s13: a message was put in a mailbox, with its protocol fields (s15's request_id, approve…). */
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
  /** s13: a message was taken out of a mailbox into its reader's next turn. */
  mailbox_read: z.object({ id: text, type: text, from: text, to: text }),
  /** s15: a request of a protocol was sent or answered (s15's RequestStatus). */
  protocol: z.object({ request_id: text, type: text, from: text, to: text, status: text }),
  /** s14: the harness recovered from a failed or cut-off model call. */
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
  /** The runner: a model call failed (an HTTP error, or its twin reported mid-stream, or a cut
   *  connection); `status` is the HTTP status, or null without one. s14 may retry it (a
   *  `recovery` backoff follows); otherwise the turn ends with it. */
  model_error: z.object({ status: z.number().int().nullable(), message: text }),
  /** The runner: the person pressed Ctrl-C and the turn stopped; it kept `results` finished tool
   *  results and, when `partial`, the answer streamed so far. */
  interrupted: z.object({ results: count, partial: z.boolean() }),
  /** a1: an MCP server started and listed its tools (their names as the server gave them), and
   *  the name the model is offered each by (a1's mcpToolName: `mcp__notes__save_note` → `save_note`;
   *  a version-2 run has none until it is read: chapters/_trace/v2.ts adds it). */
  mcp_server: z.object({
    server: text,
    tools: z.array(text),
    offered: z.record(text, text).optional(),
  }),
  /** a3: the model has now seen a new text of a file (it read it, or its own change made it):
   *  its version (1, 2, …), the text's hash (first 8 hex digits) and the tool that showed it. */
  file_version: z.object({ path: text, version: count, hash: text, by: text }),
  /** a4: the workspace was snapshotted before prompt `id`; `tree`: the snapshot's git tree (the
   *  same files give the same tree). */
  checkpoint: z.object({ id: count, prompt: text, tree: text }),
  /** a4: the workspace (code), the history (conversation) or both went back to checkpoint `to`;
   *  `undo`: a rewind to it was undone. `files` restored; `messages` the history holds now. */
  rewind: z.object({
    to: count,
    restore: z.enum(["code", "conversation", "both"]),
    undo: z.boolean(),
    files: count,
    messages: count,
  }),
  /** a5: a session log began (`start`), was continued (`resume`) or branched from `parent` after
   *  its first `turn` prompts (`fork`). The log's own id is `id`. */
  session: z.object({
    id: text,
    action: z.enum(["start", "resume", "fork"]),
    parent: text.nullable(),
    turn: count.nullable(),
  }),
  /** a7: a goal was set: its condition, how it is checked (a command, or a judge model), its budget. */
  goal: z.object({
    condition: text,
    check: z.enum(["command", "judge"]),
    rounds: count,
    tokens: count,
    dollars: z.number().nonnegative().nullable(),
  }),
  /** a7: the model stopped and the goal was checked after `round`; `tokens` spent since it was set. */
  goal_check: z.object({
    round: count,
    outcome: z.enum(["met", "not_met", "failed"]),
    detail: text,
    tokens: count,
  }),
  /** a7: the goal loop ended, and why (a7's StopReason). */
  goal_end: z.object({
    reason: z.enum(["met", "rounds", "cost", "interrupted", "check_failed", "error"]),
    rounds: count,
    tokens: count,
  }),
};

/** Each kind's data, as a chapter passes it to `io.event` and a reader finds it in a trace. */
export type HarnessEvents = { [K in keyof typeof EVENT_DATA]: z.infer<(typeof EVENT_DATA)[K]> };

export type EventKind = keyof HarnessEvents;

/** The event kinds, as values (a recording's reader names an unknown one). */
export const EVENT_TYPES = Object.keys(EVENT_DATA) as EventKind[];

/** One event, kind and data together: switching on `type` narrows `data`. */
export type HarnessEvent = { [K in EventKind]: { type: K; data: HarnessEvents[K] } }[EventKind];

/** The end of a switch over event kinds: a kind left out makes `event` not `never`, a type error
 *  at the call. At run time (a trace recorded by a newer harness) the step is passed over. */
export function otherEvent(event: never): void {
  void event;
}
