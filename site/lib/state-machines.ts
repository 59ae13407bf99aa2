// The state machines chapters define in code, drawn from their own tables: s10's task statuses
// (STATUS_FLOW), s13's teammate lifecycle (LIFECYCLE) and s15's request statuses (TRANSITIONS).
// For a recorded run, which state each step is in and the transition it took, so the player can
// light them up in the diagram. Pure: the Player component and the tests call it.
import { STATUS_FLOW } from "../../chapters/s10-task-system/agent.ts";
import { LIFECYCLE } from "../../chapters/s13-agent-teams/agent.ts";
import { TRANSITIONS } from "../../chapters/s15-team-protocols/agent.ts";
import type { TraceFile } from "../../chapters/_trace/contract.ts";

export interface Machine {
  /** What moves through the states: "task", "teammate", "request". */
  subject: "task" | "teammate" | "request";
  /** state → the states it may go to, as the chapter's code has it. */
  table: Readonly<Record<string, readonly string[]>>;
  initial: string;
  /** The table's name in the chapter's agent.ts. */
  tableName: string;
}

export const MACHINES: Record<string, Machine> = {
  s10: { subject: "task", table: STATUS_FLOW, initial: "pending", tableName: "STATUS_FLOW" },
  s13: { subject: "teammate", table: LIFECYCLE, initial: "working", tableName: "LIFECYCLE" },
  s15: { subject: "request", table: TRANSITIONS, initial: "pending", tableName: "TRANSITIONS" },
};

/** The diagram's arrows in the order it draws them ("[*]>pending", "pending>approved", …):
 *  mermaid numbers its edges in this order, which is how the player finds one to light up. */
export function machineEdges(machine: Machine): string[] {
  const edges = [`[*]>${machine.initial}`];
  for (const [from, targets] of Object.entries(machine.table)) {
    for (const to of targets) edges.push(`${from}>${to}`);
    if (targets.length === 0) edges.push(`${from}>[*]`);
  }
  return edges;
}

/** A mermaid state diagram of the table: the initial state, every allowed move, final states. */
export function machineDiagram(machine: Machine): string {
  const arrows = machineEdges(machine).map((edge) => `  ${edge.replace(">", " --> ")}`);
  return ["stateDiagram-v2", ...arrows].join("\n");
}

/** Where a step leaves one subject (task #2, alice, req_1): its state, and the move it just made. */
export interface MachineFocus {
  /** "#2", "alice", "req_1" */
  who: string;
  state: string;
  /** The state it came from, on the step that made the move ("[*]" when it was created). */
  from?: string;
}

/** For each step: the subject it moved, or (between moves) the last one, without `from`. */
export function machineFocus(chapterId: string, trace: TraceFile): (MachineFocus | undefined)[] {
  const machine = MACHINES[chapterId];
  if (!machine) return trace.steps.map(() => undefined);
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
    if (machine.subject === "task" && step.kind === "event" && step.type === "task")
      moved = move(`#${step.data.task}`, step.data.status);
    if (machine.subject === "teammate" && step.kind === "event" && step.type === "member_state")
      moved = move(step.data.name, step.data.state);
    if (machine.subject === "request" && step.kind === "event" && step.type === "protocol")
      moved = move(step.data.request_id, step.data.status);
    if (moved) last = moved;
    return moved ?? (last && { who: last.who, state: last.state });
  });
}
