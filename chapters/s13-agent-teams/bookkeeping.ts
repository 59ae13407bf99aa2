/**
 * s13 · Agent teams: the team's bookkeeping
 *
 * What the team keeps track of while agent.ts decides what happens:
 *   - the roster: who is on the team, in which state (LIFECYCLE), on which task and where, saved
 *     to `team/config.json` for people to read, with the REPL's /team and /inbox;
 *   - a task given back to the board by a teammate that leaves for good;
 *   - how a piece of work ended (the result the lead gets);
 *   - the team's clock, the loop's description of who runs it, the lane manager;
 *   - when the team has settled: every teammate idle, nothing left for one to do.
 * Nothing here picks work or talks to a model; it is kept apart so that agent.ts reads as the
 * lesson.
 */
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { writeJsonAtomic } from "../_shared/fsutil.ts";
import type { TaskBoard } from "../s10-task-system/agent.ts";
import { WorktreeManager } from "../s12-worktree-isolation/agent.ts";
import type { ToolHandler } from "../s02-tool-use/agent.ts";
import type {
  Agent,
  AgentEnv,
  Message,
  MessageParam,
  ModelClient,
  Tool,
} from "../_shared/types.ts";
import { formatMessage, type MessageBus } from "./mailbox.ts";

// #region roster
/** One teammate, as the runtime keeps it in memory (the roster below saves a copy for people). */
export interface Teammate {
  name: string;
  role: string;
  state: TeammateState;
  /** The task it works on (claimed, or kept after a failure), or null. */
  task: number | null;
  /** Where its tools act: the workspace, or the lane of its task. */
  cwd: string;
  lane: string | null;
  /** Its own conversation: it starts with its first prompt and never contains the lead's. */
  messages: MessageParam[];
  client: ModelClient;
  stopRequested: boolean;
  /** Settles when the teammate has shut down. */
  done: Promise<void>;
}

/** A teammate's lifecycle: WORK, then IDLE waiting for mail or a ready task, then WORK again;
 *  from either it may shut down, which is final. setState keeps to this table (and the site draws
 *  the chapter's state diagram from it). */
export const LIFECYCLE = {
  working: ["idle", "shutdown"],
  idle: ["working", "shutdown"],
  shutdown: [],
} as const satisfies Record<string, readonly string[]>;
export type TeammateState = keyof typeof LIFECYCLE;

/** Everyone ever spawned, by name (including those that have shut down). Every change of state is
 *  saved to `team/config.json` in the state folder (for /team, and for anyone looking from
 *  outside) and recorded in the trace. */
export class Roster {
  readonly members = new Map<string, Teammate>();
  /** Idle teammates that have looked at the board and found nothing to do. */
  readonly quiet = new Set<string>();
  /** Teammates that give their task back to the board when they stop (Team.stop with handBack). */
  readonly handingBack = new Set<string>();

  constructor(
    private readonly env: AgentEnv,
    private readonly lead: string,
  ) {}

  /** Why `name` cannot join (as spawn's error), or nothing: a name for a mailbox file, not the
   *  lead's, not someone on the team; a role and a first instruction. */
  checkNewcomer(name: string, role: string, prompt: string): void {
    if (!/^[a-z][a-z0-9_-]{0,23}$/.test(name) || name === this.lead) {
      throw new Error(
        `invalid teammate name ${JSON.stringify(name)}: lowercase letters, digits, - and _, not "${this.lead}"`,
      );
    }
    const existing = this.members.get(name);
    if (existing && existing.state !== "shutdown")
      throw new Error(`${name} is already on the team (${existing.state})`);
    if (!role.trim()) throw new Error("a teammate needs a role");
    if (!prompt.trim()) throw new Error("a teammate needs a first instruction (prompt)");
  }

  /** A new teammate on the roster, working, in the workspace root, with an empty conversation. */
  add(name: string, role: string, client: ModelClient): Teammate {
    const member: Teammate = {
      name,
      role: role.trim(),
      state: "working",
      task: null,
      cwd: this.env.workspace,
      lane: null,
      messages: [],
      client,
      stopRequested: false,
      done: Promise.resolve(),
    };
    this.members.set(name, member);
    this.save();
    const started = { name, role: member.role, state: "working", task: null };
    this.env.io.event("member_state", started, name);
    return member;
  }

  setState(member: Teammate, state: TeammateState): void {
    if (member.state === state) return;
    if (!(LIFECYCLE[member.state] as readonly string[]).includes(state))
      throw new Error(`${member.name} is ${member.state}; it cannot become ${state}`);
    member.state = state;
    this.save();
    this.env.io.event("member_state", { name: member.name, state, task: member.task }, member.name);
  }

  /** `team/config.json` in the state folder, written atomically: who is on the team, doing what, where. */
  save(): void {
    const { workspace, stateDir } = this.env;
    writeJsonAtomic(path.join(stateDir, "team", "config.json"), {
      lead: this.lead,
      members: [...this.members.values()].map((m) => ({
        name: m.name,
        role: m.role,
        state: m.state,
        task: m.task,
        lane: m.lane,
        cwd: path.relative(workspace, m.cwd) || ".",
      })),
    });
  }

  /** No task any more: back to the workspace root. */
  release(member: Teammate): void {
    member.task = null;
    member.cwd = this.env.workspace;
    member.lane = null;
    this.save();
  }

