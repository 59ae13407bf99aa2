/**
 * s08 · Hooks
 *
 * Some rules are the user's, not the model's: "never rm, move files to trash/", "check the
 * syntax of every JavaScript file written", "tell the agent about the project when it starts".
 * Putting them in the prompt makes them suggestions; putting them in the harness code means
 * editing the harness for every project. Hooks are the middle way: shell commands, listed in
 * the workspace's `.hooks.json`, that the harness runs at fixed points —
 *   SessionStart  before the first model call,
 *   PreToolUse    before a tool runs (it may block the call or rewrite its input),
 *   PostToolUse   after a tool ran (it may add to the result).
 * A hook gets the event as JSON on stdin and answers with its exit code:
 *   0 continue (stdout JSON may hold `updatedInput` or `additionalContext`),
 *   1 block (PreToolUse: the tool does not run),
 *   2 inject stderr (it is added to what the model sees).
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync } from "node:fs";
import path from "node:path";
import {
  agentLoop,
  BASE_HANDLERS,
  BASE_TOOLS,
  readInside,
  runTool,
  safePath,
  type ToolContext,
  type ToolHandler,
  type ToolOutcome,
} from "../s02-tool-use/agent.ts";
import { readJson, writeJsonAtomic } from "../_shared/fsutil.ts";
import { runCommand, type Sandbox } from "../_shared/shell.ts";
import {
  changedWords,
  filesAmong,
  fingerprint,
  scriptWords,
  unpinnable,
  wordStates,
} from "../_shared/trust.ts";
import { oneLine } from "../_shared/visible.js";
import type { Agent, AgentEnv, MessageParam, Tool, ToolUseBlock } from "../_shared/types.ts";

/** The trust fingerprint reads the hooks' scripts through s02's jail. */
const JAIL = { safePath, readInside };

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files. The user's hooks may block a tool call or add notes to a result: follow what they
say. When the task is done, say so briefly.`;

export const TOOLS: Tool[] = BASE_TOOLS;

// #region config
export const HOOKS_FILE = ".hooks.json";
export const EVENTS = ["SessionStart", "PreToolUse", "PostToolUse"] as const;
export type HookEvent = (typeof EVENTS)[number];

/** `{ "matcher": "bash", "command": "sh hooks/block-rm.sh" }`. The matcher is a tool name, or
 *  "*" (or nothing) for every tool; SessionStart hooks have none. */
export interface Hook {
  matcher?: string;
  command: string;
}
export type HookConfig = Partial<Record<HookEvent, Hook[]>>;

/** Checks the shape of .hooks.json; throws with a message a learner can act on. */
export function parseHooks(text: string): HookConfig {
  const data: unknown = JSON.parse(text);
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new Error("expected a JSON object");
  for (const [event, hooks] of Object.entries(data)) {
    if (!EVENTS.includes(event as HookEvent))
      throw new Error(`unknown event "${event}" (expected ${EVENTS.join(", ")})`);
    const ok =
      Array.isArray(hooks) &&
      hooks.every(
        (h) =>
          typeof h === "object" &&
          h !== null &&
          typeof h.command === "string" &&
          h.command.trim() !== "" &&
          (h.matcher === undefined || typeof h.matcher === "string"),
      );
    if (!ok)
      throw new Error(
        `"${event}" must be a list of { "matcher"?: "tool", "command": "shell command" }`,
      );
  }
  return data as HookConfig;
}

/** Reads .hooks.json through s02's jail (a symlink out, a FIFO or a hard link is refused, with a
 *  note), with the text it parsed. Missing: no hooks. Broken: a note that says why, and no hooks. */
export function loadHooks(
  workspace: string,
  note: (text: string) => void,
): { hooks: HookConfig; text: string } {
  if (!lstatExists(path.join(workspace, HOOKS_FILE))) return { hooks: {}, text: "" };
  let text;
  try {
    text = readInside(workspace, HOOKS_FILE);
  } catch (err) {
    note(`${HOOKS_FILE} is not read (${(err as Error).message}); running without hooks`);
    return { hooks: {}, text: "" };
  }
  try {
    return { hooks: parseHooks(text), text };
  } catch (err) {
    note(`${HOOKS_FILE} is not valid (${(err as Error).message}); running without hooks`);
    return { hooks: {}, text: "" };
  }
}

const lstatExists = (file: string) => lstatSync(file, { throwIfNoEntry: false }) !== undefined;

/** Every hook command, once each: what the trust question shows and what its scripts are. */
const commandsOf = (hooks: HookConfig) => [
  ...new Set(
    Object.values(hooks)
      .flat()
      .map((h) => h.command),
  ),
];
// #endregion config

// #region run-hook
export const HOOK_TIMEOUT_MS = 30_000;
const MAX_HOOK_OUTPUT = 20_000;

export interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs one hook command in the workspace with the event as JSON on stdin. Stdout and stderr
 *  are kept apart: they mean different things in the exit-code contract. A hook is a command
 *  like any other, so it runs in the same sandbox, process group and timeout as the bash tool. */
export async function runHook(
  command: string,
  event: object,
  cwd: string,
  sandbox: Sandbox,
  timeoutMs = HOOK_TIMEOUT_MS,
): Promise<HookRun> {
  const run = await runCommand(command, {
    sandbox,
    cwd,
    timeoutMs,
    maxOutput: MAX_HOOK_OUTPUT,
    shell: "sh",
    stdin: JSON.stringify(event),
  });
  return { exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr, timedOut: run.timedOut };
}
// #endregion run-hook

// #region fire
/** What the hooks of one event decided, together. */
export interface HookOutcome {
  /** Set when a PreToolUse hook exited 1: why the tool must not run. */
  blocked?: string;
  /** The tool input after any `updatedInput` rewrites (PreToolUse). */
  input?: Record<string, unknown>;
  /** Text for the model: `additionalContext` (exit 0) and stderr (exit 2). */
  context: string[];
}

export interface HookRunner {
  fire(
    event: HookEvent,
    payload: { tool?: ToolUseBlock; result?: { output: string; isError: boolean } },
  ): Promise<HookOutcome>;
}

export function createHookRunner(
  env: AgentEnv,
  trusted: TrustedHooks,
  timeoutMs = HOOK_TIMEOUT_MS,
): HookRunner {
  return {
    async fire(event, { tool, result }) {
      const outcome: HookOutcome = {
        context: [],
        input: tool?.input as Record<string, unknown> | undefined,
      };
      const matching = (trusted.hooks[event] ?? []).filter(
        (h) => !tool || h.matcher === undefined || h.matcher === "*" || h.matcher === tool.name,
      );
      // The trust was for these files as they were. One the model rewrote since (a write, a
      // background job) would run its text instead. So before and after each hook the files are
      // checked again: once one changed, no more hooks run, the answer of one that ran meanwhile
      // is dropped, and a PreToolUse check, which the person relies on, fails closed.
      const changedNow = (what: string) => {
        const changed = changedSinceTrust(env.workspace, trusted);
        if (!changed.length) return false;
        const why = `${changed.map(oneLine).join(", ")} changed since you trusted ${HOOKS_FILE}, so its hooks do not run until you trust it again`;
        env.io.note(`${event} ${what}: ${why}`);
        if (event === "PreToolUse") outcome.blocked = why;
        return true;
      };
      /** What one hook's answer means, by its exit code, added to the outcome (with a note for
       *  the person). True when the call is blocked: then no more hooks run. */
      const heedExitCode = (command: string, run: HookRun): boolean => {
        const label = `${event} hook "${command}"`;
        const stderr = run.stderr.trim();
        if (run.timedOut) {
          env.io.note(`${label} timed out after ${timeoutMs / 1000}s; ignored`);
        } else if (run.exitCode === 0) {
          const reply = parseReply(run.stdout);
          if (typeof reply === "string") {
            env.io.note(`${label}: ${reply}`);
            return false;
          }
          if (reply.updatedInput && event === "PreToolUse") {
            outcome.input = reply.updatedInput;
            env.io.note(`${label} rewrote the input: ${JSON.stringify(reply.updatedInput)}`);
          }
          if (reply.additionalContext) {
            outcome.context.push(reply.additionalContext);
            env.io.note(
              tool
                ? `${label} added a note to the result`
                : `${label} added context: ${reply.additionalContext}`,
            );
          }
        } else if (run.exitCode === 1 && event === "PreToolUse") {
          outcome.blocked = stderr || "(no reason given)";
          env.io.note(`${label} exited 1: ${tool!.name} is blocked`);
          return true;
        } else if (run.exitCode === 2) {
          if (stderr) outcome.context.push(stderr);
          env.io.note(
            tool
              ? `${label} exited 2: its stderr is added to the result`
              : `${label} exited 2: ${stderr}`,
          );
        } else {
          env.io.note(
            `${label} failed (exit ${run.exitCode}${stderr ? `: ${stderr}` : ""}); ignored`,
          );
        }
        return false;
      };
      for (const hook of matching) {
        if (changedNow("hooks not run")) return outcome;
        const stdin = {
          hook_event_name: event,
          cwd: env.workspace,
          ...(tool && { tool_name: tool.name, tool_input: outcome.input }),
          ...(result && { tool_result: result.output, is_error: result.isError }),
        };
        const run = await runHook(hook.command, stdin, env.workspace, env.sandbox, timeoutMs);
        if (changedNow(`hook "${oneLine(hook.command)}" ignored`)) return outcome;
        env.io.event("hook", {
          event,
          command: hook.command,
          exitCode: run.exitCode,
          timedOut: run.timedOut,
        });
        if (heedExitCode(hook.command, run)) return outcome; // a blocked call needs no more opinions
      }
      return outcome;
    },
  };
}

/** Exit 0 may print JSON: `{ "updatedInput": {...} }` and/or `{ "additionalContext": "..." }`.
 *  Returns the reply, or a string saying why stdout was ignored. */
function parseReply(
  stdout: string,
): { updatedInput?: Record<string, unknown>; additionalContext?: string } | string {
  const text = stdout.trim();
  if (!text) return {};
  try {
    const reply = JSON.parse(text);
    if (typeof reply !== "object" || reply === null || Array.isArray(reply))
      return "stdout is not a JSON object; ignored";
    const { updatedInput, additionalContext } = reply;
    return {
      updatedInput:
        typeof updatedInput === "object" && updatedInput !== null && !Array.isArray(updatedInput)
          ? updatedInput
          : undefined,
      additionalContext:
        typeof additionalContext === "string" && additionalContext.trim()
          ? additionalContext.trim()
          : undefined,
    };
  } catch {
    return "stdout is not JSON; ignored";
  }
}
// #endregion fire

// #region tool-with-hooks
/** One tool call wrapped in its hooks. Whatever happens, it yields exactly one result.
 *  (A harness with more tools passes its own handlers and where they act.) A harness with a
 *  permission gate passes it as `regate`: a call a hook rewrote is a new call, and passes the
 *  gate again, so a hook can never turn an approved call into one nobody approved. */
export async function runToolWithHooks(
  env: AgentEnv,
  hooks: HookRunner,
  call: ToolUseBlock,
  handlers: Record<string, ToolHandler> = BASE_HANDLERS,
  ctx: ToolContext = { root: env.workspace, sandbox: env.sandbox },
  regate?: (rewritten: ToolUseBlock) => Promise<string | null>,
): Promise<ToolOutcome> {
  const pre = await hooks.fire("PreToolUse", { tool: call });
  if (pre.blocked !== undefined)
    return { output: `Blocked by a PreToolUse hook: ${pre.blocked}`, isError: true };

  const input = pre.input ?? (call.input as Record<string, unknown>);
  if (regate && JSON.stringify(input) !== JSON.stringify(call.input)) {
    const refused = await regate({ ...call, input });
    if (refused)
      return { output: `A PreToolUse hook rewrote the input. ${refused}`, isError: true };
  }
  const result = await runTool(handlers, { ...call, input }, ctx);

  const post = await hooks.fire("PostToolUse", { tool: { ...call, input }, result });
  const notes = [...pre.context, ...post.context];
  if (notes.length === 0) return result;
  // Hook notes join the result of this call; they never become a second result for the same id.
  return { ...result, output: `${result.output}\n\n${notes.map((n) => `[hook] ${n}`).join("\n")}` };
}
// #endregion tool-with-hooks

// #region session
export interface HookOptions {
  /** Trust the workspace's hooks without asking (tests, or a harness that asked already). */
  trusted?: boolean;
  hookTimeoutMs?: number;
}

/** The hooks a person said yes to, by a SHA-256 fingerprint. It lives in the harness's state
 *  folder, not in the workspace: anything in the workspace came with the folder or was written by
 *  the model, so a "trusted" mark there would be the hooks vouching for themselves. */
export const trustFile = (env: AgentEnv) => path.join(env.stateDir, "trusted-hooks.json");
export const hooksHash = (text: string) => createHash("sha256").update(text).digest("hex");

function trustedHashes(env: AgentEnv): string[] {
  if (!existsSync(trustFile(env))) return [];
  const { sha256 } = readJson<{ sha256?: unknown }>(trustFile(env));
  return Array.isArray(sha256) ? sha256.filter((h) => typeof h === "string") : [];
}

/** Trusted hooks, with what was trusted: the file's text and the state of each workspace file
 *  its commands name (`sh hooks/guard.sh` runs hooks/guard.sh, which one write can replace). */
export interface TrustedHooks {
  hooks: HookConfig;
  text: string;
  scripts: Map<string, string>;
}
export const NO_HOOKS: TrustedHooks = { hooks: {}, text: "", scripts: new Map() };

/** What changed since the trust: the hooks file, or the scripts its commands name. */
function changedSinceTrust(workspace: string, trusted: TrustedHooks): string[] {
  let text = "";
  try {
    text = readInside(workspace, HOOKS_FILE);
  } catch {
    // gone or unreadable: it is not the text that was trusted
  }
  if (text !== trusted.text) return [HOOKS_FILE];
  return changedWords(JAIL, workspace, trusted.scripts);
}

/** The hooks whose scripts a yes can pin. A hook that names its script the way sh rewrites
 *  (`hooks/aft\\er.sh`, `hooks/*.sh`, `"$F"`) runs a file the fingerprint does not cover, so it is
 *  left out, before any question, with the reason. */
