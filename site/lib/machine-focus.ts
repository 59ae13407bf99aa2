// Which state a run's subject is in at each step (a task on s10's board, a teammate in s13, a
// request in s15), folded from the run's events, so the player can light it up in the chapter's
// state diagram (state-machines.ts draws it from the chapter's own table). Pure, and free of the
// chapters' code: the browser's recording reader runs it with the subject the chapter's data names.
import type { TraceFile } from "../../chapters/_trace/contract.ts";

/** What moves through a chapter's states. */
export type Subject = "task" | "teammate" | "request";

/** Where a step leaves one subject (task #2, alice, req_1): its state, and the move it just made. */
export interface MachineFocus {
  /** "#2", "alice", "req_1" */
  who: string;
  state: string;
  /** The state it came from, on the step that made the move ("[*]" when it was created). */
  from?: string;
}

/** For each step: the subject it moved, or (between moves) the last one, without `from`. */
export function subjectFocus(subject: Subject, trace: TraceFile): (MachineFocus | undefined)[] {
  const known = new Map<string, string>();
  let last: MachineFocus | undefined;
  const move = (who: string, state: string): MachineFocus | undefined => {
    const before = known.get(who);
    if (before === state) return undefined;
    known.set(who, state);
    return { who, state, from: before ?? "[*]" };
  };
  return trace.steps.map((step) => {
    let moved: MachineFocus | undefined;
    if (subject === "task" && step.kind === "event" && step.type === "task")
      moved = move(`#${step.data.task}`, step.data.status);
    if (subject === "teammate" && step.kind === "event" && step.type === "member_state")
      moved = move(step.data.name, step.data.state);
    if (subject === "request" && step.kind === "event" && step.type === "protocol")
      moved = move(step.data.request_id, step.data.status);
    if (moved) last = moved;
    return moved ?? (last && { who: last.who, state: last.state });
  });
}
