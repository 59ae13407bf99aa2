/**
 * s12 · Worktree isolation
 *
 * The task board of s10 says *what* to do. It says nothing about *where*: every task edits the
 * same folder, so two pieces of work in flight trample each other's files, and a half-finished
 * change blocks everything else. Git already has the answer: a worktree is a second checkout of
 * the same repository, on its own branch, in its own folder. So:
 *
 *   tasks are the control plane       <state>/tasks/task_<id>.json   (what, who, status, which lane)
 *   worktrees are the lanes           .worktrees/<name>  on branch  wt/<name>
 *
 * A lane is created for a task (the task is bound to it and starts), commands run inside it,
 * and removing it can complete the task. `<state>/lanes/index.json` lists the lanes and
 * `<state>/lanes/events.jsonl` records every step, one JSON line each. <state> is the harness's
 * folder beside the workspace: the model works in the lanes' checkouts, but its commands can
 * write only in the workspace, so it cannot forge the board or the lane index.
 */
import { appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { BrokenStateError, endsMidLine, readJson, writeJsonAtomic } from "../_shared/fsutil.ts";
import type { HarnessEvents } from "../_shared/events.ts";
import { stateDirFor } from "../_shared/paths.ts";
import {
  fallbackIdentity,
  gitRunSurface,
  harnessGitEnv,
  HARNESS_GIT_OPTIONS,
  plantedPointers,
  surfaceChanges,
} from "../_shared/git-guard.ts";
import { ownProgram } from "../_shared/programs.ts";
import { runSandboxedSync, sandboxFor, type Sandbox } from "../_shared/shell.ts";
import { bash } from "../s01-agent-loop/agent.ts";
import {
  agentLoop,
  BASE_HANDLERS,
  BASE_TOOLS,
  readInside,
  safePath,
  writeInside,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import {
  checkTaskId,
  renderBoard,
  TASK_TOOLS,
  TaskBoard,
  taskHandlers,
  taskLine,
} from "../s10-task-system/agent.ts";
import type { Agent, AgentEnv, MessageParam, Tool } from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a git repository (the workspace). Plan work on the task
board. Do each task in its own lane: worktree_create gives the task a separate checkout in
.worktrees/<name> on branch wt/<name> and starts the task; worktree_run runs commands inside the lane;
commit your work there. worktree_remove with complete_task: true closes the lane and completes the task
(its branch keeps the commits, ready to merge). When the work is done, say so briefly.`;

// #region git
/** Where the harness's git runs: a workspace, in the run's sandbox. */
interface GitPlace {
  root: string;
  sandbox: Sandbox;
}

/** Runs git for the harness itself. Everything in `.git` but `config` and `hooks` is writable by
 *  the model's commands (their commits go there), so this git is pinned to what they cannot
 *  change: the repository is named by the harness (`harnessGitEnv`: no `commondir`, no lane
 *  `.git` file is followed), the only config read is your `.git/config` (read-only to commands
 *  and to this git alike), and hooks, fsmonitor and system attributes are off. It runs in the
 *  same sandbox as the model's commands besides. And it is watched: if what decides what git
 *  runs (config, hooks, attributes, pointers) changes while it runs, other than the entry of
 *  the lane it makes or removes, it stops. */
function git(at: GitPlace, ...args: string[]): string {
  return checked(runGit(at, args), args);
}

/** The same, in a lane: git is told the lane's folder and its entry in `.git/worktrees`. */
function laneGit(at: GitPlace, lane: string, ...args: string[]): string {
  return checked(runGit(at, args, lane), args);
}

function checked(
  result: { status: number | null; stdout: string; stderr: string },
  args: string[],
) {
  if (result.status !== 0) {
    const why = result.stderr.trim() || `exit code ${result.status}`;
    throw new Error(`git ${args.find((a) => !a.startsWith("-")) ?? ""} failed: ${why}`);
  }
  return result.stdout.trim();
}

function runGit({ root: workspace, sandbox }: GitPlace, args: string[], lane?: string) {
  const folder = lane ? path.join(workspace, ".worktrees", lane) : undefined;
  const repo = path.join(workspace, ".git");
  const watched = () => gitRunSurface([repo], { onlyWhatRuns: true });
  const before = existsSync(repo) ? watched() : undefined;
  // (`git init`, where there is no repository yet, is told nothing: GIT_WORK_TREE would be
  // written into the new config.)
  const pinned = harnessGitEnv(workspace, lane && folder ? { name: lane, folder } : undefined);
  const { GIT_DIR: _dir, GIT_COMMON_DIR: _common, GIT_WORK_TREE: _tree, ...unpinned } = pinned;
  // git by its full path: a relative PATH entry would find a `git` the model wrote, whose output
  // this harness trusts (what is dirty, what merged).
  const result = runSandboxedSync(ownProgram("git", workspace), [...HARNESS_GIT_OPTIONS, ...args], {
    sandbox,
    cwd: workspace,
    env: { ...(before ? pinned : unpinned), ...fallbackIdentity(before ? [repo] : []) },
  });
  if (before) {
    // A lane's entry (`worktrees/<lane>`, made by `worktree add`, gone after `remove`) is the
    // only such change the harness's git makes.
    const own = (file: string) =>
      args.includes("worktree") && file.startsWith(path.join(repo, "worktrees") + path.sep);
    const unexpected = surfaceChanges(before, watched()).filter((f) => !own(f));
    if (unexpected.length)
      throw new Error(
        `the harness's own git changed ${unexpected.join(", ")} in your repository: stopped (look at it before you run git there)`,
      );
  }
  return result;
}