function pinnable(hooks: HookConfig, note: (text: string) => void): HookConfig {
  const kept: HookConfig = {};
  const noted = new Set<string>();
  for (const [event, list] of Object.entries(hooks) as [HookEvent, Hook[]][]) {
    kept[event] = list.filter((hook) => {
      const why = unpinnable(hook.command);
      if (noted.has(hook.command)) return why.length === 0;
      noted.add(hook.command);
      if (why.length > 0)
        note(
          `hook ${oneLine(JSON.stringify(hook.command))} is not run: ${why.map(oneLine).join("; ")}`,
        );
      return why.length === 0;
    });
  }
  return kept;
}

/** Hooks are shell commands that came with the folder. Opening a folder must not run its code,
 *  so they run only after a person said yes to this exact .hooks.json *and the scripts it runs*.
 *  The answer is kept for their fingerprint: change one character of either and the question
 *  comes back. */
export async function trustedHooks(env: AgentEnv, options: HookOptions): Promise<TrustedHooks> {
  const loaded = loadHooks(env.workspace, (note) => env.io.note(note));
  const { text } = loaded;
  const hooks = pinnable(loaded.hooks, (note) => env.io.note(note));
  const commands = commandsOf(hooks);
  if (commands.length === 0) return NO_HOOKS;
  const trusted = {
    hooks,
    text,
    scripts: wordStates(JAIL, env.workspace, commands.flatMap(scriptWords)),
  };
  const hash = fingerprint(text, trusted.scripts);
  const known = trustedHashes(env);
  if (options.trusted || known.includes(hash)) return trusted;
  const scripts = filesAmong(trusted.scripts);
  const answer = await env.ask(
    `This workspace's ${HOOKS_FILE} wants to run ${commands.map((c) => oneLine(JSON.stringify(c))).join(", ")}` +
      (scripts.length ? ` (with ${scripts.map(oneLine).join(", ")} as they are now)` : "") +
      ". Run its hooks? (yes is remembered until the file or those scripts change)",
    ["yes", "no"],
  );
  if (!/^y/i.test(answer)) {
    env.io.note(`hooks not run: you did not trust this ${HOOKS_FILE}`);
    return NO_HOOKS;
  }
  writeJsonAtomic(trustFile(env), { sha256: [...known, hash] });
  env.io.note(
    `trusted this ${HOOKS_FILE} (sha256 ${hash.slice(0, 12)}…), recorded in ${trustFile(env)}`,
  );
  return trusted;
}

export function createAgent(env: AgentEnv, options: HookOptions = {}): Agent {
  const messages: MessageParam[] = [];
  let session: { system: string; hooks: HookRunner } | undefined;

  /** The session starts with the first prompt: load and trust the hooks, run SessionStart. */
  async function startSession() {
    const hooks = createHookRunner(env, await trustedHooks(env, options), options.hookTimeoutMs);
    const { context } = await hooks.fire("SessionStart", {});
    const system = context.length
      ? `${SYSTEM}\n\nContext from the user's SessionStart hooks:\n${context.join("\n")}`
      : SYSTEM;
    return { system, hooks };
  }

  return {
    messages,
    async send(prompt) {
      const { system, hooks } = (session ??= await startSession());
      messages.push({ role: "user", content: prompt });
      // s02's loop, each call wrapped in its hooks.
      await agentLoop(env, messages, {
        system,
        tools: TOOLS,
        runCall: (call) => runToolWithHooks(env, hooks, call),
      });
    },
  };
}
// #endregion session
