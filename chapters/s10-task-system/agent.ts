/**
 * s10 · A task system
 *
 * A todo list (s03) lives inside one conversation: it forgets everything when the session ends,
 * it has no order ("B needs A first"), and nobody else can see it. Real work outlives a session
 * and, from s12 on, is shared by several agents. So the plan moves to disk: one JSON file per
 * task in `.tasks/`, linked into a graph by `blockedBy` / `blocks`.
 *
 *   pending ──► in_progress ──► completed        completing a task unblocks the tasks it blocked
 *
 * The board is a small class with no model in it; later chapters (worktrees, teams) import it.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { BASE_HANDLERS, BASE_TOOLS, normalizeMessages, runTool, type ToolHandler } from "../s02-tool-use/agent.ts";
import { BrokenStateError, readJson, writeJsonAtomic } from "../_shared/fsutil.ts";
import type { Agent, AgentEnv, MessageParam, Tool, ToolResultBlockParam } from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files; paths are relative to the workspace. For work with several steps, keep a task board:
create one task per step, link a step to the steps it needs with blockedBy, set a task in_progress
when you start it and completed when it is done. The board is saved on disk and outlives this
conversation, so look at it (task_list) before you plan. When the work is done, say so briefly.`;

// #region task
export type TaskStatus = "pending" | "in_progress" | "completed";
export const STATUSES: readonly TaskStatus[] = ["pending", "in_progress", "completed"];

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
// #endregion task

// #region board
export class TaskBoard {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  path(id: number): string {
    return path.join(this.dir, `task_${id}.json`);
  }

  /** Every task on disk, by id. There is no cache: another agent may have written since we last
   *  looked, and the files are the truth. */
  list(): Task[] {
    return readdirSync(this.dir)
      .flatMap((name) => (/^task_\d+\.json$/.test(name) ? [this.load(path.join(this.dir, name))] : []))
      .sort((a, b) => a.id - b.id);
  }

  get(id: number): Task {
    const file = this.path(id);
    if (!existsSync(file)) throw new Error(`task ${id} not found`);
    return this.load(file);
  }

  create(input: { subject: string; description?: string; blockedBy?: number[]; worktree?: string | null }): Task {
    const subject = String(input.subject ?? "").trim();
    if (!subject) throw new Error("a task needs a subject");
    for (const blocker of input.blockedBy ?? []) this.get(blocker); // fail before writing anything
    // The next id is one past the highest on disk, so numbering continues after a restart.
    // Everything here is synchronous, so two agents in one process cannot grab the same id.
    const id = Math.max(0, ...this.list().map((t) => t.id)) + 1;
    const now = new Date().toISOString();
    const task: Task = {
      id, subject, description: String(input.description ?? ""), status: "pending", owner: null,
      blockedBy: [], blocks: [], worktree: input.worktree ?? null, createdAt: now, updatedAt: now,
    };
    this.save(task);
    return input.blockedBy?.length ? this.update(id, { addBlockedBy: input.blockedBy }) : task;
  }

  /** Checks first, then edges, then the status move, then plain fields. */
  update(
    id: number,
    patch: {
      status?: TaskStatus; owner?: string | null; addBlockedBy?: number[]; addBlocks?: number[];
      worktree?: string | null; subject?: string; description?: string;
    },
  ): Task {
    const before = this.get(id);
    if (patch.status !== undefined) this.checkStatus(before, patch.status); // nothing is written yet
    for (const blocker of patch.addBlockedBy ?? []) this.link(blocker, id);
    for (const dependant of patch.addBlocks ?? []) this.link(id, dependant);
    if (patch.status !== undefined && patch.status !== before.status) this.setStatus(id, patch.status);

    const task = this.get(id);
    if (patch.subject !== undefined) task.subject = String(patch.subject);
    if (patch.description !== undefined) task.description = String(patch.description);
    if (patch.owner !== undefined) task.owner = patch.owner;
    if (patch.worktree !== undefined) task.worktree = patch.worktree;
    this.touch(task);
    return task;
  }

  /** Ready = someone could start it now: pending, nobody owns it, nothing blocks it. */
  isReady(task: Task): boolean {
    return task.status === "pending" && !task.owner && task.blockedBy.length === 0;
  }
  // #endregion board

  // #region status
  /** pending → in_progress → completed. A task may go back from in_progress to pending (handed
   *  back), but completed is final. */
  private checkStatus(task: Task, status: TaskStatus): void {
    if (!STATUSES.includes(status)) throw new Error(`invalid status "${status}": use ${STATUSES.join(", ")}`);
    if (task.status === "completed" && status !== "completed") throw new Error(`task ${task.id} is already completed`);
  }

  /** Completing a task closes its edges: it leaves every dependant's blockedBy, and a dependant
   *  whose blockedBy becomes empty is unblocked. */
  private setStatus(id: number, status: TaskStatus): void {
    const task = this.get(id);
    if (status !== "pending" && task.blockedBy.length > 0) {
      throw new Error(`task ${id} is blocked by ${task.blockedBy.map((b) => `#${b}`).join(", ")}: finish those first`);
    }
    task.status = status;
    if (status === "completed") {
      for (const dependantId of task.blocks) {
        const dependant = this.get(dependantId);
        dependant.blockedBy = dependant.blockedBy.filter((b) => b !== id);
        this.touch(dependant);
      }
      task.blocks = [];
    }
    this.touch(task);
  }
  // #endregion status

  // #region edges
  /** Adds the edge "blocker must finish before dependant", on both sides. */
  private link(blockerId: number, dependantId: number): void {
    if (blockerId === dependantId) throw new Error(`task ${blockerId} cannot block itself`);
    const blocker = this.get(blockerId);
    const dependant = this.get(dependantId);
    if (blocker.status === "completed") return; // a finished task blocks nothing
    if (dependant.status !== "pending") {
      throw new Error(`task ${dependantId} is already ${dependant.status}: it cannot wait for #${blockerId}`);
    }
    if (this.waitsFor(blockerId, dependantId)) {
      throw new Error(`#${blockerId} already waits for #${dependantId}: that dependency would be a cycle`);
    }
    if (!blocker.blocks.includes(dependantId)) blocker.blocks.push(dependantId);
    if (!dependant.blockedBy.includes(blockerId)) dependant.blockedBy.push(blockerId);
    this.touch(blocker);
    this.touch(dependant);
  }

  /** Does task `from` (transitively) wait for task `to`? A cycle would block both forever. */
  private waitsFor(from: number, to: number, seen = new Set<number>()): boolean {
    if (from === to) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return this.get(from).blockedBy.some((b) => this.waitsFor(b, to, seen));
  }
  // #endregion edges

  // #region files
  private touch(task: Task): void {
    task.updatedAt = new Date().toISOString();
    this.save(task);
  }

  /** One file per task, written atomically: a reader sees the old task or the new one. */
  private save(task: Task): void {
    writeJsonAtomic(this.path(task.id), task);
  }

  /** A file that is not JSON, or not a task, is a clear error naming the file and what is wrong —
   *  never a crash. */
  private load(file: string): Task {
    const task = readJson<Partial<Record<keyof Task, unknown>> | null>(file);
    const problem =
      !task || typeof task !== "object" || Array.isArray(task) ? "expected a JSON object" :
      !Number.isInteger(task.id) ? '"id" must be a whole number' :
      typeof task.subject !== "string" ? '"subject" must be text' :
      !STATUSES.includes(task.status as TaskStatus) ? `"status" must be one of ${STATUSES.join(", ")}` :
      !Array.isArray(task.blockedBy) || !Array.isArray(task.blocks) ? '"blockedBy" and "blocks" must be lists' : null;
    if (problem) throw new BrokenStateError(`state file ${file} is not a task (${problem}); fix or delete it`);
    return task as Task;
  }
  // #endregion files
}

