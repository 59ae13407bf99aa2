// Reading a version-2 trace as version 3. Version 2 recorded no event for the state the player
// shows: the player read s03's plan from the `todo` call's input, s10's board from the lines the
// task tools print, s11's jobs from background_run's answer. Version 3 records that state as
// events (todos, task, job_started). This upgrade adds them to a version-2 run, read the way the
// player of version 2 read them, so a learner's old recording still opens with its panels.
//
// The text read here is version 2's, frozen: the line formats below are copies of what s10 and
// s11 printed then, not imports of the chapters, so a chapter that changes its wording later does
// not change how an old file reads (and the contract imports no chapter).
import type { HarnessEvents } from "../_shared/events.ts";
import type { EventStep, TraceEvent } from "./contract.ts";

/** s10's status marks in version 2 (chapters/_shared/marks.ts then). */
const V2_MARKS: Record<string, string> = {
  "[ ]": "pending",
  "[>]": "in_progress",
  "[x]": "completed",
};

/** One of s10's board lines in version 2 (its taskLine), read back: `[>] #2 subject  (owner: a;
 *  blocked by #1, #3; lane: greet)`, or the same after "Unblocked: ". */
export function v2TaskLine(line: string): HarnessEvents["task"] | undefined {
  const m = /^(?:Unblocked: )?(\[.\]) #(\d+) (.+?)(?: {2}\((.+)\))?$/.exec(line.trim());
  const status = m && V2_MARKS[m[1]];
  if (!m || !status) return undefined;
  const notes = (m[4] ?? "").split("; ");
  const note = (label: string) =>
    notes.find((n) => n.startsWith(`${label} `))?.slice(label.length + 1) ?? null;
  const blockedBy = note("blocked by");
  return {
    task: Number(m[2]),
    status,
    subject: m[3],
    owner: note("owner:"),
    blockedBy: blockedBy ? blockedBy.split(", ").map((b) => Number(b.replace(/^#/, ""))) : [],
    lane: note("lane:"),
  };
}

/** a1's tool names in version 2 (its mcpToolName): `mcp__<server>__<tool>`. */
const v2McpName = (server: string, tool: string) => `mcp__${server}__${tool}`;

/** s11's background_run answer in version 2 (its startedLine): the id of the job it started. */
const v2StartedJob = (output: string) => /^Started (bg_\d+) in the background: /.exec(output)?.[1];

/** A function that reads one version-2 step (already checked against the step schema) as the
 *  version-3 steps it stands for: itself, after the state events a version-3 run would have
 *  recorded while the tool ran. One per trace: it remembers each tool call's input. */
export function fromV2(): (step: TraceEvent) => TraceEvent[] {
  const inputs = new Map<string, Record<string, unknown>>();
  return (step) => {
    // Version 3's mcp_server says what name the model is offered each tool by.
    if (step.kind === "event" && step.type === "mcp_server" && !step.data.offered) {
      const { server, tools } = step.data;
      const offered = Object.fromEntries(tools.map((tool) => [v2McpName(server, tool), tool]));
      return [{ ...step, data: { ...step.data, offered } }];
    }
    if (step.kind === "tool_call") {
      const input = step.input;
      inputs.set(
        step.id,
        input && typeof input === "object" ? (input as Record<string, unknown>) : {},
      );
      return [step];
    }
    if (step.kind !== "tool_result" || step.is_error) return [step];
    const input = inputs.get(step.id) ?? {};
    const agent = step.agent;
    const events: EventStep[] = [];
    if ((step.name === "todo" || step.name === "todo_write") && Array.isArray(input.items)) {
      // An item that is not an object is left out, as version 2's player did.
      const items = (input.items as unknown[]).flatMap((item) => {
        if (!item || typeof item !== "object") return [];
        const { status, text } = item as Record<string, unknown>;
        return [{ status: String(status ?? ""), text: String(text ?? "") }];
      });
      events.push({ kind: "event", agent, type: "todos", data: { items } });
    }
    if (/^task_|^worktree_create$/.test(step.name))
      for (const line of step.output.split("\n")) {
        const task = v2TaskLine(line);
        if (task) events.push({ kind: "event", agent, type: "task", data: task });
      }
    if (step.name === "background_run") {
      const id = v2StartedJob(step.output);
      if (id)
        events.push({
          kind: "event",
          agent,
          type: "job_started",
          data: { id, command: String(input.command ?? "") },
        });
    }
    return [...events, step];
  };
}