function succeeds(at: GitPlace, ...args: string[]): boolean {
  try {
    git(at, ...args);
    return true;
  } catch {
    return false;
  }
}

/** Your repository, as the harness's git will read it, or one sentence why lanes cannot use it:
 *  a pointer planted in `.git` (your own git would follow it), or a `.git/config` that reads
 *  other files — includes, or a lane's `config.worktree` — which commands could write. */
function checkRepository(at: GitPlace): void {
  const repo = path.join(at.root, ".git");
  const planted = plantedPointers(repo);
  if (planted.length)
    throw new Error(
      `your repository's .git has ${planted.map((p) => `.git/${p}`).join(" and ")}, a pointer a repository's own .git never has: your git would follow it to another config. Look at it (and remove it) before lanes run here`,
    );
  // (Exit code 1: none of them is set.)
  const reads = runGit(at, [
    "config",
    "--file",
    path.join(repo, "config"),
    "--name-only",
    "--get-regexp",
    "^include\\.path$|^includeif\\..*\\.path$|^extensions\\.worktreeconfig$",
  ]).stdout.trim();
  if (reads)
    throw new Error(
      `your .git/config reads other files (${reads.split("\n").join(", ")}), which commands in the workspace could write: the harness's git reads only .git/config, so lanes do not run here`,
    );
}
/** What a lane's commands may write besides the lane: the repository's history, where their
 *  commits go. The harness names it from its own workspace, never from the lane's `.git` file. */
export const laneWritable = (workspace: string): string[] => [path.join(workspace, ".git")];
// #endregion git

// #region lanes
/** One entry of the lane index (`lanes/index.json` in the state folder). */
export interface Lane {
  name: string;
  /** Relative to the workspace: `.worktrees/<name>`. */
  path: string;
  branch: string;
  taskId: number | null;
  createdAt: string;
}

/** What events.jsonl records about lanes: the harness's lane events (events.ts), one per line. */
export type LaneEventKind =
  "worktree_create" | "task_bound" | "worktree_run" | "task_completed" | "worktree_remove";
export type LaneEvent = {
  [K in LaneEventKind]: { event: K } & Extract<HarnessEvents[K], { worktree: string }>;
}[LaneEventKind];
/** What a lane event says besides its kind, its lane and its time. */
type LaneDetails<K extends LaneEventKind> = Omit<
  Extract<LaneEvent, { event: K }>,
  "event" | "ts" | "worktree"
>;

/** Folders in a workspace that are not part of the project: the lanes' checkouts (here), and the
 *  places where harness state lived before it moved beside the workspace (the task board, the
 *  mailboxes, the team's files, transcripts, memory). None of them goes into the project's history. */
export const HARNESS_STATE = [
  ".worktrees/",
  ".tasks/",
  ".mailboxes/",
  ".team/",
  ".transcripts/",
  ".memory/",
];

/** Lowercase, short, and safe as both a folder name and a branch name. */
export const LANE_NAME = /^[a-z0-9][a-z0-9._-]{0,39}$/;
const RESERVED = new Set(["index.json", "events.jsonl"]);

