/**
 * s13 · Agent teams
 *
 * A subagent (s06) lives for one tool call and forgets everything. Real work wants colleagues
 * who stay: several agents with their own conversations, working at the same time, handing
 * results back, and picking up the next piece of work without being told. Three pieces:
 *
 *   1. a message bus: one JSONL mailbox per agent in the harness's state folder, out of the
 *      model's reach (mailbox.ts, the chapter's second lesson, makes it survive crashes);
 *   2. persistent teammates: WORK (their own loop) → post the result to the lead → IDLE; an
 *      idle teammate first waits on its inbox, then claims a ready task from the board (s10)
 *      under a lock that names its holder, so two teammates can never own one task;
 *   3. lanes: a task's `worktree` field picks the teammate's working directory, a git worktree
 *      (s12); only work that succeeded completes the task and clears the assignment.
 *
 * bookkeeping.ts keeps the roster, the clock and "has the team settled?"; extension-points.ts is
 * what s14 and s15 plug in.
 */
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { tryLock } from "../_shared/lock.ts";
import { BASE_HANDLERS, BASE_TOOLS, runTool, type ToolHandler } from "../s02-tool-use/agent.ts";
import { TASK_TOOLS, TaskBoard, taskHandlers, type Task } from "../s10-task-system/agent.ts";
import { checkLaneName, laneWritable } from "../s12-worktree-isolation/agent.ts";
import type { Agent, AgentEnv, Message, MessageParam, Tool } from "../_shared/types.ts";
import type { ToolResultBlockParam } from "../_shared/types.ts";
import {
  lanesFor,
  openLane,
  Roster,
  teamCommands,
  untilSettled,
  outcome,
  withDefaults,
  type Runner,
  type Teammate,
  type Timings,
} from "./bookkeeping.ts";
import { errorLine, plainCall, type TeamOptions } from "./extension-points.ts";
import { MessageBus, Post } from "./mailbox.ts";

export { LIFECYCLE } from "./bookkeeping.ts";

/** The lead's name on the bus: its mailbox is `mailboxes/lead.jsonl` in the state folder. */
export const LEAD = "lead";

const LEAD_SYSTEM = `You lead a small team of coding agents in a shared workspace. Put the work on the
task board (task_create; blockedBy for order; worktree: a lane name when a task should happen in its
own git worktree), start teammates with spawn (a name, a role, a first instruction) and talk to them
with send. Idle teammates claim ready tasks from the board by themselves. Their results arrive in your
mailbox: read it with inbox (wait: true waits until the team is quiet). You have no edit tool:
delegate the real work. When the work is done, summarise it briefly.`;

// #region tools
const leadBase = BASE_TOOLS.filter((tool) => ["bash", "read", "write"].includes(tool.name));

/** task_create gains one field: the lane a task should run in. */
const teamTaskTools: Tool[] = TASK_TOOLS.map((tool) =>
  tool.name !== "task_create"
    ? tool
    : {
        ...tool,
        description: `${tool.description} worktree = a lane name: whoever claims the task works in .worktrees/<name> on branch wt/<name>.`,
        input_schema: {
          ...tool.input_schema,
          properties: { ...(tool.input_schema.properties as object), worktree: { type: "string" } },
        },
      },
);

const SEND_TOOL: Tool = {
  name: "send",
  description: "Send a message to a teammate (or, from a teammate, to the lead) by name.",
  input_schema: {
    type: "object",
    properties: { to: { type: "string" }, content: { type: "string" } },
    required: ["to", "content"],
  },
};

export const LEAD_TOOLS: Tool[] = [
  ...leadBase,
  ...teamTaskTools,
  {
    name: "spawn",
    description:
      "Start a persistent teammate with its own conversation and tools. It works on `prompt` now, " +
      "reports its result to your inbox, then stays idle and claims ready tasks from the board by itself.",
    input_schema: {
      type: "object",
      properties: {
        name: { type: "string", description: "lowercase, e.g. alice" },
        role: { type: "string", description: "what this teammate is for, e.g. backend developer" },
        prompt: { type: "string", description: "its first instruction" },
      },
      required: ["name", "role", "prompt"],
    },
  },
  SEND_TOOL,
  {
    name: "inbox",
    description:
      "Read (and empty) your mailbox: results, idle notices and messages from teammates. " +
      "wait: true first waits until every teammate is idle and no ready task is left unclaimed.",
    input_schema: { type: "object", properties: { wait: { type: "boolean" } } },
  },
];
export const TOOLS = LEAD_TOOLS;

