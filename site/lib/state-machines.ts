// The state machines chapters define in code, drawn from their own tables: s10's task statuses
// (STATUS_FLOW), s13's teammate lifecycle (LIFECYCLE) and s15's request statuses (TRANSITIONS).
// For a recorded run, which state each step is in and the transition it took, so the player can
// light them up in the diagram. Pure: the Player component and the tests call it.
import { STATUS_FLOW } from "../../chapters/s10-task-system/agent.ts";
import { LIFECYCLE } from "../../chapters/s13-agent-teams/agent.ts";
import { TRANSITIONS } from "../../chapters/s15-team-protocols/agent.ts";
import type { TraceFile } from "../../chapters/_trace/contract.ts";
import { subjectFocus, type MachineFocus, type Subject } from "./machine-focus.ts";

export type { MachineFocus };

export interface Machine {
  /** What moves through the states: "task", "teammate", "request". */
  subject: Subject;
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
  // Left to right: the player's machine panel is a third of the stage's height and its full
  // width, where a top-down drawing put s13's state names 5 px tall (10 and 15 were not much better).
  // ...and packed closer than mermaid's 50 px apart: s15's three ends stack up the panel's height,
  // so the space between them was a third of what shrank their names to 10 px.
  const spacing = '%%{init: {"state": {"nodeSpacing": 16, "rankSpacing": 32}}}%%';
  return [spacing, "stateDiagram-v2", "  direction LR", ...arrows].join("\n");
}

/** For each step of a run of `chapterId`: the subject it moved, or the last one (machine-focus.ts). */
export function machineFocus(chapterId: string, trace: TraceFile): (MachineFocus | undefined)[] {
  const machine = MACHINES[chapterId];
  return machine ? subjectFocus(machine.subject, trace) : trace.steps.map(() => undefined);
}
