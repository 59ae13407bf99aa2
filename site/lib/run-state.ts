// The state a chapter is about, step by step, folded from the events of its recorded run: the
// todo list (s03), permission decisions (s07), hooks fired (s08), the task board (s10–s13: each
// task as a tool showed it, then claims and completions), background jobs (s11), lanes (s12),
// the roster with each teammate's state and unread mail (s13), recoveries (s14) and the request
// table (s15), the files read with their versions (a3), the checkpoint list (a4), the goal with its round, budget and last verdict (a7); loaded skills (s04) and saved memories (s09) are the model's own tool calls. Plus,
// per model request, its size (the context meter). Nothing is read back out of a tool's text or a
// lesson's source. Pure: the player's data endpoint, the browser's recording reader and the tests
// call it.
import { asText } from "../../chapters/_runner/text.ts";
import { MARKS } from "../../chapters/_shared/marks.ts";
import { otherEvent, type HarnessEvents } from "../../chapters/_shared/events.ts";
import type { TraceEvent, TraceFile } from "../../chapters/_trace/contract.ts";
import { statusCell, type Cell, type Phrase } from "./state-words.ts";

export type PanelId =
  | "todos"
  | "skills"
  | "permissions"
  | "hooks"
  | "memory"
  | "tasks"
  | "jobs"
  | "lanes"
  | "roster"
  | "recovery"
  | "requests"
  | "files"
  | "checkpoints"
  | "sessions"
  | "goal";

/** Rows of cells per panel; a panel appears once it has a row. A cell is data (a name, an id, a
 *  path, a command) as it is, or our words as phrases, worded in the reader's language when shown
 *  (state-words.ts): the timeline is built once and serves every locale. */
export type Snapshot = Partial<Record<PanelId, Cell[][]>>;

/** One point of the context meter: a model request and how big it was. */
export interface MeterPoint {
  /** The step (index in the trace) of the request. */
  step: number;
  agent: string;
  messages: number;
  tokens: number;
  /** The tokens are the API's count for this call (input + cache read + cache write, from the
   *  response's `usage`), not the estimate: a learner's own run with a real model. */
  measured?: boolean;
}

/** A task's notes as its board line shows them: "owner: alice; blocked by #1; lane: greet"
 *  (the names and ids as data, the words the reader's). */
const taskNotes = (t: Partial<Pick<HarnessEvents["task"], "owner" | "blockedBy" | "lane">>) => {
  const notes: Phrase[] = [];
  if (t.owner) notes.push(["owner", { owner: t.owner }]);
  if (t.blockedBy?.length)
    notes.push(["blockedBy", { tasks: t.blockedBy.map((b) => `#${b}`).join(", ") }]);
  if (t.lane) notes.push(["lane", { lane: t.lane }]);
  return notes.length ? notes : "";
};