// #region render
const MARKS: Record<TaskStatus, string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };

/** One task on one line, as a person (or a model) reads it. */
export function taskLine(t: Task): string {
  const notes = [
    t.owner ? `owner: ${t.owner}` : "",
    t.blockedBy.length ? `blocked by ${t.blockedBy.map((b) => `#${b}`).join(", ")}` : "",
    t.worktree ? `lane: ${t.worktree}` : "",
  ].filter(Boolean);
  return `${MARKS[t.status]} #${t.id} ${t.subject}${notes.length ? `  (${notes.join("; ")})` : ""}`;
}

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
const idList = { type: "array", items: { type: "integer" } };

export const TASK_TOOLS: Tool[] = [
  {
    name: "task_create",
    description: "Create a task on the persistent board. blockedBy = ids of tasks that must be completed first.",
    input_schema: {
      type: "object",
      properties: { subject: { type: "string" }, description: { type: "string" }, blockedBy: idList },
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
    description: "Change a task: status (pending, in_progress, completed), owner, or add dependencies " +
      "(addBlockedBy: tasks it waits for; addBlocks: tasks that wait for it). Completing a task unblocks its dependants.",
    input_schema: {
      type: "object",
      properties: {
        id: { type: "integer" },
        status: { type: "string", enum: [...STATUSES] },
        owner: { type: "string" },
        addBlockedBy: idList,
        addBlocks: idList,
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

const taskId = (value: unknown): number => {
  const id = Number(value);
  if (!Number.isInteger(id) || id < 1) throw new Error(`task id must be a positive whole number, got ${JSON.stringify(value)}`);
  return id;
};
const taskIds = (value: unknown): number[] | undefined =>
  value === undefined ? undefined : (Array.isArray(value) ? value : [value]).map(taskId);

export function taskHandlers(board: TaskBoard): Record<string, ToolHandler> {
  return {
    task_create({ subject, description, blockedBy }) {
      const task = board.create({
        subject: String(subject ?? ""), description: description as string | undefined, blockedBy: taskIds(blockedBy),
      });
      return `Created task #${task.id}\n${taskLine(task)}`;
    },
    task_get({ id }) {
      return JSON.stringify(board.get(taskId(id)), null, 2);
    },
    task_update({ id, status, owner, addBlockedBy, addBlocks }) {
      const before = board.get(taskId(id));
      const task = board.update(before.id, {
        status: status as TaskStatus | undefined,
        owner: owner === undefined ? undefined : owner === null || owner === "" ? null : String(owner),
        addBlockedBy: taskIds(addBlockedBy),
        addBlocks: taskIds(addBlocks),
      });
      // Say what the change set free, so the model sees the graph move.
      const unblocked = before.blocks.filter((d) => !task.blocks.includes(d) && board.get(d).blockedBy.length === 0);
      const freed = unblocked.map((d) => `\nUnblocked: ${taskLine(board.get(d))}`).join("");
      return `Updated task #${task.id}\n${taskLine(task)}${freed}`;
    },
    task_list() {
      return renderBoard(board.list());
    },
  };
}

export const TOOLS: Tool[] = [...BASE_TOOLS, ...TASK_TOOLS];
// #endregion tools

// #region loop
export async function agentLoop(env: AgentEnv, messages: MessageParam[], handlers: Record<string, ToolHandler>): Promise<void> {
  for (;;) {
    const response = await env.model.messages.create({
      model: env.modelId, system: SYSTEM, messages: normalizeMessages(messages), tools: TOOLS, max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") return;

    const results: ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { output, isError } = await runTool(handlers, block, { root: env.workspace });
      env.io.toolResult(block, output, isError);
      results.push({ type: "tool_result", tool_use_id: block.id, content: output, is_error: isError });
    }
    messages.push({ role: "user", content: results });
  }
}
// #endregion loop

export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  // The board lives in the workspace, not in the agent: a new agent on the same folder sees it.
  const board = new TaskBoard(path.join(env.workspace, ".tasks"));
  const handlers = { ...BASE_HANDLERS, ...taskHandlers(board) };
  return {
    messages,
    commands: { "/tasks": { help: "show the task board", run: () => renderBoard(board.list()) } },
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, handlers);
    },
  };
}