export function checkLaneName(name: unknown): string {
  const ok =
    typeof name === "string" &&
    LANE_NAME.test(name) &&
    !RESERVED.has(name) &&
    !name.includes("..") &&
    !name.endsWith(".") &&
    !name.endsWith(".lock");
  if (!ok) {
    throw new Error(
      `invalid lane name ${JSON.stringify(name)}: use 1–40 of a-z 0-9 . _ - , starting with a letter or digit`,
    );
  }
  return name;
}

/** What a lane manager is given besides its workspace; a test may leave any of it out. */
export interface LaneOptions {
  /** The task board it binds lanes to tasks on. */
  board?: TaskBoard;
  /** Hears every lane event (the agent puts them in its trace). */
  onEvent?: (event: LaneEvent) => void;
  /** Hears what the manager skipped on its own (a damaged line of events.jsonl). */
  onNote?: (text: string) => void;
  /** The harness's state folder (env.stateDir); by default the one beside the workspace. */
  stateDir?: string;
  /** env.sandbox; by default on, without network. */
  sandbox?: Sandbox;
}

export class WorktreeManager {
  readonly root: string;
  /** The run's sandbox: the lanes' commands and the harness's own git run in it. */
  readonly sandbox: Sandbox;
  /** The lanes' checkouts, in the workspace: the model works in them. */
  readonly dir: string;
  /** The lane index and the event log, in the harness's state folder: only the harness writes them. */
  readonly stateDir: string;
  private readonly indexFile: string;
  private readonly eventsFile: string;

  private readonly board?: TaskBoard;
  private readonly onEvent?: (event: LaneEvent) => void;
  private readonly onNote?: (text: string) => void;

  constructor(workspace: string, options: LaneOptions = {}) {
    this.root = workspace;
    ({ board: this.board, onEvent: this.onEvent, onNote: this.onNote } = options);
    this.sandbox = options.sandbox ?? sandboxFor(workspace);
    this.dir = path.join(workspace, ".worktrees");
    this.stateDir = path.join(options.stateDir ?? stateDirFor(workspace), "lanes");
    this.indexFile = path.join(this.stateDir, "index.json");
    this.eventsFile = path.join(this.stateDir, "events.jsonl");
  }

  /** The workspace must be a git repository of its own, with at least one commit to branch from.
   *  (A workspace inside some other repository gets its own: lanes never touch the outer one.)
   *  Its `.git` must be a real folder: a `.git` file or link would send the harness's git, and
   *  the lanes' commits, to whatever repository it names. */
  ensureRepo(): void {
    const dotGit = lstatSync(path.join(this.root, ".git"), { throwIfNoEntry: false });
    if (dotGit && !dotGit.isDirectory()) {
      throw new Error(
        "the workspace's .git is a file or a link, not a folder (a linked worktree, a submodule or a planted pointer): lanes need the repository's own .git folder",
      );
    }
    const made = !dotGit;
    // A repository we make gets no identity in its config: commits, the model's and the one
    // below, get one in their environment where the config names none (`fallbackIdentity`).
    if (made) git(this, "init", "-q", "-b", "main");
    checkRepository(this);
    // The harness's own state is not part of the project's history (nor of a lane's first commit).
    // Through the jail: an `info/exclude` linked to a file outside is refused, not appended to.
    const exclude = ".git/info/exclude";
    const current = existsSync(path.join(this.root, exclude)) ? readInside(this.root, exclude) : "";
    const missing = HARNESS_STATE.filter((line) => !current.split("\n").includes(line));
    if (missing.length) {
      const sep = current && !current.endsWith("\n") ? "\n" : "";
      writeInside(this.root, exclude, `${current}${sep}${missing.join("\n")}\n`, { intoGit: true });
    }
    if (succeeds(this, "rev-parse", "--verify", "-q", "HEAD")) return;
    // Only a repository the harness made gets a first commit from it. Yours is never committed to.
    if (!made) {
      throw new Error(
        "the repository has no commits yet: make a first commit yourself (lanes branch from it; the harness never commits your files)",
      );
    }
    git(this, "add", "-A");
    git(this, "commit", "-q", "--allow-empty", "-m", "initial commit");
  }

  /** The lane's folder. The name is checked here too, so no caller can build a path out of the lanes. */
  path(name: string): string {
    return path.join(this.dir, checkLaneName(name));
  }