/** The mark of a status (s03's and s10's), or the status itself if it has none. */
const markOf = (status: unknown) => MARKS[status as keyof typeof MARKS] ?? asText(status);
const LAST = 8;
const short = (text: unknown, max = 48) => {
  const s = asText(text).replace(/\s+/g, " ").trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** The state after each step of a run (shared objects where nothing changed). */
export function stateTimeline(trace: TraceFile): Snapshot[] {
  const todos: Cell[][] = [];
  const skills: Cell[][] = [];
  const permissions: Cell[][] = [];
  const hooks: Cell[][] = [];
  const memory: Cell[][] = [];
  const tasks = new Map<string, { mark: string; subject: string; notes: Cell }>();
  const jobs = new Map<string, { status: string; command: string }>();
  const lanes = new Map<string, { branch: string; task: string; status: string }>();
  const roster = new Map<string, { state: string; task: string; unread: number }>();
  const recovery: Cell[][] = [];
  const requests = new Map<string, { kind: string; route: string; status: string }>();
  const files = new Map<string, { version: number; by: string }>();
  const sessions: Cell[][] = [];
  // a7: the goal now (or the last one), its round, what has been spent and the last verdict.
  let goal: { condition: string; round: string; budget: Phrase; verdict: Phrase } | undefined;
  const calls = new Map<string, Extract<TraceEvent, { kind: "tool_call" }>>();
  const checkpoints = new Map<number, { prompt: string; rewound: Cell }>();

  const member = (name: string) => {
    let m = roster.get(name);
    if (!m) roster.set(name, (m = { state: "", task: "", unread: 0 }));
    return m;
  };
  const setTask = (
    id: unknown,
    change: (t: { mark: string; subject: string; notes: Cell }) => void,
  ) => {
    const task = tasks.get(String(id));
    if (task) change(task);
  };

  const apply = (step: TraceEvent) => {
    if (step.kind === "tool_call") {
      calls.set(step.id, step);
      const input = (step.input ?? {}) as Record<string, unknown>;
      if (step.name === "load_skill" && !skills.some((s) => s[0] === input.name))
        skills.push([asText(input.name)]);
    } else if (step.kind === "tool_result") {
      const call = calls.get(step.id);
      const input = (call?.input ?? {}) as Record<string, unknown>;
      if (step.is_error) return;
      if (step.name === "save_memory") memory.push([short(input.name, 40), asText(input.type)]);
    } else if (step.kind === "event") event(step);
  };

  /** What an event changes; every kind is named, so a new one must be decided on. */
  const event = (step: Extract<TraceEvent, { kind: "event" }>) => {
    switch (step.type) {
      case "todos":
        todos.length = 0;
        for (const item of step.data.items) todos.push([markOf(item.status), short(item.text, 60)]);
        return;
      case "task": {
        const d = step.data;
        tasks.set(String(d.task), {
          mark: markOf(d.status),
          subject: d.subject,
          notes: taskNotes(d),
        });
        return;
      }
      case "job_started":
        jobs.set(step.data.id, { status: "running", command: short(step.data.command, 40) });
        return;
      case "permission": {
        const d = step.data;
        permissions.push([
          d.tool,
          statusCell(d.allowed ? "allowed" : "refused"),
          short(d.reason, 60),
        ]);
        return;
      }
      case "hook": {
        const d = step.data;
        hooks.push([
          d.event,
          short(d.command, 40),
          d.timedOut ? statusCell("timeout") : String(d.exitCode),
        ]);
        return;
      }
      case "background_result": {
        const { id, status } = step.data;
        const job = jobs.get(id);
        if (job) job.status = status;
        else jobs.set(id, { status, command: "" });
        return;
      }
      case "worktree_create": {
        const d = step.data;
        lanes.set(d.worktree, {
          branch: d.branch,
          task: d.task ? `#${d.task}` : "",
          status: "open",
        });
        return;
      }
      case "task_bound": {
        const lane = lanes.get(step.data.worktree);
        if (lane) lane.task = `#${step.data.task}`;
        return;
      }
      case "worktree_remove": {
        const lane = lanes.get(step.data.worktree);
        if (lane) lane.status = "removed";
        return;
      }
      case "member_state": {
        const m = member(step.data.name);
        m.state = step.data.state;
        m.task = step.data.task ? `#${step.data.task}` : "";
        return;
      }
      case "mailbox_send":
        member(step.data.to).unread++;
        return;
      case "mailbox_read": {
        const m = member(step.data.to);
        m.unread = Math.max(0, m.unread - 1);
        return;
      }
      case "task_claimed": {
        const d = step.data;
        setTask(d.task, (t) => {
          t.mark = MARKS.in_progress;
          t.notes = taskNotes({ owner: d.owner, lane: d.lane });
        });
        return;
      }
      case "task_completed":
        setTask(step.data.task, (t) => (t.mark = MARKS.completed));
        return;
      case "task_handed_back":
        setTask(step.data.task, (t) => (t.mark = MARKS.pending));
        return;
      case "recovery": {
        const d = step.data;
        const how: Phrase[] = [];
        if ("attempt" in d && d.attempt)
          how.push(
            "status" in d && d.status
              ? ["httpTry", { status: d.status, attempt: d.attempt }]
              : ["try", { attempt: d.attempt }],
          );
        else if ("status" in d && d.status) how.push(["http", { status: d.status }]);
        // (the actions are an enum of the contract, each a status word)
        if ("action" in d) how.push([`is.${d.action}`]);
        recovery.push([statusCell(d.kind), how.length ? how : ""]);
        return;
      }
      // What went wrong between a request and the next prompt, beside what was done about it.
      case "model_error": {
        const { status, message } = step.data;
        recovery.push([
          statusCell("error"),
          `${status === null ? "" : `HTTP ${status}: `}${short(message)}`,
        ]);
        return;
      }
      case "interrupted": {
        const { results, partial } = step.data;
        recovery.push([
          statusCell("interrupted"),
          [[partial ? "keptPartial" : "kept", { count: results }]],
        ]);
        return;
      }
      case "protocol": {
        const d = step.data;
        requests.set(d.request_id, {
          kind: d.type,
          route: `${d.from} → ${d.to}`,
          status: d.status,
        });
        return;
      }
      case "file_version": {
        // The hash stays in the event (a learner's own recording); the panel shows the count.
        const { path, version, by } = step.data;
        files.set(path, { version, by });
        return;
      }
      case "checkpoint": {
        const d = step.data;
        checkpoints.set(d.id, { prompt: short(d.prompt, 40), rewound: "" });
        return;
      }
      case "rewind": {
        const d = step.data;
        const checkpoint = checkpoints.get(d.to);
        const restore: Phrase = [`restore.${d.restore}`];
        if (checkpoint) checkpoint.rewound = [[d.undo ? "undone" : "rewound", { restore }]];
        return;
      }
      case "session": {
        // a5's session tree: a fork is listed under the session it branched from.
        const d = step.data;
        const row = [d.id, statusCell(d.action), d.parent ? `${d.parent} @ ${d.turn}` : "—"];
        const at = sessions.findIndex((r) => r[0] === d.id);
        if (at >= 0) sessions[at] = row;
        else if (d.parent) {
          const parent = sessions.findIndex((r) => r[0] === d.parent);
          sessions.splice(parent >= 0 ? parent + 1 : sessions.length, 0, row);
        } else sessions.push(row);
        return;
      }
      case "goal": {
        const d = step.data;
        const rounds: Phrase = ["rounds", { count: d.rounds }];
        goal = {
          condition: short(d.condition, 40),
          round: "0",
          budget:
            d.dollars === null
              ? ["budget", { rounds, tokens: d.tokens }]
              : ["budgetDollars", { rounds, tokens: d.tokens, dollars: d.dollars }],
          verdict: ["notChecked"],
        };
        return;
      }
      case "goal_check":
        if (goal) {
          goal.round = String(step.data.round);
          const outcome = statusCell(step.data.outcome);
          goal.verdict = [
            "verdict",
            {
              outcome: typeof outcome === "string" ? outcome : outcome[0],
              tokens: step.data.tokens,
            },
          ];
        }
        return;
      case "goal_end":
        if (goal)
          goal.verdict = [
            "stopped",
            { verdict: goal.verdict, reason: [`reason.${step.data.reason}`] },
          ];
        return;
      // Shown by the context meter, the sequence diagram or the step itself, not by a panel:
      case "compacted":
      case "worktree_run":
      case "mcp_server":
        return;
      default:
        otherEvent(step);
    }
  };

  const snapshot = (): Snapshot => {
    const panels: Snapshot = {
      todos: [...todos],
      skills: [...skills],
      permissions: permissions.slice(-LAST),
      hooks: hooks.slice(-LAST),
      memory: [...memory],
      tasks: [...tasks].map(([id, t]) => [t.mark, `#${id}`, t.subject, t.notes]),
      jobs: [...jobs].map(([id, j]) => [id, statusCell(j.status), j.command]),
      lanes: [...lanes].map(([name, l]) => [name, l.branch, l.task, statusCell(l.status)]),
      roster: [...roster].map(([name, m]) => [
        name,
        m.state ? statusCell(m.state) : "—",
        m.task,
        String(m.unread),
      ]),
      recovery: recovery.slice(-LAST),
      requests: [...requests].map(([id, r]) => [id, r.kind, r.route, statusCell(r.status)]),
      files: [...files].map(([file, f]) => [file, `v${f.version}`, f.by]),
      checkpoints: [...checkpoints].map(([id, c]) => [`#${id}`, c.prompt, c.rewound]),
      sessions: sessions.map((r) => [...r]),
      goal: goal ? [[goal.condition, goal.round, [goal.budget], [goal.verdict]]] : [],
    };
    for (const key of Object.keys(panels) as PanelId[])
      if (!panels[key]!.length) delete panels[key];
    return panels;
  };

  let last = "";
  let previous: Snapshot = {};
  return trace.steps.map((step) => {
    apply(step);
    const next = snapshot();
    const json = JSON.stringify(next);
    if (json !== last) {
      last = json;
      previous = next;
    }
    return previous;
  });
}

/** Every model request of the run with its size: the context meter's points. A request whose
 *  answer (the agent's next response) carries the API's `usage` is as big as the prompt it
 *  counted: input, cache read and cache write; else the request's own estimate. */
export function contextMeter(trace: TraceFile): MeterPoint[] {
  const points: MeterPoint[] = [];
  const waiting = new Map<string, MeterPoint>();
  trace.steps.forEach((step, i) => {
    if (step.kind === "request") {
      const point = {
        step: i,
        agent: step.agent,
        messages: step.messages,
        tokens: step.tokens ?? 0,
      };
      points.push(point);
      waiting.set(step.agent, point);
    } else if (step.kind === "response") {
      const point = waiting.get(step.agent);
      waiting.delete(step.agent);
      const usage = step.usage;
      if (point && usage) {
        point.tokens =
          usage.input_tokens +
          (usage.cache_read_input_tokens ?? 0) +
          (usage.cache_creation_input_tokens ?? 0);
        point.measured = true;
      }
    }
  });
  return points;
}
