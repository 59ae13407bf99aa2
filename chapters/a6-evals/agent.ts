/**
 * a6 · Measure your harness
 *
 * You changed your harness. Is it better? Not "did the demo work": on which tasks, how often, at
 * what cost, and how sure can you be. An eval answers that the way a test suite answers "does it
 * work": the same tasks, fresh workspaces, a verifier that judges the files and not the agent's
 * own report, and numbers with their uncertainty. This chapter builds one:
 *   1. tasks in a folder format close to the field's (tasks.ts: instruction, environment, a
 *      hidden verifier, a reference solution);
 *   2. contestants: the chapters' harnesses, plus two that keep the tasks honest — the oracle,
 *      which applies the reference solution and must pass everything, and the null agent, which
 *      does nothing and must pass nothing;
 *   3. a run per harness × task × trial, each in its own fresh workspace, in parallel;
 *   4. the numbers (stats.ts): pass@1, pass@k and pass^k with 95 % intervals, tokens and cost;
 *   5. the model: scripted offline, real with a key, or a recorded real run replayed (replay.ts).
 * The harnesses under test bring their own tools; this chapter's own agent is s02's. How a run's
 * environment is put together (a scripted or real client, a recorder that counts tokens) is the
 * runner's plumbing, handed in as a Stage: chapters/_runner/eval.ts, which `npm run eval` starts.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { runCommand, sandboxFor } from "../_shared/shell.ts";
import type { Agent, AgentEnv, ChapterModule, ModelClient, Tool } from "../_shared/types.ts";
import * as s02 from "../s02-tool-use/agent.ts";
import * as s07 from "../s07-permission-system/agent.ts";
import * as a2 from "../a2-full-harness/agent.ts";
import * as a3 from "../a3-edits-that-land/agent.ts";
import { bootstrap, mean, passAtK, passHatK, wilson, type Interval } from "./stats.ts";
import { type Cassette, recordingClient, replayClient } from "./replay.ts";
import {
  prepareWorkspace,
  removeWorkspace,
  selectTasks,
  type Task,
  type TaskScript,
  taskScript,
  verify,
} from "./tasks.ts";

// #region contestants
/** Where the model's answers come from in a run. */
export type ModelSource =
  | { kind: "scripted" }
  | { kind: "real"; client: ModelClient; modelId: string; cassette?: Cassette }
  | { kind: "replay"; cassette: Cassette; modelId: string };

/** What the model's answers cost, as the Messages API counts them. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

/** How one run's environment is put together: the model (scripted from the task's script, or
 *  `client` for each agent), and a record of every answer to count calls and tokens from. The
 *  runner supplies it (chapters/_runner/eval.ts); a test can supply its own. */
export interface Stage {
  envFor(run: {
    workspace: string;
    modelId?: string;
    /** Offline: the scripted turns per agent. */
    script?: ReturnType<TaskScript>;
    /** Otherwise: the client each agent (lead, subagent, teammate) talks to. */
    client?: (agent: string) => ModelClient;
  }): { env: AgentEnv; answers(): { usage?: TokenUsage }[] };
  /** Estimated dollars for `usage` on `model`, when its price is known. */
  costOf(model: string, usage: TokenUsage): number | undefined;
}

/** One run of one contestant on one task, in a workspace made for it. */
export interface Play {
  task: Task;
  workspace: string;
  source: ModelSource;
  stage: Stage;
}

/** What a contestant reports: model calls and tokens. Whether it passed is not its to say. */
export interface PlayReport {
  calls: number;
  usage: TokenUsage;
  /** Why the run ended early, if it did (a timeout, a replay miss, a model error). */
  error?: string;
}

export interface Contestant {
  name: string;
  play(run: Play): Promise<PlayReport>;
}

const NO_USAGE: TokenUsage = { input_tokens: 0, output_tokens: 0 };

