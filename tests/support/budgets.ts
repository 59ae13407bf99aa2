// Every timeout in the suite comes from here: a budget per kind of work a test does, times one
// factor for how slow this machine is today.
//
// A timeout is there to turn a hang into a failure, not to measure speed (`npm run bench` does
// that), so a budget is what the work takes on an idle machine with room to spare, and a test's
// timeout is the sum of the work it does: `budget({ cli: 4 })` for a test that starts the runner
// four times. On a busy machine everything is slower by about the same factor, so the budgets are
// multiplied by one factor (runScale()):
//   - TEST_TIMEOUT_SCALE, when set (a slow laptop, a debugger);
//   - else the load per core when the run started, plus one (an idle machine: 1, two busy
//     loops on two cores: about 2), at least 2 under CI, at most 8.
// vitest.config.ts works the factor out once, in the main process, and hands it to every worker
// (LAH_TIMEOUT_SCALE); a file collected when the machine has got busier than that takes the
// factor of the load then (runScale()): the load can rise during a run, and a timeout is no test
// of speed.
import { availableParallelism, loadavg } from "node:os";

/** What each kind of work takes on an idle machine, with room to spare (milliseconds). */
export const BUDGET = {
  /** In-process code only: a function, a parser, a fold over a trace. */
  unit: 5_000,
  /** A chapter's agent played in process by a scripted model (scriptedEnv, playScenario). */
  chapterRun: 15_000,
  /** The runner or the exercise CLI as a learner starts it: a node process with tsx, to its end. */
  cli: 15_000,
  /** One command through the harness's shell (in the sandbox where there is one). */
  command: 10_000,
  /** A helper process of the test's own starting, stopping, or being seen by ps. */
  process: 10_000,
  /** `astro build` of the whole site, clean. */
  siteBuild: 300_000,
  /** Launching chromium and serving the suite's build. */
  browser: 30_000,
  /** Loading one page in chromium and what a test does on it: its diagrams drawn, its scripts
   *  ready, a few clicks, evaluations or a screenshot. */
  page: 20_000,
  /** One evaluation in an open page that does real work: reading a megabyte of a recording. */
  evaluate: 1_000,
  /** Laying out one diagram in one pair of fonts and measuring every text in it. */
  diagram: 250,
} as const;

export type Work = keyof typeof BUDGET;

/** The factor for this machine now (see the top of the file). Throws on a TEST_TIMEOUT_SCALE
 *  that is not a positive number, rather than running with no timeouts at all. */
export function timeoutScale(
  env: NodeJS.ProcessEnv = process.env,
  load = loadavg()[0],
  cores = availableParallelism(),
): number {
  for (const name of ["TEST_TIMEOUT_SCALE", "LAH_TIMEOUT_SCALE"] as const) {
    const given = env[name];
    if (given === undefined || given === "") continue;
    const factor = Number(given);
    if (!(factor > 0) || !Number.isFinite(factor))
      throw new Error(`${name} must be a positive number such as 2, not "${given}".`);
    return factor;
  }
  const busy = 1 + load / Math.max(1, cores);
  return Math.min(8, Math.max(env.CI ? 2 : 1, Math.round(busy * 10) / 10));
}

/** The factor for a test collected now: the one its run started with (LAH_TIMEOUT_SCALE, in a
 *  worker) or, when the machine has got busier since (a build started beside the suite), the one
 *  for the load now: a file collected later gets the larger, never a smaller one. A
 *  TEST_TIMEOUT_SCALE someone set is the factor, whatever the load. */
export function runScale(
  env: NodeJS.ProcessEnv = process.env,
  load = loadavg()[0],
  cores = availableParallelism(),
): number {
  const atStart = timeoutScale(env, load, cores);
  if (env.TEST_TIMEOUT_SCALE) return atStart;
  return Math.max(atStart, timeoutScale({ CI: env.CI }, load, cores));
}

/** The timeout for a test (or hook, or wait) that does this much work: the sum of the budgets,
 *  times this run's factor. `budget({ cli: 2, command: 3 })`; `budget("page")` for one of a kind. */
export function budget(work: Work | Partial<Record<Work, number>>, scale = runScale()): number {
  const counts = typeof work === "string" ? { [work]: 1 } : work;
  let ms = 0;
  for (const [kind, n] of Object.entries(counts)) ms += BUDGET[kind as Work] * (n ?? 0);
  return Math.round(ms * scale);
}
