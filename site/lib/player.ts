// What the player shows for each step of a recorded run, in the reader's language: a headline in
// plain words (the raw event one click away), the step's note and the part of the run it starts
// (chapters/<chapter>/notes/), and whether it is the harness's own bookkeeping. (Where the code
// handled it, step-code.ts, goes to the player's data.) Pure: the Player component and the tests call it.
import type { StepNotes } from "../../chapters/_runner/notes.ts";
import { attachNotes } from "../../chapters/_runner/notes.ts";
import { stepView, type StepView, type TraceEvent, type TraceFile } from "./traces.ts";

export type Translate = (key: string, vars?: Record<string, string | number>) => string;

/** A step as the player shows it: the transcript view (traces.ts) and what teaches around it. */
export interface PlayerStep extends StepView {
  /** The headline, in plain words: "alice claims task #2", "→ model · 5 messages · 10 tools". */
  title: string;
  /** The raw event (JSON), for an event step: its plain-words title is one click away from it. */
  raw?: string;
  note?: string;
  /** The note is English because this locale has no translation of it yet. */
  noteFallback?: boolean;
  /** The part of the run (notes' `phases`) this step begins. */
  phase?: string;
  /** The harness's own bookkeeping (a request header, a mailbox read, a routine state change):
   *  shown small, and skipped by "story only" playback. A step with a note never is. */
  minor: boolean;
}

/** Bookkeeping: what a reader can skip on a first pass without losing the story. */
function isMinor(step: TraceEvent): boolean {
  if (step.kind === "request") return true;
  if (step.kind !== "event") return false;
  const data = step.data;
  if (step.type === "mailbox_read" || step.type === "task.bound") return true;
  if (step.type === "member_state") return data.state !== "shutdown";
  if (step.type === "permission") return data.allowed === true;
  return false;
}

const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));
const short = (text: unknown, max = 60) => {
  const s = str(text).replace(/\s+/g, " ").trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** An event in plain words ("alice claims task #2"); unknown types keep their name. */
export function eventWords(type: string, data: Record<string, unknown>, t: Translate): string {
  const d = data;
  switch (type) {
    case "permission":
      return d.allowed
        ? t("event.permission.allowed", { tool: str(d.tool) })
        : t("event.permission.refused", { tool: str(d.tool), reason: short(d.reason, 80) });
    case "hook":
      return d.timedOut
        ? t("event.hook.timedOut", { event: str(d.event) })
        : t("event.hook", { event: str(d.event), exit: str(d.exitCode) });
    case "compacted":
      return t("event.compacted", { before: str(d.before), after: str(d.after) });
    case "background_result":
      return t("event.background_result", { id: str(d.id), status: str(d.status) });
    case "worktree.create":
      return t("event.worktree.create", { lane: str(d.worktree), branch: str(d.branch) });
    case "worktree.run":
      return t("event.worktree.run", { lane: str(d.worktree), command: short(d.command, 50) });
    case "worktree.remove":
      return t("event.worktree.remove", { lane: str(d.worktree) });
    case "task.bound":
      return t("event.task.bound", { task: str(d.taskId), lane: str(d.worktree) });
    case "task.completed":
      return t("event.task.completed", { task: str(d.taskId), lane: str(d.worktree) });
    case "member_state":
      return t("event.member_state", { name: str(d.name), state: str(d.state) });
    case "mailbox_send":
      return t("event.mailbox_send", { from: str(d.from), to: str(d.to), type: str(d.type) });
    case "mailbox_read":
      return t("event.mailbox_read", { from: str(d.from), to: str(d.to), type: str(d.type) });
    case "task_claimed":
      return t("event.task_claimed", { owner: str(d.owner), task: str(d.task) });
    case "task_completed":
      return t("event.task_completed", { owner: str(d.owner), task: str(d.task) });
    case "task_handed_back":
      return t("event.task_handed_back", { owner: str(d.owner), task: str(d.task) });
    case "protocol":
      return t("event.protocol", {
        id: str(d.request_id),
        kind: str(d.type),
        status: str(d.status),
      });
    case "recovery":
      if (d.kind === "backoff")
        return t("event.recovery.backoff", { status: str(d.status), attempt: str(d.attempt) });
      if (d.kind === "max_tokens")
        return d.action === "continue" ? t("event.recovery.continue") : t("event.recovery.stop");
      return t("event.recovery.other", { kind: str(d.kind), action: str(d.action) });
    case "mcp_server":
      return t("event.mcp_server", { server: str(d.server) });
    default:
      return type;
  }
}

/** The player's steps for one run, with its notes (the locale's over English). */
export function playerSteps(
  trace: TraceFile,
  notes: { local: StepNotes; english: StepNotes },
  t: Translate,
): PlayerStep[] {
  const local = attachNotes(trace.steps, notes.local).byStep;
  const english = attachNotes(trace.steps, notes.english).byStep;
  const labels = {
    user: t("player.user"),
    request: (messages: number, tools: number) =>
      t("player.request", {
        messages: t("player.messages", { count: messages }),
        tools: t("player.tools", { count: tools }),
      }),
    response: (stop: string) => t("player.response", { stop }),
    system: t("player.system"),
    note: t("player.note"),
    result: t("player.result"),
    error: t("player.error"),
  };
  return trace.steps.map((step, i) => {
    const view = stepView(step, labels);
    const note = local[i].note ?? english[i].note;
    const plain =
      step.kind === "event"
        ? { title: `◇ ${eventWords(step.type, step.data, t)}`, body: undefined, raw: view.body }
        : { title: view.title, body: view.body };
    return {
      kind: step.kind,
      agent: step.agent,
      ...plain,
      code: step.kind === "event" ? undefined : view.code,
      error: view.error,
      note: note?.trim(),
      noteFallback: note !== undefined && local[i].note === undefined ? true : undefined,
      phase: (local[i].phase ?? english[i].phase)?.trim(),
      minor: isMinor(step) && note === undefined,
    };
  });
}