/** Applies the reference solution: every task must pass, or the task (or its verifier) is wrong. */
export const ORACLE: Contestant = {
  name: "oracle",
  async play({ task, workspace }) {
    const solve = readFileSync(path.join(task.dir, "solution", "solve.sh"), "utf8");
    const result = await runCommand(solve, {
      sandbox: sandboxFor(workspace),
      cwd: workspace,
      timeoutMs: task.agentTimeoutMs,
    });
    const error = result.exitCode === 0 ? undefined : `solve.sh failed: ${result.output.trim()}`;
    return { calls: 0, usage: NO_USAGE, error };
  },
};

/** Does nothing: every task must fail, or its verifier passes a workspace nobody touched. */
export const NULL_AGENT: Contestant = {
  name: "null",
  play: async () => ({ calls: 0, usage: NO_USAGE }),
};

/** A chapter's harness, as the eval runs it: headless, so a question it would ask a person is
 *  answered "no" (nobody is there), and a gated harness runs in auto mode under its own starting
 *  rules plus the task's deny rules. */
interface HarnessSpec {
  module: ChapterModule;
  /** The chapter's starting permission rules, for a harness with a gate. */
  rules?: string;
}

const HARNESSES: Record<string, HarnessSpec> = {
  s02: { module: s02 },
  s07: { module: s07, rules: s07.STARTING_RULES },
  a2: { module: a2, rules: a2.STARTING_RULES },
  a3: { module: a3 },
};
export const HARNESS_NAMES = Object.keys(HARNESSES);
/** What `npm run eval` runs without --harness: the course's three (a3 runs when named). */
export const DEFAULT_HARNESSES = ["s02", "s07", "a2"];

/** The rules a gated harness finds in its state folder: its own, with the task's deny rules. */
function writeRules(env: AgentEnv, spec: HarnessSpec, task: Task): void {
  if (!spec.rules) return;
  const rules = JSON.parse(readFileSync(spec.rules, "utf8")) as { deny?: unknown[] };
  rules.deny = [...(rules.deny ?? []), ...task.deny];
  mkdirSync(env.stateDir, { recursive: true });
  writeFileSync(s07.rulesFile(env), JSON.stringify(rules, null, 2));
}

/** The client one agent of a real or replayed run talks to. */
function clientFor(
  source: Exclude<ModelSource, { kind: "scripted" }>,
  agent: string,
  workspace: string,
): ModelClient {
  if (source.kind === "replay") return replayClient(source.cassette, agent, workspace);
  return source.cassette
    ? recordingClient(source.client, source.cassette, agent, workspace)
    : source.client;
}

function harnessContestant(name: string, spec: HarnessSpec): Contestant {
  const toolNames = new Set(spec.module.TOOLS.map((t) => t.name));
  return {
    name,
    async play({ task, workspace, source, stage }) {
      const { env, answers } =
        source.kind === "scripted"
          ? stage.envFor({ workspace, script: (await taskScript(task))(toolNames) })
          : stage.envFor({
              workspace,
              modelId: source.modelId,
              // Each agent gets a client of its own, so a recording or a replay matches each
              // one's requests in their own order.
              client: (agent) => clientFor(source, agent, workspace),
            });
      writeRules(env, spec, task);
      const agent = spec.module.createAgent(env, spec.rules ? { mode: "auto" } : undefined);
      let error: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          agent.send(task.instruction),
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`timed out after ${task.agentTimeoutMs / 1000} s`)),
              task.agentTimeoutMs,
            );
          }),
        ]);
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      } finally {
        clearTimeout(timer);
        await agent.close?.();
      }
      const responses = answers();
      const usage = responses.reduce<TokenUsage>(
        (sum, r) => ({
          input_tokens: sum.input_tokens + (r.usage?.input_tokens ?? 0),
          output_tokens: sum.output_tokens + (r.usage?.output_tokens ?? 0),
        }),
        { ...NO_USAGE },
      );
      return { calls: responses.length, usage, error };
    },
  };
}

/** A contestant by name: oracle, null, or a harness (s02, s07, a2). */
export function contestant(name: string): Contestant {
  if (name === "oracle") return ORACLE;
  if (name === "null") return NULL_AGENT;
  const spec = HARNESSES[name];
  if (!spec)
    throw new Error(
      `unknown harness "${name}"; the harnesses are: ${["oracle", "null", ...HARNESS_NAMES].join(", ")}`,
    );
  return harnessContestant(name, spec);
}
// #endregion contestants