  list(): Lane[] {
    return existsSync(this.indexFile) ? this.readIndex() : [];
  }

  get(name: string): Lane {
    const lane = this.list().find((l) => l.name === name);
    if (!lane)
      throw new Error(
        `no lane named "${name}" (lanes: ${
          this.list()
            .map((l) => l.name)
            .join(", ") || "none"
        })`,
      );
    return lane;
  }
  // #endregion lanes

  // #region create
  /** Folder + branch + index entry, and the task bound to the lane. Checks come first, so a
   *  refused create leaves nothing behind. Synchronous: two agents in one process cannot race. */
  create(name: string, taskId?: number): Lane {
    checkLaneName(name);
    if (this.list().some((l) => l.name === name) || existsSync(this.path(name))) {
      throw new Error(`lane "${name}" already exists`);
    }
    if (taskId !== undefined) this.checkBindable(taskId);
    this.ensureRepo();
    const branch = `wt/${name}`;
    if (succeeds(this, "rev-parse", "--verify", "-q", `refs/heads/${branch}`)) {
      throw new Error(
        `branch ${branch} already exists (work of an earlier lane): merge or delete it, or pick another name`,
      );
    }

    // A `.worktrees` linked outside would put the checkout there: the jail's check refuses it.
    safePath(this.root, path.relative(this.root, this.path(name)));
    // The lane's entry in `.git/worktrees` must be the one git makes now: the harness's git
    // later works on it by name, so one that is already there (planted, or left over) is refused.
    git(this, "worktree", "prune");
    if (existsSync(path.join(this.root, ".git", "worktrees", name)))
      throw new Error(
        `.git/worktrees/${name} already exists without a lane: look at it (git worktree list), remove it, or pick another name`,
      );
    git(this, "worktree", "add", "-q", "-b", branch, this.path(name), "HEAD");
    const lane: Lane = {
      name,
      path: path.relative(this.root, this.path(name)),
      branch,
      taskId: taskId ?? null,
      createdAt: new Date().toISOString(),
    };
    this.saveIndex([...this.list(), lane]);
    this.log("worktree_create", name, { branch, path: lane.path, task: lane.taskId });
    if (taskId !== undefined) this.bindTask(name, taskId);
    return lane;
  }

  /** The binding, on the task's side: the task records its lane and starts. */
  private bindTask(name: string, taskId: number): void {
    this.board!.update(taskId, { worktree: name, status: "in_progress" });
    this.log("task_bound", name, { task: taskId });
  }

  private checkBindable(taskId: number): void {
    if (!this.board) throw new Error("this manager has no task board to bind tasks from");
    const task = this.board.get(taskId);
    if (task.status === "completed") throw new Error(`task #${taskId} is already completed`);
    if (task.worktree) throw new Error(`task #${taskId} already has the lane "${task.worktree}"`);
    if (task.blockedBy.length) {
      throw new Error(
        `task #${taskId} is blocked by ${task.blockedBy.map((b) => `#${b}`).join(", ")}: it cannot start yet`,
      );
    }
  }
  // #endregion create

  // #region run
  /** A command inside the lane: its cwd is the lane's folder, so it sees (and commits on) wt/<name>. */
  async run(name: string, command: string): Promise<{ output: string; isError: boolean }> {
    const lane = this.get(name);
    const cwd = this.path(lane.name);
    if (!existsSync(cwd)) throw new Error(`the folder of lane "${name}" is missing (${lane.path})`);
    const result = await bash(command, cwd, this.sandbox, { writable: laneWritable(this.root) });
    this.log("worktree_run", name, { command, ok: !result.isError });
    return result;
  }
  // #endregion run

