/**
 * s13 · Agent teams
 *
 * A subagent (s06) lives for one tool call and forgets everything. Real work wants colleagues
 * who stay: several agents with their own conversations, working at the same time, handing
 * results back, and picking up the next piece of work without being told. Three pieces:
 *
 *   1. a message bus: one JSONL mailbox per agent in the harness's state folder (beside the
 *      workspace, out of the model's reach) — send appends one line; a reader takes the mail into a
 *      pending file and acknowledges it only once the turn that read it is kept;
 *   2. persistent teammates: WORK (their own loop) → post the result to the lead → IDLE;
 *      an idle teammate first waits on its inbox, then claims a ready task from the board (s10)
 *      under a lock that names its holder (chapters/_shared/lock.ts), so two teammates can never
 *      own one task;
 *   3. lanes: a task's `worktree` field picks the teammate's working directory — a git worktree
 *      (s12) in `.worktrees/<name>` on branch `wt/<name>` — and the runtime completes the task
 *      and clears the assignment only after the work succeeded.
 *
 * s14 (error recovery) and s15 (protocols) build on this runtime. What they plug in is gathered
 * at the end of the file, in the region `extension-points`.
 */
import { APIError } from "@anthropic-ai/sdk/core/error";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { endsMidLine, writeFileAtomic, writeJsonAtomic } from "../_shared/fsutil.ts";
import { running, tryLock, withLock } from "../_shared/lock.ts";
import {
  BASE_HANDLERS,
  BASE_TOOLS,
  normalizeMessages,
  runTool,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import { TASK_TOOLS, TaskBoard, taskHandlers, type Task } from "../s10-task-system/agent.ts";
import { checkLaneName, laneWritable, WorktreeManager } from "../s12-worktree-isolation/agent.ts";
import type {
  Agent,
  AgentEnv,
  IO,
  Message,
  MessageParam,
  ModelClient,
  Tool,
  ToolResultBlockParam,
} from "../_shared/types.ts";

/** The lead's name on the bus: its mailbox is `mailboxes/lead.jsonl` in the state folder. */
export const LEAD = "lead";

const LEAD_SYSTEM = `You lead a small team of coding agents in a shared workspace. Put the work on the
task board (task_create; blockedBy for order; worktree: a lane name when a task should happen in its
own git worktree), start teammates with spawn (a name, a role, a first instruction) and talk to them
with send. Idle teammates claim ready tasks from the board by themselves. Their results arrive in your
mailbox: read it with inbox (wait: true waits until the team is quiet). You have no edit tool:
delegate the real work. When the work is done, summarise it briefly.`;

// #region bus
/** One line of a mailbox. Protocol chapters add fields (a `request_id`, an `approve` flag). */
export interface TeamMessage {
  id: string;
  type: string; // "message" | "result" | "idle" | a protocol's own type
  from: string;
  to: string;
  content: string;
  ts: string;
  [field: string]: unknown;
}

/** This process as a mail reader. Mail it has taken but not yet acknowledged waits in files named
 *  after it, so a reader started later can tell a dead reader's mail from a live one's. */
const READER = `${process.pid}.${randomBytes(4).toString("hex")}`;
let takes = 0;

/** Mailboxes on disk, in the harness's state folder (out of the model's reach):
 *    <name>.jsonl                     new mail; a send appends one JSON line
 *    <name>.<stamp>.<reader>.pending  mail a reader has taken and not yet acknowledged
 *    <name>.dead.jsonl                lines that were not messages
 *  Files, not memory, so any process can write to any agent, and nothing is lost if the reader is
 *  busy, killed, or its turn fails. A message leaves the disk only when its reader acknowledges it. */
export class MessageBus {
  private count = 0;
  /** Pending files this reader has handed out and not yet acknowledged, per mailbox. */
  private readonly handedOut = new Map<string, Set<string>>();

  constructor(
    readonly dir: string,
    private readonly io?: Pick<IO, "note">,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  file(name: string): string {
    return path.join(this.dir, `${name}.jsonl`);
  }

  /** One message = one line, appended while holding the mailbox's lock. A sender killed mid-write
   *  leaves a line without its newline: ours then starts on a line of its own, so only the torn
   *  fragment becomes a dead letter, never the message after it. */
  send(
    from: string,
    to: string,
    content: string,
    type = "message",
    extra: Record<string, unknown> = {},
  ): TeamMessage {
    const id = `msg_${Date.now().toString(36)}_${process.pid}_${++this.count}`;
    const ts = new Date().toISOString();
    const message: TeamMessage = { id, type, from, to, content, ts, ...extra };
    const file = this.file(to);
    withLock(`${file}.lock`, () =>
      appendFileSync(file, `${endsMidLine(file) ? "\n" : ""}${JSON.stringify(message)}\n`),
    );
    return message;
  }

  /** New mail for `name`, oldest first. The mailbox file is renamed to a pending file of this reader
   *  (under the lock: a send's append never lands in a file already read) and read from there. It
   *  stays on disk until acknowledge(); a dead reader's pending files are taken over and read again. */
  receive(name: string): TeamMessage[] {
    this.adoptOrphans(name);
    const stamp = `${Date.now()}-${String(++takes).padStart(6, "0")}`;
    const pending = this.pendingPath(name, stamp, READER);
    try {
      withLock(`${this.file(name)}.lock`, () => renameSync(this.file(name), pending));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; // ENOENT: no new mail
    }
    const handed = this.handedOut.get(name) ?? new Set<string>();
    this.handedOut.set(name, handed);
    const fresh = this.pendingFiles(name).filter((f) => f.reader === READER && !handed.has(f.path));
    for (const file of fresh) handed.add(file.path);
    return fresh.flatMap((file) => this.readPending(name, file.path));
  }

  /** The turn that read this mail was kept: the mail is done with, delete it. */
  acknowledge(name: string): void {
    for (const file of this.handedOut.get(name) ?? []) rmSync(file, { force: true });
    this.handedOut.delete(name);
  }

  /** The turn that read this mail was dropped: the next receive() hands it out again. */
  putBack(name: string): void {
    this.handedOut.delete(name);
  }

  /** receive() and acknowledge() at once, for a reader with no turn to lose. */
  drain(name: string): TeamMessage[] {
    const messages = this.receive(name);
    this.acknowledge(name);
    return messages;
  }

  /** Mail not yet handed out, without taking it (the REPL's /inbox, the team's "anything unread?"). */
  peek(name: string): TeamMessage[] {
    const handed = this.handedOut.get(name);
    const waiting = this.pendingFiles(name).filter((f) => !handed?.has(f.path));
    const files = [...waiting.map((f) => f.path), this.file(name)];
    return files.flatMap((file) => this.parse(name, readIfThere(file)).messages);
  }

  private pendingPath(name: string, stamp: string, reader: string): string {
    return path.join(this.dir, `${name}.${stamp}.${reader}.pending`);
  }

  /** `<name>.<stamp>.<reader>.pending` files; stamps sort in the order mail was taken. */
  private pendingFiles(name: string): { path: string; stamp: string; reader: string }[] {
    const pattern = new RegExp(`^${name}\\.(\\d+-\\d+)\\.(\\d+\\.[0-9a-f]+)\\.pending$`);
    return readdirSync(this.dir)
      .sort()
      .flatMap((file) => {
        const match = pattern.exec(file);
        return match
          ? [{ path: path.join(this.dir, file), stamp: match[1], reader: match[2] }]
          : [];
      });
  }

  /** Pending mail of a reader whose process is gone becomes ours. A rename moves each file once:
   *  of two readers adopting at the same moment, one gets it and the other finds it gone. */
  private adoptOrphans(name: string): void {
    for (const file of this.pendingFiles(name)) {
      if (file.reader === READER || running(file.reader)) continue;
      try {
        renameSync(file.path, this.pendingPath(name, file.stamp, READER));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; // another reader got it
      }
    }
  }

  /** A pending file's messages. Malformed lines are moved to the dead letters once, with a note, and
   *  the file rewritten without them: one bad writer must not take the reader or other mail down. */
  private readPending(name: string, file: string): TeamMessage[] {
    const { messages, malformed } = this.parse(name, readIfThere(file));
    if (!malformed.length) return messages;
    const dead = path.join(this.dir, `${name}.dead.jsonl`);
    for (const line of malformed) {
      appendFileSync(dead, `${JSON.stringify({ line, ts: new Date().toISOString() })}\n`);
      const where = `${path.basename(this.dir)}/${name}.dead.jsonl`;
      this.io?.note(`skipped a malformed line in ${name}'s mailbox (kept in ${where})`);
    }
    writeFileAtomic(file, messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
    return messages;
  }

  private parse(name: string, text: string): { messages: TeamMessage[]; malformed: string[] } {
    const messages: TeamMessage[] = [];
    const malformed: string[] = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let message: TeamMessage | undefined;
      try {
        const value = JSON.parse(line) as TeamMessage;
        const fields = value && [value.from, value.type, value.content];
        if (fields && fields.every((field) => typeof field === "string")) message = value;
      } catch {
        // not JSON: malformed, like any other line that is not a message
      }
      if (message) messages.push(message);
      else malformed.push(line);
    }
    return { messages, malformed };
  }
}

function readIfThere(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw err;
  }
}

const BASE_FIELDS = new Set(["id", "type", "from", "to", "content", "ts"]);

/** `<`, `>` and `&` escaped (and `"` inside an attribute): no content can close an envelope or open
 *  one that looks as if it came from someone else. */
function escapeText(text: string, inAttribute = false): string {
  const escaped = text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return inAttribute ? escaped.replaceAll('"', "&quot;") : escaped;
}

/** How a message reads to a model: who sent it, its type, any protocol fields, then the text. */
export function formatMessage(message: TeamMessage): string {
  const attribute = (key: string, value: unknown) =>
    ` ${key}="${escapeText(typeof value === "string" ? value : JSON.stringify(value), true)}"`;
  const extra = Object.entries(message)
    .filter(([key]) => !BASE_FIELDS.has(key) && /^[a-z_]+$/.test(key))
    .map(([key, value]) => attribute(key, value))
    .join("");
  return (
    `<message${attribute("from", message.from)}${attribute("type", message.type)}${extra}>\n` +
    `${escapeText(message.content)}\n</message>`
  );
}
// #endregion bus

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

// The team itself: who is on it (Teammate) and the runtime that runs the lead and every teammate
// (Team). How other chapters extend it (TeamOptions) is at the end of the file.

/** One teammate, as the runtime keeps it in memory (`team/config.json` in the state folder is a copy
 *  for people). */
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

/** The team's clock and limits (tests shorten the waits). */
interface Timings {
  pollMs?: number; // how often an idle teammate looks into its mailbox (ms)
  idleWaitMs?: number; // how long it waits for mail before it looks at the task board (ms)
  idleTimeoutMs?: number; // a teammate with nothing to do for this long shuts down (ms)
  maxRounds?: number; // rounds a teammate may take for one piece of work
  settleTimeoutMs?: number; // the longest inbox(wait) and close() wait for the team to settle (ms)
}

/** What a loop needs to know about the agent running it. */
interface Runner {
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

export class Team {
  readonly bus: MessageBus;
  /** s10's task board, shared by everyone: the lead plans on it, idle teammates claim from it. */
  readonly board: TaskBoard;
  /** s12's lanes, as the lead sees them (a teammate opens its own through lanesFor). */
  readonly lanes: WorktreeManager;
  /** Everyone ever spawned, by name, including those that have shut down. */
  readonly members = new Map<string, Teammate>();
  readonly leadHandlers: Record<string, ToolHandler>;
  private readonly limits: Required<Timings>;
  private closing = false;
  /** Idle teammates that have looked at the board and found nothing to do. */
  private readonly quiet = new Set<string>();
  /** Teammates that give their task back to the board when they stop (s15's approved shutdown). */
  private readonly handingBack = new Set<string>();

  constructor(
    private readonly env: AgentEnv,
    private readonly options: TeamOptions = {},
  ) {
    const o = options;
    this.limits = {
      pollMs: o.pollMs ?? 50,
      idleWaitMs: o.idleWaitMs ?? 250,
      idleTimeoutMs: o.idleTimeoutMs ?? 60_000,
      maxRounds: o.maxRounds ?? 50,
      settleTimeoutMs: o.settleTimeoutMs ?? 120_000,
    };
    // The team's state lives beside the workspace: the model's commands and file tools cannot reach
    // it, so no teammate can forge a message in a mailbox or grab a task by editing its file.
    this.bus = new MessageBus(path.join(env.stateDir, "mailboxes"), env.io);
    this.board = new TaskBoard(path.join(env.stateDir, "tasks"));
    this.lanes = this.lanesFor(LEAD);
    this.leadHandlers = { ...BASE_HANDLERS, ...this.leadTeamHandlers(), ...o.leadHandlers?.(this) };
  }

  // #region lead
  /** The lead's turn: the same loop as every chapter, with the team's tools. */
  runLead(messages: MessageParam[]): Promise<Message | null> {
    const { leadTools = [], leadInstructions } = this.options;
    return this.loop(
      {
        name: LEAD,
        client: this.env.model,
        system: leadInstructions ? `${LEAD_SYSTEM}\n${leadInstructions}` : LEAD_SYSTEM,
        tools: [...LEAD_TOOLS, ...leadTools],
        handlers: this.leadHandlers,
        root: () => this.env.workspace,
        maxRounds: Infinity,
      },
      messages,
    );
  }

  /** The lead's team tools: s10's task tools (task_create with a lane), spawn, send and inbox. */
  private leadTeamHandlers(): Record<string, ToolHandler> {
    const tasks = taskHandlers(this.board);
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
        return this.readMail(LEAD) ?? "(no messages)";
      },
    };
  }
  // #endregion lead

  // #region send
  /** Every message goes through here: only known names, one line in the recipient's mailbox. */
  send(
    from: string,
    to: string,
    content: string,
    type = "message",
    extra: Record<string, unknown> = {},
  ): TeamMessage {
    const known = [LEAD, ...this.members.keys()];
    if (!known.includes(to))
      throw new Error(`no one named "${to}" on the team (known: ${known.join(", ")})`);
    if (to === from) throw new Error("cannot send a message to yourself");
    if (!content.trim()) throw new Error("a message needs some content");
    const message = this.bus.send(from, to, content, type, extra);
    // The trace gets the message as written, with its protocol fields (request_id, approve, ...).
    this.env.io.event("mailbox_send", { id: message.id, type, from, to, content, ...extra }, from);
    return message;
  }

  /** The `send` tool, the same for the lead and every teammate. */
  private sendTool(from: string): ToolHandler {
    return ({ to, content }) => {
      const message = this.send(from, String(to ?? ""), String(content ?? ""));
      const gone =
        this.members.get(message.to)?.state === "shutdown"
          ? ` — ${message.to} has shut down and reads it only if spawned again`
          : "";
      return `Sent to ${message.to} (${message.id})${gone}`;
    };
  }

  /** Takes new mail into one user turn, each message in its envelope; null when there is none.
   *  The mail stays on disk until the turn that read it is kept (bus.acknowledge): the lead's
   *  after its turn, a teammate's after its work. */
  private readMail(name: string): string | null {
    const messages = this.bus.receive(name);
    for (const { id, type, from } of messages)
      this.env.io.event("mailbox_read", { id, type, from, to: name }, name);
    return messages.length ? messages.map(formatMessage).join("\n") : null;
  }
  // #endregion send

  // #region loop
  /** The agent loop of s02, shared by the lead and every teammate. It returns the final reply,
   *  or null when the round limit (or a stop request) cut the work short. Every model call goes
   *  through `callModel`: the plain call, or the one s14 passes in. */
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
        const { output, isError } = await runTool(who.handlers, block, {
          root: who.root(),
          writable: who.writable?.(),
        });
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
    if (!/^[a-z][a-z0-9_-]{0,23}$/.test(name) || name === LEAD) {
      throw new Error(
        `invalid teammate name ${JSON.stringify(name)}: lowercase letters, digits, - and _, not "${LEAD}"`,
      );
    }
    const existing = this.members.get(name);
    if (existing && existing.state !== "shutdown")
      throw new Error(`${name} is already on the team (${existing.state})`);
    if (!role.trim()) throw new Error("a teammate needs a role");
    if (!prompt.trim()) throw new Error("a teammate needs a first instruction (prompt)");
    if (this.closing) throw new Error("the team is closing; no new teammates");

    const member: Teammate = {
      name,
      role: role.trim(),
      state: "working",
      task: null,
      cwd: this.env.workspace,
      lane: null,
      messages: [],
      client: this.env.modelFor(name),
      stopRequested: false,
      done: Promise.resolve(),
    };
    this.members.set(name, member);
    this.saveRoster();
    const started = { name, role: member.role, state: "working", task: null };
    this.env.io.event("member_state", started, name);
    member.done = this.live(member, prompt).catch((err: unknown) => {
      this.env.io.note(`crashed: ${err instanceof Error ? err.message : String(err)}`, name);
      this.setState(member, "shutdown");
    });
    return member;
  }

  /** WORK → result → IDLE, until the idle wait runs out or the team closes. */
  private async live(member: Teammate, prompt: string): Promise<void> {
    let next: string | null = prompt;
    while (next !== null) {
      member.messages.push({ role: "user", content: next });
      this.quiet.delete(member.name);
      this.setState(member, "working");
      await this.work(member);
      this.bus.acknowledge(member.name); // its mail is in its conversation now, and that is kept
      next = member.stopRequested || this.closing ? null : await this.idle(member);
    }
    if (this.handingBack.has(member.name)) this.handBack(member);
    this.setState(member, "shutdown");
  }
  // #endregion spawn

  // #region work
  /** One piece of work. Only success completes the task (which unblocks its dependants, s10) and
   *  frees the teammate; a failure leaves owner, status and lane as they are, for a retry. */
  private async work(member: Teammate): Promise<void> {
    const { teammateTools = [], teammateHandlers, teammateInstructions = "" } = this.options;
    const maxRounds = this.limits.maxRounds;
    let ok = false;
    let summary: string;
    try {
      const reply = await this.loop(
        {
          name: member.name,
          client: member.client,
          system: teammateSystem(member.name, member.role, teammateInstructions),
          tools: [...TEAMMATE_TOOLS, ...teammateTools],
          handlers: {
            ...BASE_HANDLERS,
            send: this.sendTool(member.name),
            ...teammateHandlers?.(this, member),
          },
          root: () => member.cwd,
          writable: () => (member.lane ? laneWritable(this.env.workspace) : []),
          maxRounds,
          identity: identityBlock(member.name, member.role),
          stopped: () => member.stopRequested,
        },
        member.messages,
      );
      const text = reply?.content
        .flatMap((b) => (b.type === "text" ? [b.text] : []))
        .join("\n")
        .trim();
      if (!reply) summary = `gave up: hit the ${maxRounds}-round limit`;
      else if (reply.stop_reason === "max_tokens")
        summary = `gave up: the answer was cut off (max_tokens)\n${text}`;
      else [ok, summary] = [true, text || "(done, no summary)"];
    } catch (err) {
      summary = `gave up: ${errorLine(err)}`;
    }

    const task = member.task;
    if (member.stopRequested && !ok) return; // stopped on purpose (close, or a shutdown in s15): no report
    if (task !== null && ok) {
      this.board.update(task, { status: "completed" });
      this.env.io.event("task_completed", { task, owner: member.name }, member.name);
      this.release(member);
    }
    if (!ok) {
      const keeps = task === null ? "" : ` — keeps task #${task}`;
      this.env.io.note(`${summary.split("\n")[0]}${keeps}`, member.name);
    }
    this.send(member.name, LEAD, summary, "result", { ok, ...(task === null ? {} : { task }) });
  }

  /** A teammate that leaves for good gives its task back: pending, no owner, so another teammate
   *  can claim it (the task keeps its lane, and the lane keeps the work done so far). */
  private handBack(member: Teammate): void {
    const id = member.task;
    if (id === null) return;
    const task = this.board.get(id);
    if (task.owner === member.name && task.status === "in_progress")
      this.board.update(id, { owner: null, status: "pending" });
    this.env.io.event("task_handed_back", { task: id, owner: member.name }, member.name);
    this.env.io.note(`gave task #${id} back to the board`, member.name);
    this.release(member);
  }

  /** No task any more: back to the workspace root. */
  private release(member: Teammate): void {
    member.task = null;
    member.cwd = this.env.workspace;
    member.lane = null;
    this.saveRoster();
  }
  // #endregion work

  // #region idle
  /** IDLE: mail first, then the board. Returns the next user turn, or null to shut down. */
  private async idle(member: Teammate): Promise<string | null> {
    this.setState(member, "idle");
    const since = Date.now();
    const stopping = () => member.stopRequested || this.closing;
    let announced = false;
    while (!stopping()) {
      // 1. The inbox: a message from the lead or a teammate becomes the next user turn.
      const waitUntil = Date.now() + this.limits.idleWaitMs;
      do {
        const mail = this.readMail(member.name);
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
        this.quiet.add(member.name);
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
        member.cwd = this.openLane(member, task.worktree);
      } catch (err) {
        // No lane, no work: the task stays claimed and in progress, and the lead hears why.
        const why = (err as Error).message;
        this.env.io.note(`could not open lane "${task.worktree}": ${why}`, member.name);
        const report = `gave up before starting task #${task.id}: no lane (${why})`;
        this.send(member.name, LEAD, report, "result", { ok: false, task: task.id });
        this.saveRoster();
        return null;
      }
      member.lane = task.worktree;
      where = `the lane .worktrees/${task.worktree} (a git worktree on branch wt/${task.worktree})`;
    }
    const claimed = { task: task.id, owner: member.name, lane: member.lane };
    this.env.io.event("task_claimed", claimed, member.name);
    const inLane = member.lane ? ` in lane ${member.lane}` : "";
    this.env.io.note(`claimed task #${task.id} "${task.subject}"${inLane}`, member.name);
    this.saveRoster();
    return (
      `You claimed task #${task.id}: ${task.subject}\n${task.description}\n\n` +
      `You work in ${where}; your paths are relative to it. When the task is done, reply with a short ` +
      "summary and no tool call: the runtime marks the task completed."
    );
  }

  /** `.worktrees/<name>` on branch `wt/<name>`, made with s12's manager the first time a teammate
   *  needs it (s12's ensureRepo keeps the team's own folders out of git). */
  private openLane(member: Teammate, name: string): string {
    const lanes = this.lanesFor(member.name);
    if (!lanes.list().some((lane) => lane.name === name)) lanes.create(name);
    return lanes.path(name);
  }

  /** s12's lane manager, with its events and notes recorded under the agent that caused them. */
  private lanesFor(agent: string): WorktreeManager {
    return new WorktreeManager(
      this.env.workspace,
      this.board,
      ({ event, ...data }) => this.env.io.event(event, data, agent),
      (text) => this.env.io.note(text, agent),
      this.env.stateDir,
    );
  }
  // #endregion lanes

  // #region roster
  // Bookkeeping: every change of a teammate's state is saved to `team/config.json` in the state
  // folder (for /team, and for anyone looking from outside) and recorded in the trace.
  private setState(member: Teammate, state: TeammateState): void {
    if (member.state === state) return;
    if (!(LIFECYCLE[member.state] as readonly string[]).includes(state))
      throw new Error(`${member.name} is ${member.state}; it cannot become ${state}`);
    member.state = state;
    this.saveRoster();
    this.env.io.event("member_state", { name: member.name, state, task: member.task }, member.name);
  }

  /** `team/config.json` in the state folder, written atomically: who is on the team, doing what, where. */
  private saveRoster(): void {
    writeJsonAtomic(path.join(this.env.stateDir, "team", "config.json"), {
      lead: LEAD,
      members: [...this.members.values()].map((m) => ({
        name: m.name,
        role: m.role,
        state: m.state,
        task: m.task,
        lane: m.lane,
        cwd: path.relative(this.env.workspace, m.cwd) || ".",
      })),
    });
  }

  /** The roster as /team shows it: one line per teammate. */
  roster(): string {
    if (this.members.size === 0) return "(no teammates yet)";
    const line = (m: Teammate) =>
      `${m.name.padEnd(10)} ${m.role.padEnd(18)} ${m.state.padEnd(8)} ` +
      `${m.task === null ? "no task" : `task #${m.task}`}${m.lane ? ` (lane ${m.lane})` : ""}`;
    return [...this.members.values()].map(line).join("\n");
  }
  // #endregion roster

  // #region settle
  /** Settled = every live teammate is idle and has looked at the board since its last work, no
   *  mail waits for one, and no ready task waits for a free one. inbox(wait) and close() wait for it. */
  private settled(): boolean {
    const live = [...this.members.values()].filter((m) => m.state !== "shutdown");
    if (live.some((m) => !this.quiet.has(m.name) || this.bus.peek(m.name).length > 0)) return false;
    const free = live.filter((m) => m.task === null);
    try {
      return free.length === 0 || readyTasks(this.board).length === 0;
    } catch {
      return true; // a broken task file: nobody can claim anything until it is fixed
    }
  }

  /** Polls until the team has settled; false if it is still busy after `timeoutMs`. */
  async waitUntilSettled(timeoutMs = this.limits.settleTimeoutMs): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!this.settled()) {
      if (Date.now() >= until) return false;
      await sleep(this.limits.pollMs);
    }
    return true;
  }

  /** Asks a teammate to stop: its loop ends before its next model call (close, and s15's shutdown).
   *  With `handBack`, its task goes back to the board once it has stopped. */
  stop(name: string, { handBack = false } = {}): void {
    const member = this.members.get(name);
    if (!member) return;
    member.stopRequested = true;
    if (handBack) this.handingBack.add(name);
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
  // #endregion settle
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
    commands: {
      "/team": { help: "the roster: each teammate's state and task", run: () => team.roster() },
      "/inbox": {
        help: "the lead's mailbox, without emptying it",
        run: () => team.bus.peek(LEAD).map(formatMessage).join("\n") || "(no messages)",
      },
    },
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

// #region extension-points
// What the chapters built on this one plug in. They also call the team's own methods: s15's
// protocol tools use team.send, team.members and team.stop(name, { handBack: true }); the capstone
// (a2) dispatches team.leadHandlers, opens lanes with team.lanes and acknowledges team.bus itself.

export interface TeamOptions extends Timings {
  /** s14 (and a2, through s14): every model call, the lead's and each teammate's, goes through this. */
  callModel?: CallModel;
  /** s15: the lead's protocol tools and their handlers. */
  leadTools?: Tool[];
  leadHandlers?: (team: Team) => Record<string, ToolHandler>;
  /** s15: a teammate's protocol tools; handlers are made per teammate, so they know who is calling
   *  (a2 also guards the base tools here). */
  teammateTools?: Tool[];
  teammateHandlers?: (team: Team, member: Teammate) => Record<string, ToolHandler>;
  /** s15: the protocols' rules, appended to the lead's and the teammates' system prompts. */
  leadInstructions?: string;
  teammateInstructions?: string;
}

/** s14: one model call, described so that a wrapper can retry it or rewrite the history. */
export interface ModelCall {
  agent: string;
  client: ModelClient;
  system: string;
  tools: Tool[];
  /** The live history: a wrapper may change it in place (s14 compacts it). */
  messages: MessageParam[];
  /** A teammate's identity block, for s14 to put back after a compaction (undefined for the lead). */
  identity?: string;
}
export type CallModel = (env: AgentEnv, call: ModelCall) => Promise<Message>;

/** The plain call every chapter so far made. s14 wraps it in one that survives failures. */
export const plainCall: CallModel = (env, { client, system, tools, messages }) =>
  client.messages.create({
    model: env.modelId,
    system,
    tools,
    messages: normalizeMessages(messages),
    max_tokens: 8000,
  });

/** A failed call in one line, e.g. "529 overloaded_error: Overloaded": what a teammate that gives
 *  up reports to the lead, and (s14) what each retry notes. */
export function errorLine(err: unknown): string {
  if (err instanceof APIError) {
    const detail = (err.error as { error?: { type?: string; message?: string } } | undefined)
      ?.error;
    if (detail?.message) return `${err.status} ${detail.type ?? "error"}: ${detail.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}
// #endregion extension-points
