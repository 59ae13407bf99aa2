/**
 * a5 · Sessions
 *
 * Until now a conversation lived in one process: quit, crash or close the terminal and it was
 * gone, and nothing but a person at a keyboard could drive it. Harnesses people use every day
 * treat a session as data instead, and four things follow from that one decision:
 *
 *   1. the log — every session is an event log in the state folder, one line per step, in the
 *      recording's own vocabulary (the steps the player shows), written the moment each happens;
 *   2. resume — `--resume <id>` rebuilds the conversation from its log and goes on, also after
 *      a kill mid-turn: a tool call the kill left unanswered gets its answer, so the history
 *      the model sees is one the API accepts;
 *   3. fork — `--fork <id> --at N` starts a new log with the first N prompts of another one;
 *      the original is never written again;
 *   4. headless — `-p "…"` runs one prompt with no terminal, prints text, json or stream-json
 *      (the log's own lines) and exits non-zero when the model fails; `query()` gives code the
 *      same steps as an async iterator. No one is there to answer a question, so the permission
 *      mode answers it (refuse by default), and the refusal is a step like any other.
 *
 * The tools, the loop and its message hygiene are s02's, the permission gate is s07's. What this
 * chapter writes is where the steps go and how a conversation comes back from them.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { z } from "zod";
import {
  agentLoop,
  BASE_TOOLS,
  normalizeMessages,
  type ToolOutcome,
} from "../s02-tool-use/agent.ts";
import { type Mode, MODES, type Permissions, runGated } from "../s07-permission-system/agent.ts";
import type { HarnessEvents } from "../_shared/events.ts";
import { stateDirFor } from "../_shared/paths.ts";
import { holding, sandboxFor, type Sandbox } from "../_shared/shell.ts";
import { oneLine } from "../_shared/visible.js";
// The recording's vocabulary: one schema, one version, read by the player and written here.
import {
  headerSchema,
  RECORDING_FORMAT,
  TRACE_VERSION,
  type TraceEvent,
  traceStepSchema,
} from "../_trace/contract.ts";
import type {
  Agent,
  AgentEnv,
  ContentBlockParam,
  IO,
  MessageParam,
  ModelClient,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from "../_shared/types.ts";

export const TOOLS: Tool[] = BASE_TOOLS;

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files: read before you edit. Paths are relative to the workspace. A session can be resumed
later: when a tool result says a call did not finish, check what it left before you go on. When
the task is done, say so briefly.`;

/** Why a session cannot be opened, resumed or forked: said in one sentence, nothing changed. */
/** A recording's first line (chapters/_runner/recording.ts). */
export type RecordingHeader = z.infer<typeof headerSchema>;

export class SessionError extends Error {
  name = "SessionError";
}

// #region ids
/** A session id names a file, so it is a plain word: letters, digits, `-` and `_`, at most 64.
 *  `../../.bashrc`, `/etc/passwd`, a NUL or a newline never reach the file system. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function checkSessionId(id: unknown): string {
  if (typeof id !== "string" || !SESSION_ID.test(id))
    throw new SessionError(
      `"${oneLine(String(id)).slice(0, 80)}" is not a session id (letters, digits, - and _, at most 64)`,
    );
  return id;
}

/** Sortable by time, unique by its random tail: `20261204-213000-9f3ac1`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, "").slice(0, 14);
  return `${stamp.slice(0, 8)}-${stamp.slice(8)}-${randomBytes(3).toString("hex")}`;
}
// #endregion ids

// #region log
/** The sessions live in the state folder, beside the workspace: the model's tools and commands
 *  reach only the workspace, so they cannot rewrite the history they will be shown. */
export const sessionsDir = (stateDir: string) => path.join(stateDir, "sessions");

/** The folder, made if missing, and refused if it is anything but a folder (a symlink to
 *  somewhere else would send every log there). */
function openSessionsDir(stateDir: string): string {
  const dir = sessionsDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!lstatSync(dir).isDirectory())
    throw new SessionError(`${dir} is not a folder (a link?); sessions are not kept there`);
  return dir;
}

export const sessionFile = (stateDir: string, id: string) =>
  path.join(sessionsDir(stateDir), `${checkSessionId(id)}.jsonl`);

