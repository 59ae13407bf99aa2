/**
 * s11 · Background tasks
 *
 * Every tool call so far blocked the loop: a two-minute build meant two minutes in which the model
 * could do nothing else. Here a slow command can run in the background:
 *   1. `background_run` starts it in its own process group and returns an id at once;
 *   2. when it finishes, its result goes into a notification queue;
 *   3. before every model call the loop drains the queue and injects each result exactly once;
 *   4. the loop does not end while a command is still running: it waits for the result.
 * A timeout (or the end of the session) kills the command's whole process group, so no stray
 * children are left behind.
 */
import { harnessWarningsIn } from "../_shared/git-guard.ts";
import { startCommand, type RunningCommand, type Sandbox } from "../_shared/shell.ts";
import { BLOCKED } from "../s01-agent-loop/agent.ts";
import {
  BASE_HANDLERS,
  BASE_TOOLS,
  normalizeMessages,
  runTool,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import type {
  Agent,
  AgentEnv,
  IO,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Paths are relative to the workspace.
Start slow commands (builds, test suites) with background_run: it returns an id at once, and the result
arrives by itself in a <background-results> block before one of your next turns. Do other useful work
meanwhile instead of waiting; check_background shows a command's status early. Do not poll in a loop.
When the task is done, say so briefly.`;

// #region tools
export const BACKGROUND_TOOLS: Tool[] = [
  {
    name: "background_run",
    description:
      "Start a shell command in the background and return its id (bg_1, bg_2, ...) at once. " +
      "When it finishes, its result is delivered to you automatically. Optional timeout in seconds (default 120, max 600).",
    input_schema: {
      type: "object",
      properties: {
        command: { type: "string" },
        timeout: { type: "number", description: "seconds" },
      },
      required: ["command"],
    },
  },
  {
    name: "check_background",
    description:
      "Show a background command's status (running, completed, failed, timeout) and output so far. Without id: list all.",
    input_schema: { type: "object", properties: { id: { type: "string" } } },
  },
];
export const TOOLS: Tool[] = [...BASE_TOOLS, ...BACKGROUND_TOOLS];
// #endregion tools

// #region job
export type JobStatus = "running" | "completed" | "failed" | "timeout";

export interface BackgroundJob {
  id: string;
  command: string;
  status: JobStatus;
  output: string;
  exitCode: number | null;
  /** The process group leader: killing -pid kills the command and everything it started. */
  pid: number | undefined;
  timeoutMs: number;
  /** The harness's warnings about it (what it changed in what git runs), shown when its result
   *  is injected, however many other results came first. */
  warnings: string[];
}

export interface BackgroundOptions {
  /** How long a command may run when the model gives no timeout (ms). */
  timeoutMs?: number;
  /** The longest timeout the model may ask for (ms). */
  maxTimeoutMs?: number;
  /** Characters of output kept per command. */
  maxOutput?: number;
}
// #endregion job

// #region start
/** The background commands of one agent, and the queue of results not yet shown to the model. */
export class BackgroundJobs {
  private readonly jobs = new Map<string, BackgroundJob>();
  private readonly exited = new Map<string, Promise<void>>();
  private readonly runs = new Map<string, RunningCommand>();
  private queue: BackgroundJob[] = [];
  private waiting: (() => void)[] = [];
  private count = 0;
  private closed = false;
  /** Jobs that finished once the session was closing: no turn will inject their results. */
  private unseen: BackgroundJob[] = [];
  readonly timeoutMs: number;
  readonly maxTimeoutMs: number;
  readonly maxOutput: number;

  constructor(
    private readonly cwd: string,
    private readonly sandbox: Sandbox,
    options: BackgroundOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
    this.maxOutput = options.maxOutput ?? 10_000;
  }

  /** Starts the command and returns at once; the command keeps running. */
  start(command: string, timeoutMs = this.timeoutMs): BackgroundJob {
    if (BLOCKED.some((pattern) => pattern.test(command)))
      throw new Error(`blocked dangerous command: ${command}`);
    if (this.closed) throw new Error("the session is closing; no new background commands");
    const id = `bg_${++this.count}`;
    timeoutMs = Math.min(Math.max(timeoutMs, 1), this.maxTimeoutMs);
    // The shared runner gives it its own process group (and sandbox): one kill ends all of it.
    const run = startCommand(command, {
      sandbox: this.sandbox,
      cwd: this.cwd,
      timeoutMs,
      maxOutput: this.maxOutput,
    });
    const job: BackgroundJob = {
      id,
      command,
      status: "running",
      output: "",
      exitCode: null,
      pid: run.pid,
      timeoutMs,
      warnings: [],
    };
    this.jobs.set(id, job);
    this.runs.set(id, run);
    this.exited.set(
      id,
      run.done.then((result) => {
        job.output = result.output.trim() || "(no output)";
        if (result.truncated) job.output += `\n… (output capped at ${this.maxOutput} characters)`;
        job.exitCode = result.exitCode;
        job.warnings = result.warnings ?? [];
        job.status = result.timedOut ? "timeout" : result.exitCode === 0 ? "completed" : "failed";
        if (this.closed) this.unseen.push(job);
        else this.notify(job);
      }),
    );
    return job;
  }
  // #endregion start

  get(id: string): BackgroundJob {
    const job = this.jobs.get(id);
    if (!job)
      throw new Error(
        `unknown background command "${id}" (known: ${[...this.jobs.keys()].join(", ") || "none"})`,
      );
    // While it runs, check_background shows what it has printed so far.
    if (job.status === "running") job.output = this.runs.get(id)!.output();
    return job;
  }

  list(): BackgroundJob[] {
    return [...this.jobs.keys()].map((id) => this.get(id));
  }

  get running(): number {
    return this.list().filter((job) => job.status === "running").length;
  }

  /** Results that finished but were not shown to the model yet. */
  get pending(): number {
    return this.queue.length;
  }

  // #region queue
  private notify(job: BackgroundJob): void {
    this.queue.push(job);
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** Takes every queued result out of the queue: each one is handed out exactly once. */
  drain(): BackgroundJob[] {
    return this.queue.splice(0);
  }

  /** Once the model has seen a finished command's output through check_background, it needs no notice. */
  acknowledge(id: string): void {
    this.queue = this.queue.filter((job) => job.id !== id);
  }

  /** Resolves when a result is queued (or the session closes). */
  nextResult(): Promise<void> {
    if (this.queue.length > 0 || this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Ends the session: kills every command still running, with all its children. Returns the
   *  finished jobs no turn will show: their warnings must still reach the person. */
  async close(): Promise<BackgroundJob[]> {
    this.closed = true;
    for (const job of this.list()) if (job.status === "running") this.runs.get(job.id)?.kill();
    await Promise.all(this.exited.values());
    for (const wake of this.waiting.splice(0)) wake();
    return [...this.queue.splice(0), ...this.unseen.splice(0)];
  }
  // #endregion queue
}

/** One line per command, as the model reads it: `[bg_1] completed (exit 0): make`. */
export function headline(job: BackgroundJob): string {
  const how =
    job.status === "running"
      ? ""
      : job.status === "timeout"
        ? ` (killed after ${job.timeoutMs / 1000}s)`
        : ` (exit ${job.exitCode ?? "killed"})`;
  return `[${job.id}] ${job.status}${how}: ${job.command}`;
}

/** What background_run answers: the job's id first, so the model can check on it by name. */
export const startedLine = (job: BackgroundJob): string =>
  `Started ${job.id} in the background: ${job.command}\nIts result will be delivered when it finishes.`;

export const listJobs = (jobs: BackgroundJobs): string =>
  jobs.list().map(headline).join("\n") || "(no background commands)";

// #region handlers
/** The background tools. A job started is also reported to `io`, for the trace (the player's job list). */
export function backgroundHandlers(
  jobs: BackgroundJobs,
  io?: Pick<IO, "event">,
): Record<string, ToolHandler> {
  return {
    background_run({ command, timeout }) {
      if (typeof command !== "string" || !command.trim())
        throw new Error("command must be a non-empty string");
      const job = jobs.start(
        command,
        typeof timeout === "number" && timeout > 0 ? timeout * 1000 : undefined,
      );
      io?.event("job_started", { id: job.id, command: job.command });
      return startedLine(job);
    },
    check_background({ id }) {
      if (id === undefined || id === "") return listJobs(jobs);
      const job = jobs.get(String(id));
      if (job.status === "running")
        return `${headline(job)}\n${job.output.trim() || "(no output yet)"}`;
      jobs.acknowledge(job.id); // the model sees the result here, so it will not be injected again
      return `${headline(job)}\n${job.output}`;
    },
  };
}
// #endregion handlers

// #region inject
/** The model answered without asking for a tool: may the turn end? Not while a command's result
 *  is still to come — a result the model never sees would be lost — so wait for the next one. */
export async function turnCanEnd(env: AgentEnv, jobs: BackgroundJobs): Promise<boolean> {
  if (jobs.pending === 0 && jobs.running === 0) return true;
  if (jobs.pending === 0) {
    env.io.note(`waiting for ${jobs.running} background command(s) to finish…`);
    await jobs.nextResult();
    if (jobs.pending === 0) return true; // the session closed while we waited
  }
  return false;
}

/** Before each model call: every result that finished since the last call, once, as user text. */
export function injectBackgroundResults(
  env: AgentEnv,
  jobs: BackgroundJobs,
  messages: MessageParam[],
): void {
  const finished = jobs.drain();
  if (finished.length === 0) return;
  const text = [
    "<background-results>",
    ...finished.map((job) => `${headline(job)}\n${job.output}`),
    "</background-results>",
  ];
  // Usually this follows a user turn of tool results; normalizeMessages merges the two.
  messages.push({ role: "user", content: [{ type: "text", text: text.join("\n") }] });
  for (const job of finished) env.io.event("background_result", { id: job.id, status: job.status });
  env.io.note(
    `background results injected: ${finished.map((job) => `${job.id} ${job.status}`).join(", ")}`,
  );
  noteWarnings(env, finished);
}

/** The output itself is not printed; a warning the harness put in it is (shell.ts, git-guard.ts),
 *  from the job itself: the harness's memory of the warnings it issued is bounded. */
export function noteWarnings(env: AgentEnv, finished: BackgroundJob[]): void {
  for (const job of finished)
    for (const text of new Set([...job.warnings, ...harnessWarningsIn(job.output)]))
      env.io.note(text);
}
// #endregion inject

// #region loop
export async function agentLoop(
  env: AgentEnv,
  messages: MessageParam[],
  jobs: BackgroundJobs,
): Promise<void> {
  const handlers = { ...BASE_HANDLERS, ...backgroundHandlers(jobs, env.io) };
  for (;;) {
    injectBackgroundResults(env, jobs, messages);
    const response = await env.model.messages.create({
      model: env.modelId,
      system: SYSTEM,
      messages: normalizeMessages(messages),
      tools: TOOLS,
      max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") {
      if (await turnCanEnd(env, jobs)) return;
      continue; // a result came in: the model reads it next
    }

    const results: ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { output, isError } = await runTool(
        handlers,
        block,
        { root: env.workspace, sandbox: env.sandbox },
        TOOLS,
      );
      env.io.toolResult(block, output, isError);
      results.push({
        type: "tool_result",
        tool_use_id: block.id,
        content: output,
        is_error: isError,
      });
    }
    messages.push({ role: "user", content: results });
  }
}
// #endregion loop

export function createAgent(env: AgentEnv, options: BackgroundOptions = {}): Agent {
  const messages: MessageParam[] = [];
  const jobs = new BackgroundJobs(env.workspace, env.sandbox, options);
  return {
    messages,
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, jobs);
    },
    commands: {
      "/jobs": { help: "list the background commands and their status", run: () => listJobs(jobs) },
    },
    // A command that changed `.git` and ran on until the session ended is still named on screen.
    close: async () => noteWarnings(env, await jobs.close()),
  };
}