// #region run
export interface RunRecord {
  harness: string;
  task: string;
  trial: number;
  passed: boolean;
  /** test.sh's exit code; null when the verifier timed out. */
  exitCode: number | null;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  error?: string;
  /** Not in the results file: they differ from run to run. */
  ms: number;
  verifierOutput: string;
}

/** One harness on one task, once: a fresh workspace, the play, the verdict, the workspace gone. */
export async function runOne(
  who: Contestant,
  task: Task,
  trial: number,
  stage: Stage,
  source: ModelSource = { kind: "scripted" },
): Promise<RunRecord> {
  const started = performance.now();
  const workspace = await prepareWorkspace(task);
  try {
    const report = await who.play({ task, workspace, source, stage });
    const verdict = await verify(task, workspace);
    return {
      harness: who.name,
      task: task.id,
      trial,
      passed: verdict.passed,
      exitCode: verdict.exitCode,
      calls: report.calls,
      input_tokens: report.usage.input_tokens,
      output_tokens: report.usage.output_tokens,
      ...(report.error ? { error: report.error } : {}),
      ms: Math.round(performance.now() - started),
      verifierOutput: verdict.output,
    };
  } finally {
    removeWorkspace(workspace);
  }
}

/** Runs `work` over `items`, at most `limit` at a time; results keep the items' order. */
export async function inParallel<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

export interface EvalOptions {
  stage: Stage;
  harnesses: string[];
  tasks: string;
  trials: number;
  seed: number;
  /** How many runs at once (default: the machine's cores). */
  parallel?: number;
  /** The model for every run; the cassette for run (harness, task, trial), when recording or
   *  replaying. */
  source?: (harness: string, task: string, trial: number) => ModelSource;
  /** Told after each run (the progress bar). */
  onRun?: (record: RunRecord, done: number, total: number) => void;
}

export async function runEval(options: EvalOptions): Promise<RunRecord[]> {
  if (!Number.isInteger(options.trials) || options.trials < 1)
    throw new Error(`--trials must be a whole number ≥ 1, not ${options.trials}`);
  const tasks = selectTasks(options.tasks);
  const contestants = options.harnesses.map(contestant);
  const jobs = contestants.flatMap((who) =>
    tasks.flatMap((task) =>
      Array.from({ length: options.trials }, (_, trial) => ({ who, task, trial: trial + 1 })),
    ),
  );
  let done = 0;
  return inParallel(jobs, options.parallel ?? availableParallelism(), async (job) => {
    const source = options.source?.(job.who.name, job.task.id, job.trial) ?? { kind: "scripted" };
    const record = await runOne(job.who, job.task, job.trial, options.stage, source);
    options.onRun?.(record, ++done, jobs.length);
    return record;
  });
}
// #endregion run

// #region numbers
export interface Rate extends Interval {
  value: number;
}

export interface HarnessSummary {
  harness: string;
  tasks: number;
  trials: number;
  /** Mean over tasks of c/n, with a Wilson interval over the tasks. */
  pass1: Rate;
  /** k = trials: mean over tasks, with a bootstrap interval over tasks. */
  passAtK: Rate;
  passHatK: Rate;
  /** Mean per task and trial. */
  calls: number;
  tokens: number;
  /** Estimated US dollars per task and trial on `model`, when its price is known. */
  cost?: number;
}

const round = (x: number, digits = 4) => Number(x.toFixed(digits));
const rate = (value: number, interval: Interval): Rate => ({
  value: round(value),
  low: round(interval.low),
  high: round(interval.high),
});