/** A teammate has the full base toolbox and one way to talk: send. No spawning, no task tools. */
export const TEAMMATE_TOOLS: Tool[] = [...BASE_TOOLS, SEND_TOOL];
// #endregion tools

// #region identity
/** Who a teammate is. It opens the teammate's system prompt (and, in s14, its history after a
 *  compaction), so the model never forgets its name, its role or whom it reports to. */
function identityBlock(name: string, role: string): string {
  return `<identity>\nname: ${name}\nrole: ${role}\nteam lead: ${LEAD}\n</identity>`;
}

function teammateSystem(name: string, role: string, instructions: string): string {
  return `${identityBlock(name, role)}
You are ${name}, a ${role} on a coding team led by "${LEAD}". You do not see the lead's
conversation: what you need is in your own messages. Work with your tools; paths are relative to
your working directory. When a piece of work is done, reply with a short summary and no tool call:
the runtime sends it to the lead as your result. Use send only to ask or tell someone something.${instructions ? `\n${instructions}` : ""}`;
}
// #endregion identity

// #region claim
/** Tasks anyone could start now (pending, no owner, nothing blocking), lowest id first. */
export function readyTasks(board: TaskBoard): Task[] {
  return board.list().filter((task) => board.isReady(task));
}

/** Claims a ready task for `owner`, or returns null if someone else got it first. The claim lock
 *  (chapters/_shared/lock.ts) lets exactly one claimer in at a time — even across processes — and
 *  is taken over only from a holder that has died, never from a slow one. Under the lock we look
 *  again, because the task may have been taken since the scan. */
export function claimTask(board: TaskBoard, id: number, owner: string): Task | null {
  const lock = tryLock(`${board.path(id)}.lock`);
  if (!lock) return null; // someone is claiming it right now
  try {
    if (!board.isReady(board.get(id))) return null;
    return board.update(id, { owner, status: "in_progress" });
  } finally {
    lock.release();
  }
}
// #endregion claim

/** The runtime that runs the lead and every teammate. */
export class Team {
  readonly bus: MessageBus;
  private readonly post: Post;
  /** s10's task board, shared by everyone: the lead plans on it, idle teammates claim from it. */
  readonly board: TaskBoard;
  /** s12's lanes, as the lead sees them (a teammate opens its own through lanesFor). */
  readonly lanes: ReturnType<typeof lanesFor>;
  readonly roster: Roster;
  readonly members: Map<string, Teammate>; // everyone ever spawned, by name (the roster's)
  readonly leadHandlers: Record<string, ToolHandler>;
  private readonly limits: Timings;
  private closing = false;

  constructor(
    private readonly env: AgentEnv,
    private readonly options: TeamOptions = {},
  ) {
    this.limits = withDefaults(options);
    // The team's state lives beside the workspace: the model's commands and file tools cannot reach
    // it, so no teammate can forge a message in a mailbox or grab a task by editing its file.
    this.bus = new MessageBus(path.join(env.stateDir, "mailboxes"), env.io);
    this.post = new Post(this.bus, env.io, () => [LEAD, ...this.members.keys()]);
    this.board = new TaskBoard(path.join(env.stateDir, "tasks"));
    this.roster = new Roster(env, LEAD);
    this.members = this.roster.members;
    this.lanes = lanesFor(env, this.board, LEAD);
    const extra = options.lead?.handlers?.(this, LEAD);
    this.leadHandlers = { ...BASE_HANDLERS, ...this.leadTeamHandlers(), ...extra };
  }

