// Before every test file: the clean-ups every test relies on. Test files share their worker's
// modules (isolate: false, see vitest.config.ts), so a hook at the top of a shared module such as
// helpers.ts would be registered for the first file only; here it is registered for each.
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { killTestChildren, removeTempDirs } from "./helpers.ts";

afterEach(() => {
  killTestChildren();
  removeTempDirs();
});

// LAH_BLOCKS_REPORT=<file>: each file's longest stretch with its worker's event loop blocked,
// appended to <file> ("ms<TAB>file"). A worker that computes for a minute in-line answers nothing
// to vitest meanwhile, and vitest's own calls then time out after 60 s ("Timeout calling
// onTaskUpdate"): a red run on a busy machine for no test's fault. A diagnostic, not a test.
const report = process.env.LAH_BLOCKS_REPORT;
if (report) {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  beforeAll(() => {
    delay.reset();
    delay.enable();
  });
  afterAll(() => {
    delay.disable();
    appendFileSync(report, `${Math.round(delay.max / 1e6)}\t${expect.getState().testPath}\n`);
  });
}
