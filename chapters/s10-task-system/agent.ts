/**
 * s10 · A task system
 *
 * A todo list (s03) lives inside one conversation: it forgets everything when the session ends,
 * it has no order ("B needs A first"), and nobody else can see it. Real work outlives a session
 * and, from s12 on, is shared by several agents. So the plan moves to disk: one JSON file per
 * task in the harness's state folder beside the workspace (`<workspace>.harness/tasks/`), linked
 * into a graph by `blockedBy` / `blocks`. The model's commands can only write in the workspace,
 * so the board changes only through the task tools, and every change is checked first.
 *
 *   pending ──► in_progress ──► completed        completing a task unblocks the tasks it blocked
 *
 * The board is a small class with no model in it; later chapters (worktrees, teams) import it,
 * and several agents, even in several processes, may write to it at once.
 */
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { withLock } from "../_shared/lock.ts";
import { MARKS } from "../_shared/marks.ts";
import { agentLoop, BASE_HANDLERS, BASE_TOOLS, type ToolHandler } from "../s02-tool-use/agent.ts";
import { BrokenStateError, readJson, writeJsonAtomic } from "../_shared/fsutil.ts";
import type { Agent, AgentEnv, IO, MessageParam, Tool } from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files; paths are relative to the workspace. For work with several steps, keep a task board:
create one task per step, link a step to the steps it needs with blockedBy, set a task in_progress
when you start it and completed when it is done. The board is saved on disk and outlives this
conversation, so look at it (task_list) before you plan. When the work is done, say so briefly.`;

// #region task
export type TaskStatus = "pending" | "in_progress" | "completed";
export const STATUSES: readonly TaskStatus[] = ["pending", "in_progress", "completed"];
/** Where a task may go from each status (staying put is always allowed): work starts, or is
 *  handed back; completed is final. The site draws the chapter's state diagram from this table. */
export const STATUS_FLOW: Record<TaskStatus, readonly TaskStatus[]> = {
  pending: ["in_progress", "completed"],
  in_progress: ["pending", "completed"],
  completed: [],
};

/** One node of the graph. `blockedBy` and `blocks` are two views of the same open edges:
 *  `b` is in `a.blocks` exactly when `a` is in `b.blockedBy`. */
export interface Task {
  id: number;
  subject: string;
  description: string;
  status: TaskStatus;
  owner: string | null;
  blockedBy: number[];
  blocks: number[];
  /** The worktree lane this task runs in (s12); null = the workspace itself. */
  worktree: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Ids are counted up from 1. Anything else (0, 1.5, NaN, "3", 1e21) is refused wherever an id
 *  comes in: a huge or fractional id would name a file no later lookup finds, and break numbering. */
export const MAX_TASK_ID = 999_999_999;

export function checkTaskId(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TASK_ID) {
    const shown =
      typeof value === "number" ? String(value) : (JSON.stringify(value) ?? String(value));
    throw new Error(`task id must be a whole number from 1 to ${MAX_TASK_ID}, got ${shown}`);
  }
  return value;
}
// #endregion task

type Patch = {
  status?: TaskStatus;
  owner?: string | null;
  addBlockedBy?: number[];
  addBlocks?: number[];
  worktree?: string | null;
  subject?: string;
  description?: string;
};

// #region board
export class TaskBoard {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  path(id: number): string {
    return path.join(this.dir, `task_${checkTaskId(id)}.json`);
  }

  /** Every task on disk, by id. There is no cache: another agent may have written since we last
   *  looked, and the files are the truth. A graph that can never finish is reported, not shown. */
  list(): Task[] {
    const tasks = this.ids().map((id) => this.load(this.path(id), id));
    checkGraph(this.dir, tasks);
    return tasks;
  }

  get(id: number): Task {
    const file = this.path(checkTaskId(id));
    if (!existsSync(file)) throw new Error(`task ${id} not found`);
    return this.load(file, id);
  }

  /** Everything is checked before the first write. A new task takes the next free id with an
   *  exclusive create, so two creators (in two processes, too) never get the same id. */
  create(input: {
    subject: string;
    description?: string;
    blockedBy?: number[];
    worktree?: string | null;
  }): Task {
    const subject = String(input.subject ?? "").trim();
    if (!subject) throw new Error("a task needs a subject");
    const now = new Date().toISOString();
    const fields = {
      subject,
      description: text(input.description ?? "", "description"),
      status: "pending" as const,
      owner: null,
      blockedBy: [] as number[],
      blocks: [] as number[],
      worktree: textOrNull(input.worktree ?? null, "worktree"),
      createdAt: now,
      updatedAt: now,
    };
    const blockers = [...new Set(idList(input.blockedBy))];
    if (blockers.length === 0) return this.createFile(fields);
    return this.locked(() => {
      const tasks = this.snapshot();
      // A finished task blocks nothing.
      const open = blockers.map((b) => find(tasks, b)).filter((b) => b.status !== "completed");
      // Nothing waits for a task that does not exist yet, so its first edges cannot make a cycle.
      const task = this.createFile({ ...fields, blockedBy: open.map((b) => b.id) });
      for (const blocker of open) this.touch({ ...blocker, blocks: [...blocker.blocks, task.id] });
      return task;
    });
  }

  /** The whole patch is checked and applied to the tasks in memory first; only then is anything
   *  written, so a patch with one bad part changes nothing. The lock makes the read-modify-write
   *  one step: two processes adding edges to one task cannot lose each other's. */
  update(id: number, patch: Patch): Task {
    checkTaskId(id);
    return this.locked(() => {
      const tasks = this.snapshot();
      const changed = this.apply(tasks, id, patch);
      for (const task of changed) this.touch(task);
      return find(tasks, id);
    });
  }

  /** Ready = someone could start it now: pending, nobody owns it, nothing blocks it. */
  isReady(task: Task): boolean {
    return task.status === "pending" && !task.owner && task.blockedBy.length === 0;
  }

  /** Checks first, then edges, then the status move, then plain fields — all in memory. Returns
   *  the tasks to write, in the order to write them: the task itself last. */
  private apply(tasks: Graph, id: number, patch: Patch): Set<Task> {
    const task = find(tasks, id);
    if (patch.status !== undefined) this.checkStatus(task, patch.status);
    const owner = patch.owner === undefined ? undefined : textOrNull(patch.owner, "owner");
    const worktree =
      patch.worktree === undefined ? undefined : textOrNull(patch.worktree, "worktree");
    const subject = patch.subject === undefined ? undefined : text(patch.subject, "subject");
    const description =
      patch.description === undefined ? undefined : text(patch.description, "description");
    const [blockers, dependants] = [idList(patch.addBlockedBy), idList(patch.addBlocks)];

    const changed = new Set<Task>();
    for (const blocker of blockers) this.link(tasks, blocker, id, changed);
    for (const dependant of dependants) this.link(tasks, id, dependant, changed);
    if (patch.status !== undefined && patch.status !== task.status) {
      this.setStatus(tasks, task, patch.status, changed);
    }
    if (subject !== undefined) task.subject = subject;
    if (description !== undefined) task.description = description;
    if (owner !== undefined) task.owner = owner;
    if (worktree !== undefined) task.worktree = worktree;
    changed.delete(task);
    return changed.add(task);
  }

  /** Every task, by id, for a change to be planned on. */
  private snapshot(): Graph {
    return new Map(this.list().map((task) => [task.id, task]));
  }
  // #endregion board

  // #region status
  /** A status change must be one STATUS_FLOW allows. */
  private checkStatus(task: Task, status: TaskStatus): void {
    if (!STATUSES.includes(status))
      throw new Error(`invalid status "${status}": use ${STATUSES.join(", ")}`);
    if (status !== task.status && !STATUS_FLOW[task.status].includes(status))
      throw new Error(`task ${task.id} is already ${task.status}; it cannot become ${status}`);
  }

  /** Completing a task closes its edges: it leaves every dependant's blockedBy, and a dependant
   *  whose blockedBy becomes empty is unblocked. (Every task that names it is freed, not only those
   *  in its `blocks`: an edge half-written by a crash must not keep a task waiting forever.) */
  private setStatus(tasks: Graph, task: Task, status: TaskStatus, changed: Set<Task>): void {
    if (status !== "pending" && task.blockedBy.length > 0) {
      throw new Error(
        `task ${task.id} is blocked by ${task.blockedBy.map((b) => `#${b}`).join(", ")}: finish those first`,
      );
    }
    task.status = status;
    if (status === "completed") {
      for (const dependant of tasks.values()) {
        if (!dependant.blockedBy.includes(task.id)) continue;
        dependant.blockedBy = dependant.blockedBy.filter((b) => b !== task.id);
        changed.add(dependant);
      }
      task.blocks = [];
    }
    changed.add(task);
  }
  // #endregion status

  // #region edges
  /** Adds the edge "blocker must finish before dependant", on both sides (in memory). */
  private link(tasks: Graph, blockerId: number, dependantId: number, changed: Set<Task>): void {
    if (blockerId === dependantId) throw new Error(`task ${blockerId} cannot block itself`);
    const blocker = find(tasks, blockerId);
    const dependant = find(tasks, dependantId);
    if (blocker.status === "completed") return; // a finished task blocks nothing
    if (dependant.status !== "pending") {
      throw new Error(
        `task ${dependantId} is already ${dependant.status}: it cannot wait for #${blockerId}`,
      );
    }
    const loop = waitPath(tasks, blockerId, dependantId);
    if (loop)
      throw new Error(`that dependency would be a cycle: ${describeCycle([dependantId, ...loop])}`);
    if (!blocker.blocks.includes(dependantId)) blocker.blocks.push(dependantId);
    if (!dependant.blockedBy.includes(blockerId)) dependant.blockedBy.push(blockerId);
    changed.add(blocker).add(dependant);
  }
  // #endregion edges

  // #region lock
  /** Read-modify-write of several task files, one process at a time. The lock names its holder
   *  (chapters/_shared/lock.ts): a lock left by a process that died is taken over, a live one's never. */
  private locked<T>(work: () => T): T {
    return withLock(path.join(this.dir, "board.lock"), work);
  }
  // #endregion lock

  // #region files
  private touch(task: Task): void {
    task.updatedAt = new Date().toISOString();
    this.save(task);
  }

  /** One file per task, written atomically: a reader sees the old task or the new one. */
  private save(task: Task): void {
    writeJsonAtomic(this.path(task.id), task);
  }

  /** A new task file that overwrites nothing: written whole under a temp name, then linked to
   *  `task_<id>.json`. link() fails with EEXIST when another creator got that id first; then we
   *  try the next one. A reader never sees half a file, and no success is ever overwritten. */
  private createFile(fields: Omit<Task, "id">): Task {
    for (let id = Math.max(0, ...this.ids()) + 1; ; id++) {
      if (id > MAX_TASK_ID)
        throw new Error(`the task board ${this.dir} is full (${MAX_TASK_ID} ids used)`);
      const task: Task = { id, ...fields };
      const temp = `${this.path(id)}.${process.pid}.new.tmp`;
      writeFileSync(temp, `${JSON.stringify(task, null, 2)}\n`);
      try {
        linkSync(temp, this.path(id));
        return task;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      } finally {
        rmSync(temp, { force: true });
      }
    }
  }

  /** The ids of the task files on disk. Other names (temp files, the lock) are not tasks. */
  private ids(): number[] {
    return readdirSync(this.dir)
      .flatMap((name) => /^task_([1-9]\d{0,8})\.json$/.exec(name)?.[1] ?? [])
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** A file that is not JSON, or not a task, is a clear error naming the file and what is wrong —
   *  never a crash. */
  private load(file: string, id: number): Task {
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) {
      throw new BrokenStateError(
        `state file ${file} is a folder, not a task file; rename or remove it`,
      );
    }
    const task = readJson<unknown>(file);
    const problem =
      !task || typeof task !== "object" || Array.isArray(task)
        ? "expected a JSON object"
        : taskFileProblem(task, id);
    if (problem)
      throw new BrokenStateError(`state file ${file} is not a task (${problem}); fix or delete it`);
    return task as Task;
  }
  // #endregion files
}