  // #region lead
  /** The lead's turn: the same loop as every chapter, with the team's tools. */
  runLead(messages: MessageParam[]): Promise<Message | null> {
    const { tools = [], instructions } = this.options.lead ?? {};
    return this.loop(
      {
        name: LEAD,
        client: this.env.model,
        system: instructions ? `${LEAD_SYSTEM}\n${instructions}` : LEAD_SYSTEM,
        tools: [...LEAD_TOOLS, ...tools],
        handlers: this.leadHandlers,
        root: () => this.env.workspace,
        maxRounds: Infinity,
      },
      messages,
    );
  }

  /** The lead's team tools: s10's task tools (task_create with a lane), spawn, send and inbox. */
  private leadTeamHandlers(): Record<string, ToolHandler> {
    const tasks = taskHandlers(this.board, this.env.io);
    return {
      ...tasks,
      // A lane name must be safe as a folder and as a branch name (s12's check), or absent.
      task_create: ({ worktree, ...input }, context) =>
        tasks.task_create(
          { ...input, worktree: worktree ? checkLaneName(worktree) : null },
          context,
        ),
      spawn: ({ name, role, prompt }) => {
        const member = this.spawn(String(name ?? ""), String(role ?? ""), String(prompt ?? ""));
        return (
          `Spawned ${member.name} (${member.role}). It works on your prompt now; its result will arrive in your inbox. ` +
          "When idle it claims ready tasks from the board by itself."
        );
      },
      send: this.sendTool(LEAD),
      inbox: async ({ wait }) => {
        if (wait === true && !(await this.waitUntilSettled()))
          this.env.io.note("the team is still busy; reading what is there");
        return this.post.read(LEAD) ?? "(no messages)";
      },
    };
  }
  // #endregion lead

  // #region send
  /** Every message goes through the team's post (mailbox.ts): only known names, one line in the
   *  recipient's mailbox, recorded in the trace. */
  readonly send: Post["send"] = (...message) => this.post.send(...message);

  /** The `send` tool, the same for the lead and every teammate. */
  sendTool(from: string): ToolHandler {
    return ({ to, content }) => {
      const message = this.send(from, String(to ?? ""), String(content ?? ""));
      const gone =
        this.members.get(message.to)?.state === "shutdown"
          ? ` — ${message.to} has shut down and reads it only if spawned again`
          : "";
      return `Sent to ${message.to} (${message.id})${gone}`;
    };
  }
  // #endregion send

  // #region loop
  /** s02's loop, for the lead and every teammate: the final reply, or null when the round limit
   *  (or a stop request) cut it short. Calls go through `callModel` (plain unless given one). */
  private async loop(who: Runner, messages: MessageParam[]): Promise<Message | null> {
    const callModel = this.options.callModel ?? plainCall;
    for (let round = 0; round < who.maxRounds; round++) {
      if (who.stopped?.()) return null;
      const response = await callModel(this.env, {
        agent: who.name,
        client: who.client,
        system: who.system,
        tools: who.tools,
        messages,
        identity: who.identity,
      });
      messages.push({ role: "assistant", content: response.content });
      this.env.io.assistant(response, who.name);
      if (response.stop_reason !== "tool_use") return response;

      const results: ToolResultBlockParam[] = [];
      for (const block of response.content) {
        if (block.type !== "tool_use") continue;
        await this.env.io.toolCall(block, who.name);
        const ctx = { root: who.root(), sandbox: this.env.sandbox, writable: who.writable?.() };
        const { output, isError } = await runTool(who.handlers, block, ctx, who.tools);
        this.env.io.toolResult(block, output, isError, who.name);
        results.push({
          type: "tool_result",
          tool_use_id: block.id,
          content: output,
          is_error: isError,
        });
      }
      messages.push({ role: "user", content: results });
    }
    return null;
  }
  // #endregion loop

