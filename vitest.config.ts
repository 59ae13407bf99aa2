import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import SiteLastSequencer from "./tests/support/sequencer.ts";

// One id per `vitest run`, so the sequencer and every worker agree on one site build.
process.env.LAH_TEST_RUN ??= `${process.pid}-${Date.now()}`;

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    // Files share their worker's modules instead of each importing vitest, the chapters and the SDK
    // afresh: a third less CPU for the suite. Tests therefore keep no state in shared modules; the
    // clean-ups every test needs are registered per file in tests/support/setup.ts.
    isolate: false,
    setupFiles: ["tests/support/setup.ts"],
    // vitest's default is one worker per core but one; most of our tests wait on child processes,
    // files and a browser rather than compute, so two workers keep a 2-core machine busy.
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: SiteLastSequencer },
    testTimeout: 30_000,
    hookTimeout: 660_000,
  },
});