// #region graph
/** The task, or the error a caller sees for a missing one. */
function find(tasks: Graph, id: number): Task {
  const task = tasks.get(checkTaskId(id));
  if (!task) throw new Error(`task ${id} not found`);
  return task;
}

/** The chain of waits from `from` to `to` ([from, ..., to]), or null if `from` never waits for `to`. */
type Graph = Map<number, Task>;

function waitPath(
  tasks: Graph,
  from: number,
  to: number,
  seen = new Set<number>(),
): number[] | null {
  if (from === to) return [to];
  if (seen.has(from)) return null;
  seen.add(from);
  for (const blocker of tasks.get(from)?.blockedBy ?? []) {
    const rest = waitPath(tasks, blocker, to, seen);
    if (rest) return [from, ...rest];
  }
  return null;
}

/** [1, 3, 2, 1] → "#1 waits for #3, which waits for #2, which waits for #1". */
function describeCycle(ids: number[]): string {
  return `#${ids[0]} waits for ${ids
    .slice(1)
    .map((id) => `#${id}`)
    .join(", which waits for ")}`;
}

/** A board written by hand (or by another tool) can hold a graph that never finishes: a task
 *  blocked by itself, by a task that does not exist, or tasks waiting for each other. Such tasks
 *  can never start, so the board reports them in one sentence instead of showing them. */
function checkGraph(dir: string, list: Task[]): void {
  const tasks = new Map(list.map((task) => [task.id, task]));
  const problems: string[] = [];
  for (const { id, blockedBy } of list) {
    for (const blocker of blockedBy) {
      if (blocker === id) problems.push(`task #${id} is blocked by itself`);
      else if (!tasks.has(blocker)) {
        problems.push(`task #${id} is blocked by #${blocker}, which does not exist`);
      }
    }
  }
  const inCycle = new Set<number>();
  for (const task of list) {
    if (inCycle.has(task.id)) continue;
    const others = task.blockedBy.filter((b) => b !== task.id);
    const loop = others.map((b) => waitPath(tasks, b, task.id)).find(Boolean);
    if (!loop) continue;
    loop.forEach((id) => inCycle.add(id));
    problems.push(`tasks wait for each other in a cycle: ${describeCycle([task.id, ...loop])}`);
  }
  if (problems.length === 0) return;
  const shown =
    problems.length > 3 ? [...problems.slice(0, 3), `${problems.length - 3} more`] : problems;
  const what = shown.join("; ");
  throw new BrokenStateError(
    `task board ${dir} is broken: ${what}; fix or delete those task files`,
  );
}
// #endregion graph

