// Before every test file: the clean-ups every test relies on. Test files share their worker's
// modules (isolate: false, see vitest.config.ts), so a hook at the top of a shared module such as
// helpers.ts would be registered for the first file only; here it is registered for each.
import { appendFileSync } from "node:fs";
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
  let last = 0;
  let longest = 0;
  let ticker: NodeJS.Timeout | undefined;
  beforeAll(() => {
    last = Date.now();
    longest = 0;
    ticker = setInterval(() => {
      longest = Math.max(longest, Date.now() - last);
      last = Date.now();
    }, 100).unref();
  });
  afterAll(() => {
    clearInterval(ticker);
    longest = Math.max(longest, Date.now() - last);
    appendFileSync(report, `${longest}\t${expect.getState().testPath}\n`);
  });
}