/** The header a session log starts with: the recording's, so the player opens the log as is. */
export function sessionHeader(model: string): RecordingHeader {
  return {
    format: RECORDING_FORMAT,
    version: TRACE_VERSION,
    chapter: "a5",
    name: "a5-sessions",
    title: "Sessions",
    model,
    started: new Date().toISOString(),
  };
}

/** One session's log, open for appending. Each `append` is one write of whole lines with
 *  O_APPEND: a kill can cut the file only at a line's end, or (a crash inside the write) leave
 *  one torn line last, which the reader sets aside. */
export class SessionLog {
  private readonly fd: number;
  private readonly listeners = new Set<(step: TraceEvent) => void>();

  private constructor(
    readonly id: string,
    readonly file: string,
    fresh: boolean,
  ) {
    const { O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
    try {
      // A new log must be new (O_EXCL); none is ever opened through a link (O_NOFOLLOW).
      this.fd = openSync(file, O_WRONLY | O_APPEND | O_NOFOLLOW | (fresh ? O_CREAT | O_EXCL : 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw new SessionError(`${file} is a symbolic link; not opened`);
      if (code === "ENOENT") throw new SessionError(`there is no session ${id}`);
      if (code === "EEXIST") throw new SessionError(`a session ${id} exists already`);
      throw err;
    }
    if (!fstatSync(this.fd).isFile()) {
      closeSync(this.fd);
      throw new SessionError(`${file} is not a regular file`);
    }
  }

  /** A new log, with its header line. */
  static create(stateDir: string, id: string, model: string): SessionLog {
    openSessionsDir(stateDir);
    const log = new SessionLog(id, sessionFile(stateDir, id), true);
    log.write([sessionHeader(model)]);
    return log;
  }

  /** An existing log, to go on writing at its end. */
  static reopen(stateDir: string, id: string): SessionLog {
    openSessionsDir(stateDir);
    return new SessionLog(id, sessionFile(stateDir, id), false);
  }

  private write(lines: unknown[]) {
    writeSync(this.fd, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  }

  /** Adds steps, all in one write, and tells whoever listens (query(), stream-json). */
  append(...steps: TraceEvent[]): void {
    if (!steps.length) return;
    this.write(steps);
    for (const step of steps) for (const listener of this.listeners) listener(step);
  }

  listen(listener: (step: TraceEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** A log as read back: its header, its steps, and the bytes of a torn last line, if any. */
export interface ReadSession {
  header: RecordingHeader;
  steps: TraceEvent[];
  /** A last line without its newline: a write the kill cut. Never parsed, never dropped silently. */
  torn?: string;
}

/** Reads a log and checks every line against the recording schema. A line that does not parse
 *  or fit is an error naming the file and the line; the file is left as it is. */
export function parseSessionLog(text: string, file = "session"): ReadSession {
  const lines = text.split("\n");
  const last = lines.pop()!; // "" when the file ends with a newline, as a whole log does
  const torn = last === "" ? undefined : last;
  const check = <T>(n: number, line: string, schema: { safeParse(v: unknown): unknown }) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new SessionError(`${file} line ${n}: not JSON (${oneLine(line).slice(0, 60)}…)`);
    }
    const result = schema.safeParse(value) as {
      success: boolean;
      data?: T;
      error?: { issues: { path: PropertyKey[]; message: string }[] };
    };
    if (!result.success) {
      const issue = result.error!.issues[0];
      throw new SessionError(
        `${file} line ${n}: not a recording ${n === 1 ? "header" : "step"} (${issue.path.join(".") || "line"}: ${issue.message})`,
      );
    }
    return result.data as T;
  };
  if (lines.length === 0)
    throw new SessionError(`${file} has no complete header line: not a session log`);
  const header = check<RecordingHeader>(1, lines[0], headerSchema);
  if (header.version !== TRACE_VERSION)
    throw new SessionError(
      `${file} is written in trace version ${header.version}; this harness reads version ${TRACE_VERSION}`,
    );
  const steps = lines.slice(1).map((line, i) => check<TraceEvent>(i + 2, line, traceStepSchema));
  return { header, steps, ...(torn !== undefined && { torn }) };
}

export function readSession(stateDir: string, id: string): ReadSession {
  const file = sessionFile(stateDir, id);
  let text: string;
  try {
    if (lstatSync(file).isSymbolicLink())
      throw new SessionError(`${file} is a symbolic link; not read`);
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new SessionError(`there is no session ${id}`);
    throw err;
  }
  return parseSessionLog(text, `session ${id}`);
}
// #endregion log

// #region history
/** The conversation a log holds, rebuilt step by step: a prompt is a user message, a response
 *  and the tool calls logged with it are one assistant message, the tool results the next user
 *  message. s02's hygiene then makes it one the API accepts (every tool_use answered). */
export function historyFrom(steps: readonly TraceEvent[]): MessageParam[] {
  const messages: MessageParam[] = [];
  const content = (m: MessageParam | undefined) =>
    m && Array.isArray(m.content) ? (m.content as ContentBlockParam[]) : undefined;
  for (const step of steps) {
    if (step.agent !== "lead") continue;
    if (step.kind === "user") messages.push({ role: "user", content: step.text });
    else if (step.kind === "response")
      messages.push({
        role: "assistant",
        content: step.text ? [{ type: "text", text: step.text }] : [],
      });
    else if (step.kind === "tool_call") {
      const answer = messages.at(-1);
      if (answer?.role === "assistant")
        content(answer)!.push({
          type: "tool_use",
          id: step.id,
          name: step.name,
          input: step.input,
        });
    } else if (step.kind === "tool_result") {
      const result: ToolResultBlockParam = {
        type: "tool_result",
        tool_use_id: step.id,
        content: step.output,
        is_error: step.is_error,
      };
      const last = messages.at(-1);
      if (last?.role === "user" && content(last)) content(last)!.push(result);
      else messages.push({ role: "user", content: [result] });
    }
  }
  // An answer with nothing in it (a cut-off response) is not something the API takes back.
  return normalizeMessages(messages.filter((m) => m.content.length > 0));
}

export const NOT_FINISHED =
  "(not finished: the session stopped before this call returned; check what it left before you go on)";

/** The steps that close what a kill left open: a result for every tool call without one, and a
 *  note saying so. Appended to the log before anything else, so the log itself is whole again. */
export function closeUnfinished(steps: readonly TraceEvent[]): TraceEvent[] {
  // In log order: a result closes the call with its id before it, and an id used again later
  // (two processes' model clients may reuse one) is a new call.
  const waiting = new Map<string, Extract<TraceEvent, { kind: "tool_call" }>>();
  for (const step of steps) {
    if (step.agent !== "lead") continue;
    if (step.kind === "tool_call") waiting.set(step.id, step);
    if (step.kind === "tool_result") waiting.delete(step.id);
  }
  const open = [...waiting.values()];
  if (!open.length) return [];
  return [
    ...open.map((call): TraceEvent => ({
      kind: "tool_result",
      agent: "lead",
      id: call.id,
      name: call.name,
      output: NOT_FINISHED,
      is_error: true,
    })),
    {
      kind: "note",
      agent: "lead",
      text: `resumed after a stop mid-turn: ${open.length} unfinished tool call${open.length === 1 ? "" : "s"} answered as not finished`,
    },
  ];
}

/** The steps of a log up to its `turns`-th prompt's end: where a fork branches off. The old
 *  log's own session events stay behind (the new log says where it came from itself). */
export function stepsUpToTurn(steps: readonly TraceEvent[], turns: number): TraceEvent[] {
  let seen = 0;
  const kept: TraceEvent[] = [];
  for (const step of steps) {
    if (step.kind === "user" && step.agent === "lead" && ++seen > turns) break;
    if (step.kind === "event" && step.type === "session") continue;
    kept.push(step);
  }
  return kept;
}

export const promptsIn = (steps: readonly TraceEvent[]) =>
  steps.filter((s) => s.kind === "user" && s.agent === "lead").length;
// #endregion history

// #region open
export interface SessionOptions {
  /** Continue this session's log. */
  resume?: string;
  /** Start a new log from this session's first `at` prompts (all of them without `at`). */
  fork?: string;
  at?: number;
  /** The permission mode (s07): default asks (headless: refuses), plan refuses changes, auto allows. */
  permissionMode?: Mode;
  /** No one at a keyboard: a question is answered by the permission mode, never waited on. */
  headless?: boolean;
}

/** Opens the session the options name, a new one by default. The log is whole when this returns:
 *  a resumed or forked history has its unfinished calls answered, in the log as in memory. */
export function openSession(
  env: Pick<AgentEnv, "stateDir" | "modelId">,
  options: SessionOptions = {},
): { log: SessionLog; messages: MessageParam[]; origin: SessionEvent } {
  const { resume, fork } = options;
  if (resume !== undefined && fork !== undefined)
    throw new SessionError("--resume and --fork name one session each: use one of them");
  if (options.at !== undefined && fork === undefined)
    throw new SessionError("--at says where to fork: it needs --fork");
  if (resume !== undefined) {
    const old = readSession(env.stateDir, resume);
    if (old.torn !== undefined)
      throw new SessionError(
        `session ${resume} ends in a line cut off while it was written (${old.torn.length} bytes); ` +
          `fork it (--fork ${resume}) to go on from its last whole step: the log stays as it is`,
      );
    const log = SessionLog.reopen(env.stateDir, resume);
    const closing = closeUnfinished(old.steps);
    const origin = sessionEvent(resume, "resume", null, null);
    log.append(...closing, origin);
    return { log, messages: historyFrom([...old.steps, ...closing]), origin: origin.data };
  }
  if (fork !== undefined) {
    const old = readSession(env.stateDir, fork);
    const total = promptsIn(old.steps);
    const at = options.at ?? total;
    if (!Number.isInteger(at) || at < 0 || at > total)
      throw new SessionError(`session ${fork} has ${total} prompts: --at must be 0 to ${total}`);
    const kept = stepsUpToTurn(old.steps, at);
    const closing = closeUnfinished(kept);
    const log = SessionLog.create(env.stateDir, newSessionId(), env.modelId);
    const origin = sessionEvent(log.id, "fork", fork, at);
    log.append(origin, ...kept, ...closing);
    return { log, messages: historyFrom([...kept, ...closing]), origin: origin.data };
  }
  const log = SessionLog.create(env.stateDir, newSessionId(), env.modelId);
  const origin = sessionEvent(log.id, "start", null, null);
  log.append(origin);
  return { log, messages: [], origin: origin.data };
}

type SessionEvent = HarnessEvents["session"];
const sessionEvent = (
  id: string,
  action: SessionEvent["action"],
  parent: string | null,
  turn: number | null,
) => ({
  kind: "event" as const,
  agent: "lead",
  type: "session" as const,
  data: { id, action, parent, turn },
});
// #endregion open

// #region tee
/** The env the loop runs with: the same model and io, but every step also goes to the log.
 *  A response is logged with its tool calls in one write, so a resumed history knows every
 *  tool_use id the model sent, even when the kill came before the first call ran. */
function logging(env: AgentEnv, log: SessionLog): AgentEnv {
  let lastSystem: string | undefined;
  const model: ModelClient = {
    messages: {
      create(body, options) {
        const system = typeof body.system === "string" ? body.system : undefined;
        log.append({
          kind: "request",
          agent: "lead",
          messages: body.messages.length,
          tools: (body.tools ?? []).map((t) => ("name" in t ? t.name : "?")),
          ...(system !== lastSystem && system !== undefined && { system }),
        });
        lastSystem = system;
        return env.model.messages.create(body, options);
      },
    },
  };
  const io: IO = {
    user: (text, agent) => env.io.user(text, agent),
    assistant(message, agent = "lead") {
      const calls = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
      log.append(
        {
          kind: "response",
          agent,
          stop_reason: message.stop_reason,
          text: message.content
            .flatMap((b) => (b.type === "text" ? [b.text] : []))
            .join("\n")
            .trim(),
          calls: calls.map((c) => c.name),
        },
        ...calls.map((c): TraceEvent => ({
          kind: "tool_call",
          agent,
          id: c.id,
          name: c.name,
          input: c.input,
        })),
      );
      env.io.assistant(message, agent);
    },
    toolCall: (call, agent) => env.io.toolCall(call, agent), // logged with its response
    toolResult(call, output, isError = false, agent = "lead") {
      log.append({
        kind: "tool_result",
        agent,
        id: call.id,
        name: call.name,
        output,
        is_error: isError,
      });
      env.io.toolResult(call, output, isError, agent);
    },
    note(text, agent = "lead") {
      log.append({ kind: "note", agent, text });
      env.io.note(text, agent);
    },
    event(type, data, agent = "lead") {
      log.append({ kind: "event", agent, type, data } as TraceEvent);
      env.io.event(type, data, agent);
    },
  };
  return { ...env, model, io };
}
// #endregion tee

// #region agent
/** Bookkeeping tools run freely; write and edit stay in the workspace; commands are asked about. */
const ALLOW = [{ tool: "write" }, { tool: "edit" }];

export interface SessionAgent extends Agent {
  readonly session: { id: string; file: string };
  /** Tells `listener` of every step the log gets from now on; returns how to stop. */
  listen(listener: (step: TraceEvent) => void): () => void;
}

export function createAgent(env: AgentEnv, options: SessionOptions = {}): SessionAgent {
  const { log, messages, origin } = openSession(env, options);
  const perms: Permissions = {
    mode: options.permissionMode ?? "default",
    allow: [...ALLOW],
    deny: [],
  };
  // Headless, a question would wait for no one: the mode has answered it already.
  const asker: AgentEnv = options.headless
    ? {
        ...env,
        async ask(question) {
          env.io.note(`${question} → headless, permission mode ${perms.mode}: refused`);
          return "no";
        },
      }
    : env;
  const logged = logging(asker, log);
  // The printer's trace (and a --record file) learns which session this is too.
  env.io.event("session", origin);
  return {
    messages,
    session: { id: log.id, file: log.file },
    listen: (listener) => log.listen(listener),
    async send(prompt) {
      log.append({ kind: "user", agent: "lead", text: prompt });
      messages.push({ role: "user", content: prompt });
      try {
        await agentLoop(logged, messages, {
          system: `${SYSTEM}\n\nPermission mode: ${perms.mode}.`,
          tools: TOOLS,
          runCall: (call): Promise<ToolOutcome> => runGated(logged, perms, call, TOOLS),
        });
      } catch (err) {
        // The log says why the turn ended; a resume goes on from the prompt the model never answered.
        log.append({ kind: "note", agent: "lead", text: `the turn failed: ${errorText(err)}` });
        throw err;
      }
    },
    commands: {
      "/session": { help: "this session's id and log file", run: () => `${log.id}  ${log.file}` },
      "/sessions": {
        help: "every session of this workspace, forks under the session they came from",
        run: () => treeText(sessionTree(env.stateDir)),
      },
    },
    async close() {
      log.close();
    },
  };
}
// #endregion agent

// #region tree
export interface SessionNode {
  id: string;
  parent: string | null;
  /** Where it forked from its parent (prompts kept). */
  turn: number | null;
  prompts: number;
  children: SessionNode[];
  /** Why it could not be read, if it could not. */
  problem?: string;
}

/** Every log in the state folder, as a tree: a fork hangs under the session it came from. A log
 *  that does not read is listed with its problem, not skipped. */
export function sessionTree(stateDir: string): SessionNode[] {
  let names: string[];
  try {
    names = readdirSync(sessionsDir(stateDir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const nodes = new Map<string, SessionNode>();
  for (const name of names.sort()) {
    const id = name.slice(0, -".jsonl".length);
    if (!SESSION_ID.test(id)) continue;
    try {
      const { steps } = readSession(stateDir, id);
      const origin = steps.find((s) => s.kind === "event" && s.type === "session");
      const data = origin?.kind === "event" && origin.type === "session" ? origin.data : undefined;
      nodes.set(id, {
        id,
        parent: data?.parent ?? null,
        turn: data?.turn ?? null,
        prompts: promptsIn(steps),
        children: [],
      });
    } catch (err) {
      nodes.set(id, {
        id,
        parent: null,
        turn: null,
        prompts: 0,
        children: [],
        problem: (err as Error).message,
      });
    }
  }
  const roots: SessionNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parent ? nodes.get(node.parent) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

export function treeText(roots: SessionNode[], depth = 0): string {
  if (!roots.length && depth === 0) return "(no sessions yet)";
  return roots
    .map((n) =>
      [
        `${"  ".repeat(depth)}${depth ? "└ " : ""}${n.id}  ${n.prompts} prompt${n.prompts === 1 ? "" : "s"}` +
          (n.parent ? `  (forked from ${n.parent} after prompt ${n.turn})` : "") +
          (n.problem ? `  ✗ ${oneLine(n.problem)}` : ""),
        ...(n.children.length ? [treeText(n.children, depth + 1)] : []),
      ].join("\n"),
    )
    .join("\n");
}
// #endregion tree

// #region query
export interface QueryOptions extends SessionOptions {
  prompt: string;
  /** A Messages API client: `new Anthropic()`, or any object with `messages.create`. */
  model: ModelClient;
  workspace: string;
  /** Default: beside the workspace (`<workspace>.harness`). */
  stateDir?: string;
  /** Default: on, without network. */
  sandbox?: Sandbox;
  /** The model to ask, as the Messages API names it. */
  modelId: string;
}

/** A silent io: the log is the record. */
const QUIET: IO = {
  user() {},
  assistant() {},
  async toolCall() {},
  toolResult() {},
  note() {},
  event() {},
};

/** Runs one prompt with no terminal and yields its steps as the log gets them. A model error
 *  ends the iteration by throwing, after the steps before it. */
export async function* query(options: QueryOptions): AsyncGenerator<TraceEvent, void> {
  const workspace = path.resolve(options.workspace);
  const env: AgentEnv = holding<Omit<AgentEnv, "sandbox">>(
    {
      model: options.model,
      modelFor: () => options.model,
      modelId: options.modelId,
      workspace,
      stateDir: options.stateDir ?? stateDirFor(workspace),
      io: QUIET,
      ask: async () => "no",
    },
    options.sandbox ?? sandboxFor(workspace),
  );
  yield* run(createAgent(env, { ...options, headless: true }), options.prompt);
}

/** The steps `agent.send(prompt)` logs, as they come: a queue between the log and the caller. */
export async function* run(agent: SessionAgent, prompt: string): AsyncGenerator<TraceEvent, void> {
  const queue: TraceEvent[] = [];
  let wake = () => {};
  const stop = agent.listen((step) => {
    queue.push(step);
    wake();
  });
  let done = false;
  let failure: unknown;
  const turn = agent.send(prompt).then(
    () => void (done = true),
    (err) => void ((failure = err), (done = true)),
  );
  try {
    for (;;) {
      if (queue.length) yield queue.shift()!;
      else if (done) break;
      else await new Promise<void>((resolve) => ((wake = resolve), turn.then(resolve)));
    }
  } finally {
    stop();
    await agent.close?.();
  }
  if (failure) throw failure;
}
// #endregion query

// #region headless
export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface HeadlessOptions extends SessionOptions {
  prompt: string;
  outputFormat?: OutputFormat;
}

const errorText = (err: unknown) => oneLine(err instanceof Error ? err.message : String(err));

/** `-p "…"`: one prompt, no terminal, no questions. Prints the answer as `text`, one `json`
 *  object, or `stream-json` (the recording header, then every step as it happens: each line is
 *  a recording line, so the output opens in the player). Exit code: 0 done, 1 the model failed,
 *  2 the session could not be opened or the options are wrong. */
export async function runHeadless(
  env: AgentEnv,
  options: HeadlessOptions,
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  const format = options.outputFormat ?? "text";
  if (!OUTPUT_FORMATS.includes(format)) {
    err(`--output-format must be one of ${OUTPUT_FORMATS.join(", ")}`);
    return 2;
  }
  if (options.permissionMode !== undefined && !MODES.includes(options.permissionMode)) {
    err(`--permission-mode must be one of ${MODES.join(", ")}`);
    return 2;
  }
  let agent: SessionAgent;
  try {
    agent = createAgent(env, { ...options, headless: true });
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    err(e.message);
    return 2;
  }
  if (format === "stream-json") out(`${JSON.stringify(sessionHeader(env.modelId))}\n`);
  let answer: Extract<TraceEvent, { kind: "response" }> | undefined;
  let code = 0;
  try {
    for await (const step of run(agent, options.prompt)) {
      if (step.kind === "response" && step.agent === "lead") answer = step;
      if (format === "stream-json") out(`${JSON.stringify(step)}\n`);
    }
  } catch (e) {
    err(`model error: ${errorText(e)}`);
    code = 1;
  }
  if (format === "text" && answer?.text) out(`${answer.text}\n`);
  if (format === "json")
    out(
      `${JSON.stringify({
        session: agent.session.id,
        result: answer?.text ?? "",
        stop_reason: answer?.stop_reason ?? null,
        is_error: code !== 0,
      })}\n`,
    );
  return code;
}
// #endregion headless