// #region checks
const text = (value: unknown, field: string): string => {
  if (typeof value !== "string")
    throw new Error(`${field} must be text, got ${JSON.stringify(value)}`);
  return value;
};
const textOrNull = (value: unknown, field: string): string | null => {
  if (value !== null && typeof value !== "string") {
    throw new Error(`${field} must be text or null, got ${JSON.stringify(value)}`);
  }
  return value;
};
/** A list of ids from a caller: each one checked; a single id counts as a list of one. */
const idList = (value: unknown): number[] =>
  value === undefined || value === null
    ? []
    : (Array.isArray(value) ? value : [value]).map(checkTaskId);

/** What a task file read from disk holds, field by field, before anything is known about it. */
type StoredTask = Partial<Record<keyof Task, unknown>>;
const isIdList = (list: unknown) =>
  Array.isArray(list) && list.every((b) => Number.isInteger(b) && b >= 1 && b <= MAX_TASK_ID);
const isTextOrNull = (value: unknown) => value === null || typeof value === "string";

/** What a task file must hold, one row per rule, checked in order: the first rule it breaks is
 *  the problem reported (a later row may rely on an earlier one, "blocks" being a list). */
const TASK_FILE_RULES: [holds: (task: StoredTask, id: number) => boolean, problem: string][] = [
  [(t) => Number.isInteger(t.id), '"id" must be a whole number'],
  [(t, id) => t.id === id, '"id" must be {id}, the number in its file name'],
  [(t) => typeof t.subject === "string", '"subject" must be text'],
  [
    (t) => STATUSES.includes(t.status as TaskStatus),
    `"status" must be one of ${STATUSES.join(", ")}`,
  ],
  [
    (t) => Array.isArray(t.blockedBy) && Array.isArray(t.blocks),
    '"blockedBy" and "blocks" must be lists',
  ],
  [
    (t) => isIdList(t.blockedBy) && isIdList(t.blocks),
    '"blockedBy" and "blocks" must be lists of task ids',
  ],
  [(t) => typeof t.description === "string", '"description" must be text'],
  [(t) => isTextOrNull(t.owner), '"owner" must be text or null'],
  [(t) => isTextOrNull(t.worktree), '"worktree" must be text or null'],
];