  // #region remove
  /** Closes a lane. Uncommitted work is never thrown away silently: that needs `force`.
   *  The branch stays, so committed work can still be merged. */
  remove(
    name: string,
    { force = false, completeTask = false }: { force?: boolean; completeTask?: boolean } = {},
  ): Lane {
    const lane = this.get(name);
    const cwd = this.path(name);
    checkRepository(this);
    const changes = existsSync(cwd) ? laneGit(this, lane.name, "status", "--porcelain") : "";
    if (changes && !force) {
      const count = changes.split("\n").length;
      throw new Error(
        `lane "${name}" has ${count} uncommitted change(s): commit them in the lane, or remove with force: true to discard them`,
      );
    }
    if (completeTask && (lane.taskId === null || !this.board))
      throw new Error(`lane "${name}" has no task to complete`);

    // The task first: if it cannot be completed (say it is blocked), the lane is still there.
    this.releaseTask(lane, completeTask);
    // Clean or not was decided above, by the harness's own status: git's own check would start a
    // git in every nested repository of the lane, with that repository's config.
    if (existsSync(cwd)) git(this, "worktree", "remove", "--force", cwd);
    git(this, "worktree", "prune");
    this.saveIndex(this.list().filter((l) => l.name !== name));
    this.log("worktree_remove", name, {
      branch: lane.branch,
      force,
      discarded: force && changes ? changes.split("\n").length : 0,
    });
    return lane;
  }

  /** The lane's task is unbound (it runs in no lane any more) and, with completeTask, completed. */
  private releaseTask(lane: Lane, completeTask: boolean): void {
    if (lane.taskId === null || !this.board) return;
    this.board.update(lane.taskId, {
      worktree: null,
      ...(completeTask ? { status: "completed" as const } : {}),
    });
    if (completeTask) this.log("task_completed", lane.name, { task: lane.taskId });
  }
  // #endregion remove

  // #region files
  /** Uncommitted changes in a lane, as `git status --porcelain` lines. */
  changes(name: string): string[] {
    const lane = this.get(name);
    checkRepository(this);
    const out = laneGit(this, lane.name, "status", "--porcelain");
    return out ? out.split("\n") : [];
  }

  /** The history, oldest first. A line that is not an event (say, the last one, cut off by a crash)
   *  is skipped with a note: one damaged line must not hide the rest of the history. */
  events(): LaneEvent[] {
    if (!existsSync(this.eventsFile)) return [];
    const events: LaneEvent[] = [];
    for (const [i, line] of readFileSync(this.eventsFile, "utf8").split("\n").entries()) {
      if (!line.trim()) continue;
      let entry: LaneEvent | undefined;
      try {
        entry = JSON.parse(line) as LaneEvent;
      } catch {
        // not JSON: skipped below
      }
      if (entry && typeof entry.event === "string" && typeof entry.worktree === "string")
        events.push(entry);
      else this.onNote?.(`skipped a malformed line in ${this.eventsFile} (line ${i + 1})`);
    }
    return events;
  }

  private saveIndex(lanes: Lane[]): void {
    writeJsonAtomic(this.indexFile, { lanes });
  }

  /** The index as saveIndex wrote it. Valid JSON of another shape (a hand edit, another tool's file)
   *  is a clear error naming the file and the problem, not a TypeError somewhere later. */
  private readIndex(): Lane[] {
    const index = readJson<{ lanes?: unknown } | null>(this.indexFile);
    const broken = (problem: string) =>
      new BrokenStateError(
        `state file ${this.indexFile} is not a lane index (${problem}); fix or delete it`,
      );
    if (!index || typeof index !== "object" || !Array.isArray(index.lanes))
      throw broken('expected {"lanes": [...]}');
    index.lanes.forEach((lane: Partial<Record<keyof Lane, unknown>> | null, i) => {
      const ok =
        lane &&
        typeof lane === "object" &&
        typeof lane.name === "string" &&
        typeof lane.path === "string" &&
        typeof lane.branch === "string" &&
        (lane.taskId === null || Number.isInteger(lane.taskId));
      if (!ok)
        throw broken(`lane ${i + 1} needs a name, path, branch and a taskId (a number or null)`);
    });
    return index.lanes as Lane[];
  }

  /** Append-only: one JSON object per line, so the log survives a crash mid-write. If a crash cut
   *  the last line short, the next entry starts on a line of its own instead of gluing onto it. */
  private log<K extends LaneEventKind>(event: K, worktree: string, details: LaneDetails<K>): void {
    // (TypeScript cannot follow K through the spread; each call's details are checked against K.)
    const entry = {
      ts: new Date().toISOString(),
      event,
      worktree,
      ...details,
    } as unknown as LaneEvent;
    mkdirSync(this.stateDir, { recursive: true });
    appendFileSync(
      this.eventsFile,
      `${endsMidLine(this.eventsFile) ? "\n" : ""}${JSON.stringify(entry)}\n`,
    );
    this.onEvent?.(entry);
  }
  // #endregion files
}