  // #region spawn
  /** A teammate is a loop of its own, started now and running beside the lead's. */
  spawn(name: string, role: string, prompt: string): Teammate {
    this.roster.checkNewcomer(name, role, prompt);
    if (this.closing) throw new Error("the team is closing; no new teammates");
    const member = this.roster.add(name, role, this.env.modelFor(name));
    member.done = this.live(member, prompt).catch((err: unknown) => {
      this.env.io.note(`crashed: ${err instanceof Error ? err.message : String(err)}`, name);
      this.roster.setState(member, "shutdown");
    });
    return member;
  }

  /** WORK → result → IDLE, until the idle wait runs out or the team closes. */
  private async live(member: Teammate, prompt: string): Promise<void> {
    let next: string | null = prompt;
    while (next !== null) {
      member.messages.push({ role: "user", content: next });
      this.roster.quiet.delete(member.name);
      this.roster.setState(member, "working");
      await this.work(member);
      this.bus.acknowledge(member.name); // its mail is in its conversation now, and that is kept
      next = member.stopRequested || this.closing ? null : await this.idle(member);
    }
    if (this.roster.handingBack.has(member.name)) this.roster.handBack(member, this.board);
    this.roster.setState(member, "shutdown");
  }
  // #endregion spawn

  // #region work
  /** One piece of work. Only success completes the task (which unblocks its dependants, s10) and
   *  frees the teammate; a failure leaves owner, status and lane as they are, for a retry. */
  private async work(member: Teammate): Promise<void> {
    const { tools = [], handlers, instructions = "" } = this.options.teammates ?? {};
    let [ok, summary] = [false, ""];
    try {
      const reply = await this.loop(
        {
          name: member.name,
          client: member.client,
          system: teammateSystem(member.name, member.role, instructions),
          tools: [...TEAMMATE_TOOLS, ...tools],
          handlers: {
            ...BASE_HANDLERS,
            send: this.sendTool(member.name),
            ...handlers?.(this, member),
          },
          root: () => member.cwd,
          writable: () => (member.lane ? laneWritable(this.env.workspace) : []),
          maxRounds: this.limits.maxRounds,
          identity: identityBlock(member.name, member.role),
          stopped: () => member.stopRequested,
        },
        member.messages,
      );
      [ok, summary] = outcome(reply, this.limits.maxRounds);
    } catch (err) {
      summary = `gave up: ${errorLine(err)}`;
    }

    const task = member.task;
    if (member.stopRequested && !ok) return; // stopped on purpose (stop, close): no report
    if (task !== null && ok) {
      this.board.update(task, { status: "completed" });
      this.env.io.event("task_completed", { task, owner: member.name }, member.name);
      this.roster.release(member);
    }
    if (!ok) {
      const keeps = task === null ? "" : ` — keeps task #${task}`;
      this.env.io.note(`${summary.split("\n")[0]}${keeps}`, member.name);
    }
    this.send(member.name, LEAD, summary, "result", { ok, ...(task === null ? {} : { task }) });
  }
  // #endregion work

  // #region idle
  /** IDLE: mail first, then the board. Returns the next user turn, or null to shut down. */
  private async idle(member: Teammate): Promise<string | null> {
    this.roster.setState(member, "idle");
    const since = Date.now();
    const stopping = () => member.stopRequested || this.closing;
    let announced = false;
    while (!stopping()) {
      // 1. The inbox: a message from the lead or a teammate becomes the next user turn.
      const waitUntil = Date.now() + this.limits.idleWaitMs;
      do {
        const mail = this.post.read(member.name);
        if (mail) return mail;
        await sleep(this.limits.pollMs);
      } while (Date.now() < waitUntil && !stopping());
      if (stopping()) break;

      // 2. The board: a ready task, claimed atomically (a teammate that kept a failed task waits for mail).
      if (member.task === null) {
        const next = this.claimNext(member);
        if (next) return next;
      }
      if (!announced) {
        const holding = member.task === null ? "" : ` (still holding task #${member.task})`;
        const notice = `${member.name} is idle${holding}: no messages, no ready tasks.`;
        this.send(member.name, LEAD, notice, "idle");
        this.roster.quiet.add(member.name);
        announced = true;
      }
      const idleFor = Date.now() - since;
      if (idleFor >= this.limits.idleTimeoutMs) {
        const note = `nothing to do for ${Math.round(idleFor / 1000)}s: shutting down`;
        this.env.io.note(note, member.name);
        break;
      }
    }
    return null;
  }