/** The first rule a stored task breaks, or null for a valid task file named `task_<id>.json`. */
function taskFileProblem(task: StoredTask, id: number): string | null {
  const broken = TASK_FILE_RULES.find(([holds]) => !holds(task, id));
  return broken ? broken[1].replace("{id}", String(id)) : null;
}
// #endregion checks

// #region render
/** One task on one line, as a person (or a model) reads it. */
export function taskLine(t: Task): string {
  const notes = [
    t.owner ? `owner: ${t.owner}` : "",
    t.blockedBy.length ? `blocked by ${t.blockedBy.map((b) => `#${b}`).join(", ")}` : "",
    t.worktree ? `lane: ${t.worktree}` : "",
  ].filter(Boolean);
  return `${MARKS[t.status]} #${t.id} ${t.subject}${notes.length ? `  (${notes.join("; ")})` : ""}`;
}

/** A task as the trace records it (the `task` event): what the site's player shows on its board. */
export const taskEvent = (t: Task) => ({
  task: t.id,
  status: t.status,
  subject: t.subject,
  owner: t.owner,
  blockedBy: t.blockedBy,
  lane: t.worktree,
});

export function renderBoard(tasks: Task[]): string {
  if (tasks.length === 0) return "(no tasks yet)";
  const count = (s: TaskStatus) => tasks.filter((t) => t.status === s).length;
  return [
    ...tasks.map(taskLine),
    `${tasks.length} tasks: ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending`,
  ].join("\n");
}
// #endregion render