// #region tools
export const WORKTREE_TOOLS: Tool[] = [
  {
    name: "worktree_create",
    description:
      "Create a lane: a git worktree in .worktrees/<name> on a new branch wt/<name>. " +
      "With task_id, the task is bound to the lane and set in_progress. Names: a-z 0-9 . _ - (max 40).",
    input_schema: {
      type: "object",
      properties: { name: { type: "string" }, task_id: { type: "integer" } },
      required: ["name"],
    },
  },
  {
    name: "worktree_list",
    description: "List the lanes: folder, branch, bound task and uncommitted changes.",
    input_schema: { type: "object", properties: {} },
  },
  {
    name: "worktree_run",
    description: "Run a shell command inside a lane (its folder is the working directory).",
    input_schema: {
      type: "object",
      properties: { name: { type: "string" }, command: { type: "string" } },
      required: ["name", "command"],
    },
  },
  {
    name: "worktree_remove",
    description:
      "Remove a lane (its branch keeps the commits). Uncommitted changes need force: true. " +
      "complete_task: true also completes the bound task.",
    input_schema: {
      type: "object",
      properties: {
        name: { type: "string" },
        force: { type: "boolean" },
        complete_task: { type: "boolean" },
      },
      required: ["name"],
    },
  },
];

export function worktreeHandlers(
  lanes: WorktreeManager,
  board: TaskBoard,
): Record<string, ToolHandler> {
  return {
    worktree_create({ name, task_id }) {
      const taskId = task_id === undefined || task_id === null ? undefined : checkTaskId(task_id);
      const lane = lanes.create(String(name ?? ""), taskId);
      const bound = lane.taskId === null ? "" : `\nBound ${taskLine(board.get(lane.taskId))}`;
      return `Created lane "${lane.name}" at ${lane.path} on branch ${lane.branch}${bound}`;
    },
    worktree_list() {
      const all = lanes.list();
      if (all.length === 0) return "(no lanes)";
      return all
        .map((l) => {
          const changes = lanes.changes(l.name).length;
          return (
            `${l.name}  ${l.path}  ${l.branch}  ${l.taskId === null ? "no task" : `task #${l.taskId}`}  ` +
            (changes ? `${changes} uncommitted change(s)` : "clean")
          );
        })
        .join("\n");
    },
    async worktree_run({ name, command }) {
      if (typeof command !== "string" || !command.trim())
        throw new Error("command must be a non-empty string");
      const { output, isError } = await lanes.run(String(name ?? ""), command);
      if (isError) throw new Error(output.replace(/^Error: /, ""));
      return output;
    },
    worktree_remove({ name, force, complete_task }) {
      const lane = lanes.remove(String(name ?? ""), {
        force: force === true,
        completeTask: complete_task === true,
      });
      const task = lane.taskId === null ? "" : `\nTask: ${taskLine(board.get(lane.taskId))}`;
      return `Removed lane "${lane.name}"; branch ${lane.branch} keeps its commits${task}`;
    },
  };
}

export const TOOLS: Tool[] = [...BASE_TOOLS, ...TASK_TOOLS, ...WORKTREE_TOOLS];
// #endregion tools

// #region agent
export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  // The board and the lane index live in the harness's state folder; the lanes' checkouts in the workspace.
  const board = new TaskBoard(path.join(env.stateDir, "tasks"));
  // Every lane event also goes to the trace, so the player can show lanes opening and closing.
  const lanes = new WorktreeManager(env.workspace, {
    board,
    onEvent: ({ event, ...data }) => env.io.event(event, data),
    onNote: (text) => env.io.note(text),
    stateDir: env.stateDir,
    sandbox: env.sandbox,
  });
  const handlers = {
    ...BASE_HANDLERS,
    ...taskHandlers(board, env.io),
    ...worktreeHandlers(lanes, board),
  };
  return {
    messages,
    commands: {
      "/tasks": { help: "show the task board", run: () => renderBoard(board.list()) },
      "/lanes": {
        help: "list the worktree lanes",
        run: () => handlers.worktree_list({}, { root: env.workspace, sandbox: env.sandbox }),
      },
    },
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, { system: SYSTEM, tools: TOOLS, handlers }); // s02's loop
    },
  };
}
// #endregion agent