  private claimNext(member: Teammate): string | null {
    let ready: Task[];
    try {
      ready = readyTasks(this.board);
    } catch (err) {
      this.env.io.note(`cannot read the task board: ${(err as Error).message}`, member.name);
      return null;
    }
    for (const candidate of ready) {
      const task = claimTask(this.board, candidate.id, member.name);
      if (task) return this.assign(member, task);
    }
    return null;
  }
  // #endregion idle

  // #region lanes
  /** A claimed task decides where the teammate works: its lane, or the workspace itself. */
  private assign(member: Teammate, task: Task): string | null {
    member.task = task.id;
    let where = "the workspace root";
    if (task.worktree) {
      try {
        member.cwd = openLane(this.env, this.board, member.name, task.worktree);
      } catch (err) {
        // No lane, no work: the task stays claimed and in progress, and the lead hears why.
        const why = (err as Error).message;
        this.env.io.note(`could not open lane "${task.worktree}": ${why}`, member.name);
        const report = `gave up before starting task #${task.id}: no lane (${why})`;
        this.send(member.name, LEAD, report, "result", { ok: false, task: task.id });
        this.roster.save();
        return null;
      }
      member.lane = task.worktree;
      where = `the lane .worktrees/${task.worktree} (a git worktree on branch wt/${task.worktree})`;
    }
    const claimed = { task: task.id, owner: member.name, lane: member.lane };
    this.env.io.event("task_claimed", claimed, member.name);
    const inLane = member.lane ? ` in lane ${member.lane}` : "";
    this.env.io.note(`claimed task #${task.id} "${task.subject}"${inLane}`, member.name);
    this.roster.save();
    return (
      `You claimed task #${task.id}: ${task.subject}\n${task.description}\n\n` +
      `You work in ${where}; your paths are relative to it. When the task is done, reply with a short ` +
      "summary and no tool call: the runtime marks the task completed."
    );
  }
  // #endregion lanes

  /** Polls until the team has settled (bookkeeping.ts); false if it is still busy after `timeoutMs`. */
  waitUntilSettled(timeoutMs = this.limits.settleTimeoutMs): Promise<boolean> {
    return untilSettled(this.roster, this.bus, this.board, timeoutMs, this.limits.pollMs);
  }

  /** Asks a teammate to stop: its loop ends before its next model call. With `handBack`, its task
   *  goes back to the board once it has stopped (for a teammate that leaves for good). */
  stop(name: string, { handBack = false } = {}): void {
    const member = this.members.get(name);
    if (member) member.stopRequested = true;
    if (member && handBack) this.roster.handingBack.add(name);
  }

  /** Let the team finish what it is doing (bounded), then stop every teammate. */
  async close(): Promise<void> {
    if (this.members.size && !(await this.waitUntilSettled()))
      this.env.io.note("teammates are still busy; stopping them");
    this.closing = true;
    for (const name of this.members.keys()) this.stop(name);
    const stopped = Promise.all([...this.members.values()].map((m) => m.done));
    await Promise.race([stopped, sleep(this.limits.settleTimeoutMs, undefined, { ref: false })]);
  }
}

export interface TeamAgent extends Agent {
  team: Team;
}

export function createAgent(env: AgentEnv, options: TeamOptions = {}): TeamAgent {
  const team = new Team(env, options);
  const messages: MessageParam[] = [];
  return {
    team,
    messages,
    commands: teamCommands(team.roster, team.bus, LEAD), // /team and /inbox
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      try {
        await team.runLead(messages);
      } catch (err) {
        // The REPL drops a failed turn, and with it the mail the turn read: hand that mail out again.
        team.bus.putBack(LEAD);
        throw err;
      }
      team.bus.acknowledge(LEAD); // the turn is kept: the mail it read is done with
    },
    close: () => team.close(),
  };
}
