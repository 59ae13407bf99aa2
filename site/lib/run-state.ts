// The state a chapter is about, step by step, rebuilt from its recorded run: the todo list (s03),
// loaded skills (s04), permission decisions (s07), hooks fired (s08), memories saved (s09), the
// task board (s10–s13: from the board lines the task tools print, then claims and completions),
// background tasks (s11), lanes (s12), the roster with each teammate's state and unread mail
// (s13), recoveries (s14) and the request table (s15). Plus, per model request, its size (the
// context meter). Pure: the player's data endpoint and the tests call it.
import type { TraceEvent, TraceFile } from "./traces.ts";

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
  | "requests";

/** Rows of cells per panel; a panel appears once it has a row. */
export type Snapshot = Partial<Record<PanelId, string[][]>>;

/** One point of the context meter: a model request and how big it was. */
export interface MeterPoint {
  /** The step (index in the trace) of the request. */
  step: number;
  agent: string;
  messages: number;
  tokens: number;
}

const MARK: Record<string, string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };
/** A board line as s10's taskLine writes it: "[>] #1 Write src/greet.js  (owner: lead; lane: greet)". */
const BOARD_LINE = /^(?:Unblocked: )?(\[[ >x]\]) #(\d+) (.+?)(?: {2}\((.+)\))?$/;
const STATUS_OF = Object.fromEntries(Object.entries(MARK).map(([status, mark]) => [mark, status]));

/** The tasks a task tool's output lists, in its order: id, mark ("[>]"), status, subject, notes. */
export function boardLines(output: string) {
  return output.split("\n").flatMap((line) => {
    const m = BOARD_LINE.exec(line.trim());
    return m
      ? [{ id: m[2], mark: m[1], status: STATUS_OF[m[1]], subject: m[3], notes: m[4] ?? "" }]
      : [];
  });
}
const LAST = 8;
const short = (text: unknown, max = 48) => {
  const s = String(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** The state after each step of a run (shared objects where nothing changed). */
export function stateTimeline(trace: TraceFile): Snapshot[] {
  const todos: string[][] = [];
  const skills: string[][] = [];
  const permissions: string[][] = [];
  const hooks: string[][] = [];
  const memory: string[][] = [];
  const tasks = new Map<string, { mark: string; subject: string; notes: string }>();
  const jobs = new Map<string, { status: string; command: string }>();
  const lanes = new Map<string, { branch: string; task: string; status: string }>();
  const roster = new Map<string, { state: string; task: string; unread: number }>();
  const recovery: string[][] = [];
  const requests = new Map<string, { kind: string; route: string; status: string }>();
  const calls = new Map<string, Extract<TraceEvent, { kind: "tool_call" }>>();

  const readBoard = (output: string) => {
    for (const { id, mark, subject, notes } of boardLines(output))
      tasks.set(id, { mark, subject, notes });
  };
  const member = (name: string) => {
    let m = roster.get(name);
    if (!m) roster.set(name, (m = { state: "", task: "", unread: 0 }));
    return m;
  };
  const setTask = (
    id: unknown,
    change: (t: { mark: string; subject: string; notes: string }) => void,
  ) => {
    const task = tasks.get(String(id));
    if (task) change(task);
  };

  const apply = (step: TraceEvent) => {
    if (step.kind === "tool_call") {
      calls.set(step.id, step);
      const input = (step.input ?? {}) as Record<string, unknown>;
      if ((step.name === "todo" || step.name === "todo_write") && Array.isArray(input.items)) {
        todos.length = 0;
        for (const item of input.items as Record<string, unknown>[])
          todos.push([MARK[String(item.status)] ?? String(item.status), short(item.text, 60)]);
      }
      if (step.name === "load_skill" && !skills.some((s) => s[0] === input.name))
        skills.push([String(input.name)]);
    } else if (step.kind === "tool_result") {
      const call = calls.get(step.id);
      const input = (call?.input ?? {}) as Record<string, unknown>;
      if (step.is_error) return;
      if (/^task_|^worktree_create$/.test(step.name)) readBoard(step.output);
      if (step.name === "save_memory")
        memory.push([short(input.name, 40), String(input.type ?? "")]);
      if (step.name === "background_run") {
        const id = /\b(bg_\d+)\b/.exec(step.output)?.[1];
        if (id) jobs.set(id, { status: "running", command: short(input.command, 40) });
      }
    } else if (step.kind === "event") {
      const d = step.data;
      switch (step.type) {
        case "permission":
          permissions.push([
            String(d.tool),
            d.allowed ? "allowed" : "refused",
            short(d.reason, 60),
          ]);
          break;
        case "hook":
          hooks.push([
            String(d.event),
            short(d.command, 40),
            d.timedOut ? "timeout" : String(d.exitCode),
          ]);
          break;
        case "background_result": {
          const job = jobs.get(String(d.id));
          if (job) job.status = String(d.status);
          else jobs.set(String(d.id), { status: String(d.status), command: "" });
          break;
        }
        case "worktree.create":
          lanes.set(String(d.worktree), {
            branch: String(d.branch),
            task: d.taskId ? `#${d.taskId}` : "",
            status: "open",
          });
          break;
        case "task.bound": {
          const lane = lanes.get(String(d.worktree));
          if (lane) lane.task = `#${d.taskId}`;
          break;
        }
        case "task.completed":
          setTask(d.taskId, (t) => (t.mark = MARK.completed));
          break;
        case "worktree.remove": {
          const lane = lanes.get(String(d.worktree));
          if (lane) lane.status = "removed";
          break;
        }
        case "member_state": {
          const m = member(String(d.name));
          m.state = String(d.state);
          m.task = d.task ? `#${d.task}` : "";
          break;
        }
        case "mailbox_send":
          member(String(d.to)).unread++;
          break;
        case "mailbox_read": {
          const m = member(String(d.to));
          m.unread = Math.max(0, m.unread - 1);
          break;
        }
        case "task_claimed":
          setTask(d.task, (t) => {
            t.mark = MARK.in_progress;
            t.notes = [`owner: ${d.owner}`, d.lane ? `lane: ${d.lane}` : ""]
              .filter(Boolean)
              .join("; ");
          });
          break;
        case "task_completed":
          setTask(d.task, (t) => (t.mark = MARK.completed));
          break;
        case "task_handed_back":
          setTask(d.task, (t) => (t.mark = MARK.pending));
          break;
        case "recovery":
          recovery.push([
            String(d.kind),
            [
              d.status ? `HTTP ${d.status}` : "",
              d.attempt ? `try ${d.attempt}` : "",
              d.action ?? "",
            ]
              .filter(Boolean)
              .join(", "),
          ]);
          break;
        case "protocol":
          requests.set(String(d.request_id), {
            kind: String(d.type),
            route: `${d.from} → ${d.to}`,
            status: String(d.status),
          });
          break;
      }
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
      jobs: [...jobs].map(([id, j]) => [id, j.status, j.command]),
      lanes: [...lanes].map(([name, l]) => [name, l.branch, l.task, l.status]),
      roster: [...roster].map(([name, m]) => [name, m.state || "—", m.task, String(m.unread)]),
      recovery: recovery.slice(-LAST),
      requests: [...requests].map(([id, r]) => [id, r.kind, r.route, r.status]),
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

/** Every model request of the run with its size: the context meter's points. */
export function contextMeter(trace: TraceFile): MeterPoint[] {
  return trace.steps.flatMap((step, i) =>
    step.kind === "request"
      ? [{ step: i, agent: step.agent, messages: step.messages, tokens: step.tokens ?? 0 }]
      : [],
  );
}