  /** A teammate that leaves for good gives its task back: pending, no owner, so another teammate
   *  can claim it (the task keeps its lane, and the lane keeps the work done so far). */
  handBack(member: Teammate, board: TaskBoard): void {
    const id = member.task;
    if (id === null) return;
    const task = board.get(id);
    if (task.owner === member.name && task.status === "in_progress")
      board.update(id, { owner: null, status: "pending" });
    this.env.io.event("task_handed_back", { task: id, owner: member.name }, member.name);
    this.env.io.note(`gave task #${id} back to the board`, member.name);
    this.release(member);
  }

  /** The roster as /team shows it: one line per teammate. */
  render(): string {
    if (this.members.size === 0) return "(no teammates yet)";
    const line = (m: Teammate) =>
      `${m.name.padEnd(10)} ${m.role.padEnd(18)} ${m.state.padEnd(8)} ` +
      `${m.task === null ? "no task" : `task #${m.task}`}${m.lane ? ` (lane ${m.lane})` : ""}`;
    return [...this.members.values()].map(line).join("\n");
  }
}
// #endregion roster

/** How a piece of work ended, as [ok, the result the lead gets]: only a final reply is success;
 *  the round limit (reply null) and a reply cut off at max_tokens are not. */
export function outcome(reply: Message | null, maxRounds: number): [boolean, string] {
  const text = reply?.content
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("\n")
    .trim();
  if (!reply) return [false, `gave up: hit the ${maxRounds}-round limit`];
  if (reply.stop_reason === "max_tokens")
    return [false, `gave up: the answer was cut off (max_tokens)\n${text}`];
  return [true, text || "(done, no summary)"];
}

/** The REPL's commands for people watching the team: the roster, and the lead's unread mail. */
export function teamCommands(roster: Roster, bus: MessageBus, lead: string): Agent["commands"] {
  return {
    "/team": { help: "the roster: each teammate's state and task", run: () => roster.render() },
    "/inbox": {
      help: "the lead's mailbox, without emptying it",
      run: () => bus.peek(lead).map(formatMessage).join("\n") || "(no messages)",
    },
  };
}

/** The team's clock and limits (tests shorten the waits). */
export interface Timings {
  pollMs: number; // how often an idle teammate looks into its mailbox (ms)
  idleWaitMs: number; // how long it waits for mail before it looks at the task board (ms)
  idleTimeoutMs: number; // a teammate with nothing to do for this long shuts down (ms)
  maxRounds: number; // rounds a teammate may take for one piece of work
  settleTimeoutMs: number; // the longest inbox(wait) and close() wait for the team to settle (ms)
}

const DEFAULT_TIMINGS: Timings = {
  pollMs: 50,
  idleWaitMs: 250,
  idleTimeoutMs: 60_000,
  maxRounds: 50,
  settleTimeoutMs: 120_000,
};

/** The timings the options give, the defaults for the others. */
export function withDefaults(options: Partial<Timings>): Timings {
  const given = (key: keyof Timings) => options[key] ?? DEFAULT_TIMINGS[key];
  return {
    pollMs: given("pollMs"),
    idleWaitMs: given("idleWaitMs"),
    idleTimeoutMs: given("idleTimeoutMs"),
    maxRounds: given("maxRounds"),
    settleTimeoutMs: given("settleTimeoutMs"),
  };
}

/** What the loop of agent.ts needs to know about the agent running it. */
export interface Runner {
  name: string;
  client: ModelClient;
  system: string;
  tools: Tool[];
  handlers: Record<string, ToolHandler>;
  root: () => string;
  /** What its commands may write besides root (a lane's repository history). */
  writable?: () => string[];
  maxRounds: number;
  identity?: string;
  stopped?: () => boolean;
}

/** s12's lane manager, with its events and notes recorded under the agent that caused them. */
export function lanesFor(env: AgentEnv, board: TaskBoard, agent: string): WorktreeManager {
  return new WorktreeManager(env.workspace, {
    board,
    onEvent: ({ event, ...data }) => env.io.event(event, data, agent),
    onNote: (text) => env.io.note(text, agent),
    stateDir: env.stateDir,
    sandbox: env.sandbox,
  });
}

/** `.worktrees/<name>` on branch `wt/<name>`, made with s12's manager the first time a teammate
 *  needs it (s12's ensureRepo keeps the team's own folders out of git). */
export function openLane(env: AgentEnv, board: TaskBoard, agent: string, name: string): string {
  const lanes = lanesFor(env, board, agent);
  if (!lanes.list().some((lane) => lane.name === name)) lanes.create(name);
  return lanes.path(name);
}

// #region settle
/** Settled = every live teammate is idle and has looked at the board since its last work, no
 *  mail waits for one, and no ready task waits for a free one. inbox(wait) and close() wait for it. */
export function settled(roster: Roster, bus: MessageBus, board: TaskBoard): boolean {
  const live = [...roster.members.values()].filter((m) => m.state !== "shutdown");
  if (live.some((m) => !roster.quiet.has(m.name) || bus.peek(m.name).length > 0)) return false;
  const free = live.filter((m) => m.task === null);
  try {
    return free.length === 0 || !board.list().some((task) => board.isReady(task));
  } catch {
    return true; // a broken task file: nobody can claim anything until it is fixed
  }
}

/** Polls every `pollMs` until the team has settled; false if it is still busy after `timeoutMs`. */
export async function untilSettled(
  roster: Roster,
  bus: MessageBus,
  board: TaskBoard,
  timeoutMs: number,
  pollMs: number,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!settled(roster, bus, board)) {
    if (Date.now() >= until) return false;
    await sleep(pollMs);
  }
  return true;
}
// #endregion settle