export function summarize(
  records: RunRecord[],
  seed: number,
  model: string,
  costOf: Stage["costOf"] = () => undefined,
): HarnessSummary[] {
  const harnesses = [...new Set(records.map((r) => r.harness))];
  return harnesses.map((harness, h) => {
    const own = records.filter((r) => r.harness === harness);
    const taskIds = [...new Set(own.map((r) => r.task))];
    const perTask = taskIds.map((task) => {
      const runs = own.filter((r) => r.task === task);
      return { n: runs.length, c: runs.filter((r) => r.passed).length };
    });
    const k = Math.min(...perTask.map((t) => t.n));
    const p1 = perTask.map(({ n, c }) => c / n);
    const pk = perTask.map(({ n, c }) => passAtK(n, c, k));
    const phk = perTask.map(({ n, c }) => passHatK(n, c, k));
    const usage = {
      input_tokens: mean(own.map((r) => r.input_tokens)),
      output_tokens: mean(own.map((r) => r.output_tokens)),
    };
    const cost = costOf(model, usage);
    return {
      harness,
      tasks: taskIds.length,
      trials: k,
      pass1: rate(mean(p1), wilson(mean(p1), taskIds.length)),
      passAtK: rate(mean(pk), bootstrap(pk, seed + h)),
      passHatK: rate(mean(phk), bootstrap(phk, seed + 1000 + h)),
      calls: round(mean(own.map((r) => r.calls)), 2),
      tokens: Math.round(usage.input_tokens + usage.output_tokens),
      ...(cost === undefined ? {} : { cost: round(cost, 5) }),
    };
  });
}
// #endregion numbers

// #region results
export interface ResultsFile {
  version: 1;
  /** "scripted" offline, "real" with a key, "replay" from recordings. */
  mode: ModelSource["kind"];
  model: string;
  seed: number;
  trials: number;
  tasks: { id: string; chapter: string; mechanism: string }[];
  summary: HarnessSummary[];
  /** One line per run, by harness (in the order asked for), task and trial: only what is the same
   *  every time. */
  runs: Omit<RunRecord, "ms" | "verifierOutput">[];
}

/** The results, as a file that is byte-identical for the same runs and seed: no times, no
 *  paths, no verifier output (a test runner prints durations), sorted. */
export function resultsFile(
  records: RunRecord[],
  options: { seed: number; trials: number; mode: ModelSource["kind"]; model: string },
  costOf?: Stage["costOf"],
): string {
  // Harnesses in the order they were asked for (the course's: s02, s07, a2), then tasks by id.
  const harnesses = [...new Set(records.map((r) => r.harness))];
  const order = (r: RunRecord) =>
    `${String(harnesses.indexOf(r.harness)).padStart(4, "0")}\0${r.task}\0${String(r.trial).padStart(4, "0")}`;
  const sorted = [...records].sort((a, b) => (order(a) < order(b) ? -1 : 1));
  const tasks = selectTasks([...new Set(sorted.map((r) => r.task))].join(","));
  const file: ResultsFile = {
    version: 1,
    mode: options.mode,
    model: options.model,
    seed: options.seed,
    trials: options.trials,
    tasks: tasks.map((t) => ({ id: t.id, chapter: t.chapter, mechanism: t.mechanism })),
    summary: summarize(sorted, options.seed, options.model, costOf),
    runs: sorted.map(({ ms: _ms, verifierOutput: _out, ...kept }) => kept),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
// #endregion results

// #region agent
/** The harnesses under test bring their own tools; this chapter's agent is s02's, unchanged:
 *  what this chapter adds is around the agent, not in it. */
export const TOOLS: Tool[] = s02.TOOLS;
export const createAgent = (env: AgentEnv): Agent => s02.createAgent(env);
// #endregion agent

/** The harness × task table, ✓ for a pass (n/k with several trials). */
export function renderTable(records: RunRecord[]): string {
  const harnesses = [...new Set(records.map((r) => r.harness))];
  const tasks = [...new Set(records.map((r) => r.task))].sort();
  const width = Math.max(...tasks.map((t) => t.length));
  const cell = (harness: string, task: string) => {
    const runs = records.filter((r) => r.harness === harness && r.task === task);
    const passed = runs.filter((r) => r.passed).length;
    return runs.length === 1 ? (passed ? "✓" : "✗") : `${passed}/${runs.length}`;
  };
  return [
    `${"".padEnd(width)}  ${harnesses.map((h) => h.padStart(6)).join("")}`,
    ...tasks.map(
      (task) =>
        `${task.padEnd(width)}  ${harnesses.map((h) => cell(h, task).padStart(6)).join("")}`,
    ),
  ].join("\n");
}
