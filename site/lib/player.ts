// What the player shows for each step of a recorded run, in the reader's language: a headline in
// plain words (the raw event one click away), the step's note and the part of the run it starts
// (chapters/<chapter>/notes/), and whether it is the harness's own bookkeeping. (Where the code
// took it, the step's own `at`, goes to the player's data: step-spots.ts.) Pure: the Player component and the tests call it.
import { asText } from "../../chapters/_runner/text.ts";
import type { StepNotes } from "../../chapters/_runner/notes.ts";
import { attachNotes } from "../../chapters/_runner/notes.ts";
import { otherEvent, type HarnessEvent } from "../../chapters/_shared/events.ts";
import type { TraceEvent, TraceFile } from "../../chapters/_trace/contract.ts";
import { stepView, type StepView } from "./trace-view.ts";

export type Translate = (key: string, vars?: Record<string, string | number>) => string;

/** A step as the player shows it: the transcript view (trace-view.ts) and what teaches around it. */
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
  switch (step.type) {
    // (todos, task, job_started: state the panels show; the tool call and its result tell the story.)
    case "mailbox_read":
    case "task_bound":
    case "todos":
    case "task":
    case "job_started":
    case "file_version":
      return true;
    case "member_state":
      return step.data.state !== "shutdown";
    case "permission":
      return step.data.allowed;
    case "compacted":
    case "hook":
    case "background_result":
    case "worktree_create":
    case "worktree_run":
    case "worktree_remove":
    case "task_completed":
    case "task_claimed":
    case "task_handed_back":
    case "mailbox_send":
    case "protocol":
    case "recovery":
    case "model_error":
    case "interrupted":
    case "mcp_server":
    case "checkpoint":
    case "rewind":
    case "session":
    case "goal":
    case "goal_check":
    case "goal_end":
      return false;
    default:
      otherEvent(step);
      return false;
  }
}

const str = asText;
const short = (text: unknown, max = 60) => {
  const s = str(text).replace(/\s+/g, " ").trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** An event in plain words ("alice claims task #2"); a kind this site does not know keeps its name. */
export function eventWords(event: HarnessEvent, t: Translate): string {
  switch (event.type) {
    case "permission": {
      const d = event.data;
      return d.allowed
        ? t("event.permission.allowed", { tool: d.tool })
        : t("event.permission.refused", { tool: d.tool, reason: short(d.reason, 80) });
    }
    case "hook": {
      const d = event.data;
      return d.timedOut
        ? t("event.hook.timedOut", { event: d.event })
        : t("event.hook", { event: d.event, exit: str(d.exitCode) });
    }
    case "compacted":
      return t("event.compacted", { before: event.data.before, after: event.data.after });
    case "todos": {
      const { items } = event.data;
      const done = items.filter((i) => i.status === "completed").length;
      return t("event.todos", { done, count: items.length });
    }
    case "task": {
      const d = event.data;
      return t("event.task", { task: d.task, status: d.status, subject: short(d.subject, 50) });
    }
    case "job_started":
      return t("event.job_started", { id: event.data.id, command: short(event.data.command, 50) });
    case "background_result":
      return t("event.background_result", { id: event.data.id, status: event.data.status });
    case "worktree_create":
      return t("event.worktree_create", { lane: event.data.worktree, branch: event.data.branch });
    case "worktree_run":
      return t("event.worktree_run", {
        lane: event.data.worktree,
        command: short(event.data.command, 50),
      });
    case "worktree_remove":
      return t("event.worktree_remove", { lane: event.data.worktree });
    case "task_bound":
      return t("event.task_bound", { task: event.data.task, lane: event.data.worktree });
    case "task_completed": {
      const d = event.data;
      // s12: removing a lane completed it; s13: a teammate did.
      return "worktree" in d
        ? t("event.task_completed.lane", { task: d.task, lane: d.worktree })
        : t("event.task_completed", { owner: d.owner, task: d.task });
    }
    case "member_state":
      return t("event.member_state", { name: event.data.name, state: event.data.state });
    case "mailbox_send":
    case "mailbox_read": {
      const { from, to, type } = event.data;
      return t(`event.${event.type}`, { from, to, type });
    }
    case "task_claimed":
      return t("event.task_claimed", { owner: event.data.owner, task: event.data.task });
    case "task_handed_back":
      return t("event.task_handed_back", { owner: event.data.owner, task: event.data.task });
    case "protocol":
      return t("event.protocol", {
        id: event.data.request_id,
        kind: event.data.type,
        status: event.data.status,
      });
    case "recovery": {
      const d = event.data;
      if (d.kind === "backoff")
        return t("event.recovery.backoff", { status: str(d.status), attempt: d.attempt });
      if (d.kind === "max_tokens")
        return d.action === "continue" ? t("event.recovery.continue") : t("event.recovery.stop");
      return t("event.recovery.other", { kind: d.kind, action: d.action });
    }
    case "model_error": {
      const { status, message } = event.data;
      return status === null
        ? t("event.model_error.network", { message: short(message, 80) })
        : t("event.model_error", { status, message: short(message, 80) });
    }
    case "interrupted":
      return t(event.data.partial ? "event.interrupted.partial" : "event.interrupted", {
        results: event.data.results,
      });
    case "mcp_server":
      return t("event.mcp_server", { server: event.data.server });
    case "file_version":
      return t("event.file_version", {
        path: event.data.path,
        version: String(event.data.version),
      });
    case "checkpoint":
      return t("event.checkpoint", { id: event.data.id, prompt: short(event.data.prompt, 50) });
    case "rewind": {
      const d = event.data;
      return t(d.undo ? "event.rewind.undo" : "event.rewind", {
        id: d.to,
        restore: t(`event.rewind.${d.restore}`),
      });
    }
    case "session": {
      const d = event.data;
      return d.action === "fork"
        ? t("event.session.fork", { id: d.id, parent: str(d.parent), turn: str(d.turn) })
        : t(`event.session.${d.action}`, { id: d.id });
    }
    case "goal":
      return t(`event.goal.${event.data.check}`, {
        condition: short(event.data.condition, 50),
        rounds: event.data.rounds,
      });
    case "goal_check":
      return t(`event.goal_check.${event.data.outcome}`, { round: event.data.round });
    case "goal_end":
      return t(`event.goal_end.${event.data.reason}`, { rounds: event.data.rounds });
    default:
      otherEvent(event);
      return (event as { type: string }).type;
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
        ? { title: `◇ ${eventWords(step, t)}`, body: undefined, raw: view.body }
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
