// The harness's events: structured facts a chapter reports through `env.io.event(kind, data)`, for
// the trace and the site's player (its state panels, sequence diagrams and plain-words headlines).
// One table, kind → data, so an emit site is type-checked and every reader of a trace can switch
// over the kinds exhaustively: a new kind the site has not been taught is a type error there.
// Kinds are snake_case; a task is `task` (its board id) wherever an event names one.
// `_shared/` imports no chapter, so states and statuses are plain strings here; the comment names
// the chapter's own type.

/** What a lane event (s12) carries besides its own fields: the lane, and when, as the lane log has it. */
interface LaneFacts {
  /** The lane's name (`.worktrees/<worktree>`). */
  worktree: string;
  /** When the lane log recorded it (ISO time). */
  ts: string;
}

export interface HarnessEvents {
  /** s05 (and s14): the history was replaced by one summary; the full transcript is on disk. */
  compacted: { transcript: string; before: number; after: number };
  /** s07, a1, a2: the permission gate decided on a tool call; `reason` says why it refused. */
  permission: { tool: string; allowed: boolean; reason: string | null };
  /** s08: a hook's command ran for a lifecycle event (s08's HookEvent). */
  hook: { event: string; command: string; exitCode: number | null; timedOut: boolean };
  /** s11: a background job finished (s11's JobStatus); its result goes to the model next. */
  background_result: { id: string; status: string };
  /** s12 (and s13's lanes): a lane was created, on its own branch, for a task or for none. */
  worktree_create: LaneFacts & { branch: string; path: string; task: number | null };
  /** s12: the task a lane was created for now runs in it (and is in progress). */
  task_bound: LaneFacts & { task: number };
  /** s12: a command ran inside a lane. */
  worktree_run: LaneFacts & { command: string; ok: boolean };
  /** s12: a lane was closed; its branch stays. `discarded` counts uncommitted changes forced away. */
  worktree_remove: LaneFacts & { branch: string; force: boolean; discarded: number };
  /** s12: removing its lane completed a task; s13: a teammate finished the task it held. */
  task_completed: { task: number } & (
    | { owner: string } // s13: who finished it
    | LaneFacts // s12: the lane whose removal completed it
  );
  /** s13: a teammate claimed a board task (and the lane it works in, if the task has one). */
  task_claimed: { task: number; owner: string; lane: string | null };
  /** s13: a teammate that leaves gave its task back to the board, pending and unowned. */
  task_handed_back: { task: number; owner: string };
  /** s13: a teammate's state changed (s13's TeammateState); `role` comes with its spawn. */
  member_state: { name: string; state: string; task: number | null; role?: string };
  /** s13: a message was put in a mailbox, with its protocol fields (s15's request_id, approve…). */
  mailbox_send: {
    id: string;
    type: string;
    from: string;
    to: string;
    content: string;
    [protocolField: string]: unknown;
  };
  /** s13: a message was taken out of a mailbox into its reader's next turn. */
  mailbox_read: { id: string; type: string; from: string; to: string };
  /** s15: a request of a protocol was sent or answered (s15's RequestStatus). */
  protocol: { request_id: string; type: string; from: string; to: string; status: string };
  /** s14: the harness recovered from a failed or cut-off model call. */
  recovery:
    | { kind: "backoff"; attempt: number; delay: number; status: number | null }
    | { kind: "max_tokens"; action: "continue" | "stop"; times: number }
    | { kind: "too_long"; action: "identity_reinjected" };
  /** a1: an MCP server started and listed its tools (their names as the server gave them). */
  mcp_server: { server: string; tools: string[] };
  /** a3: the model has now seen a new text of a file (it read it, or its own change made it):
   *  its version (1, 2, …), the text's hash (first 8 hex digits) and the tool that showed it. */
  file_version: { path: string; version: number; hash: string; by: string };
}

export type EventKind = keyof HarnessEvents;

/** One event, kind and data together: switching on `type` narrows `data`. */
export type HarnessEvent = { [K in EventKind]: { type: K; data: HarnessEvents[K] } }[EventKind];

/** The end of a switch over event kinds: a kind left out makes `event` not `never`, a type error
 *  at the call. At run time (a trace recorded by a newer harness) the step is passed over. */
export function otherEvent(event: never): void {
  void event;
}
