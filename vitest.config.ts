import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { globSync } from "tinyglobby";
import { configDefaults, defineConfig } from "vitest/config";
import { budget, timeoutScale } from "./tests/support/budgets.ts";
import SiteLastSequencer from "./tests/support/sequencer.ts";
import { needsSite } from "./tests/support/site-build.ts";

// One id per `vitest run`, so the sequencer and every worker agree on one site build.
process.env.LAH_TEST_RUN ??= `${process.pid}-${Date.now()}`;
// One timeout factor per run, from the load when it starts (tests/support/budgets.ts): every
// worker reads it from here rather than from the load when it happens to start.
process.env.LAH_TIMEOUT_SCALE ??= String(timeoutScale());

// The site checks that read the built site (the same test sequencer.ts uses to start the build):
// everything else under tests/site is a pure function of site/lib and runs without a build.
const built = globSync("tests/site/**/*.test.ts").filter(needsSite);

/** The files each suite runs. `npm test` runs every file; `npm run test:quick` (tests/support/
 *  quick.config.ts) is the edit–test loop: every chapter's behaviours and the site's logic, with no
 *  site build, no browser, and none of the slow end-to-end suites (tests/reliability's attacks,
 *  crashes and terminals; tests/exercises' wrong answers), which are half the suite's CPU;
 *  `npm run test:site` (site.config.ts) is the part that reads the built site. One suite is one pool: vitest runs its projects one after
 *  another when files share their workers (isolate: false), so five projects once left a worker
 *  idle at the end of each while another finished its longest file. */
const SUITES = {
  all: { include: ["tests/**/*.test.ts"], exclude: ["tests/open-doors/**"] },
  quick: { include: ["tests/{chapters,site}/**/*.test.ts"], exclude: built },
  site: { include: [...built, "tests/browser/**/*.test.ts"], exclude: [] },
};

const WORKERS = Math.max(2, availableParallelism());

export function suite(name: keyof typeof SUITES) {
  return defineConfig({
    root: path.dirname(fileURLToPath(import.meta.url)),
    test: {
      include: SUITES[name].include,
      exclude: [...configDefaults.exclude, ...SUITES[name].exclude],
      globalSetup: ["tests/support/global-setup.ts"],
      // Files share their worker's modules instead of each importing vitest, the chapters and the
      // SDK afresh: a third less CPU for the suite. Tests therefore keep no state in shared
      // modules; the clean-ups every test needs are registered per file in tests/support/setup.ts.
      isolate: false,
      setupFiles: ["tests/support/setup.ts"],
      // vitest's default is one worker per core but one; most of our tests wait on child
      // processes, files and a browser rather than compute, so two workers keep a 2-core machine
      // busy.
      maxWorkers: WORKERS,
      // As many kept as started: with fewer, an idle worker is taken away while the run ends,
      // and the run fails on "Terminating worker thread" (seen with 3 and 4 workers, never 2).
      minWorkers: WORKERS,
      // Longest files first, the ones that read the built site last (its build runs meanwhile).
      sequence: { sequencer: SiteLastSequencer },
      // A test or hook that names no budget of its own may start the runner twice; the ones that
      // wait for the site build, a browser or more say so (budget(...) in the test file).
      testTimeout: budget({ cli: 2 }),
      hookTimeout: budget({ cli: 2 }),
      // expect.poll waits on something a page draws; vitest's default gives it one second.
      expect: { poll: { timeout: budget("page") } },
    },
  });
}

export default suite("all");