// #region tools
const idsSchema = { type: "array", items: { type: "integer" } };

export const TASK_TOOLS: Tool[] = [
  {
    name: "task_create",
    description:
      "Create a task on the persistent board. blockedBy = ids of tasks that must be completed first.",
    input_schema: {
      type: "object",
      properties: {
        subject: { type: "string" },
        description: { type: "string" },
        blockedBy: idsSchema,
      },
      required: ["subject"],
    },
  },
  {
    name: "task_get",
    description: "Show one task with all its fields.",
    input_schema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
  },
  {
    name: "task_update",
    description:
      "Change a task: status (pending, in_progress, completed), owner, or add dependencies " +
      "(addBlockedBy: tasks it waits for; addBlocks: tasks that wait for it). Completing a task unblocks its dependants.",
    input_schema: {
      type: "object",
      properties: {
        id: { type: "integer" },
        status: { type: "string", enum: [...STATUSES] },
        owner: { type: "string" },
        addBlockedBy: idsSchema,
        addBlocks: idsSchema,
      },
      required: ["id"],
    },
  },
  {
    name: "task_list",
    description: "Show the whole task board: status, owner and what each task is blocked by.",
    input_schema: { type: "object", properties: {} },
  },
];

/** The handlers pass what the model sent straight to the board, which checks every id and field
 *  before it writes; a refusal comes back to the model as an error result. Each task an answer
 *  shows is also reported to `io` as it now is, for the trace (the player's board). */
export function taskHandlers(
  board: TaskBoard,
  io?: Pick<IO, "event">,
): Record<string, ToolHandler> {
  const shown = <T extends Task | Task[]>(tasks: T): T => {
    for (const t of [tasks].flat()) io?.event("task", taskEvent(t));
    return tasks;
  };
  return {
    task_create({ subject, description, blockedBy, worktree }) {
      const task = board.create({
        subject: String(subject ?? ""),
        description: description as string | undefined,
        blockedBy: blockedBy as number[] | undefined,
        worktree: worktree as string | null | undefined, // a lane: s13's lead may name one
      });
      return `Created task #${shown(task).id}\n${taskLine(task)}`;
    },
    task_get({ id }) {
      return JSON.stringify(board.get(checkTaskId(id)), null, 2);
    },
    task_update({ id, status, owner, addBlockedBy, addBlocks }) {
      const before = board.get(checkTaskId(id));
      const task = board.update(before.id, {
        status: status as TaskStatus | undefined,
        owner:
          owner === undefined ? undefined : owner === null || owner === "" ? null : String(owner),
        addBlockedBy: addBlockedBy as number[] | undefined,
        addBlocks: addBlocks as number[] | undefined,
      });
      // Say what the change set free, so the model sees the graph move.
      const unblocked = before.blocks.filter(
        (d) => !task.blocks.includes(d) && board.get(d).blockedBy.length === 0,
      );
      shown(task);
      const freed = unblocked.map((d) => `\nUnblocked: ${taskLine(shown(board.get(d)))}`).join("");
      return `Updated task #${task.id}\n${taskLine(task)}${freed}`;
    },
    task_list() {
      return renderBoard(shown(board.list()));
    },
  };
}

export const TOOLS: Tool[] = [...BASE_TOOLS, ...TASK_TOOLS];
// #endregion tools

// #region agent
export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  // The board lives beside the workspace, not in the agent: a new agent on the same folder sees it,
  // and the model's commands (which can write only in the workspace) cannot forge it.
  const board = new TaskBoard(path.join(env.stateDir, "tasks"));
  const handlers = { ...BASE_HANDLERS, ...taskHandlers(board, env.io) };
  return {
    messages,
    commands: { "/tasks": { help: "show the task board", run: () => renderBoard(board.list()) } },
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, { system: SYSTEM, tools: TOOLS, handlers }); // s02's loop
    },
  };
}
// #endregion agent
