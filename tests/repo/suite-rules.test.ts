// The suite's own rules, checked on its files: a busy machine makes the suite slower, never red.
// Timeouts come from tests/support/budgets.ts (no number of milliseconds typed into a test), no
// test sleeps to wait, and no test asserts how long something took (npm run bench measures).
import { readFileSync } from "node:fs";
import path from "node:path";
import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { BUDGET, budget, runScale, timeoutScale } from "../support/budgets.ts";
import { needsSite } from "../support/site-build.ts";

const RULES: [string, RegExp][] = [
  // `}, 60_000);` closing a test or a hook, `{ timeout: 15_000 }` for a wait
  [
    "a timeout typed in (use budget() from tests/support/budgets.ts)",
    /\}, (\d{1,3}_000|\d{4,})\);/,
  ],
  [
    "a timeout typed in (use budget() from tests/support/budgets.ts)",
    /timeout: (\d{1,3}_000|\d{4,})\b/,
  ],
  ["a fixed sleep (wait on a condition, or move a fake clock)", /setTimeout\(\w+, [1-9]/],
  ["a fixed sleep (wait on a condition, or move a fake clock)", /waitForTimeout\([1-9]/],
  ["a duration asserted (npm run bench measures)", /expect\([^;]*(Date|performance)\.now\(\)/],
  // Files share a worker: a plain object in process.env's place is not the environment, so
  // os.homedir() and children of every later file read another one (mounts.test.ts failed so).
  ["process.env replaced (set and delete its keys instead)", /\bprocess\.env = /],
];

/** Every place in `text` that breaks a rule, as "file:line: what". */
function suiteRuleBreaks(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) =>
    RULES.filter(
      // a timer the test schedules on purpose (a server that lives on, a page's own clock)
      ([, rule]) => rule.test(line) && !/set(Interval|Timeout)\(\(\) =>/.test(line),
    ).map(([what]) => `${file}:${i + 1}: ${what}: ${line.trim()}`),
  );
}

describe("the suite's rules", () => {
  it("no test types a timeout, sleeps to wait, or asserts a duration", () => {
    const files = globSync("tests/**/*.test.ts", { cwd: REPO_ROOT }).filter(
      (file) => file !== "tests/repo/suite-rules.test.ts", // its examples below break them all
    );
    expect(files.length).toBeGreaterThan(50);
    const breaks = files.flatMap((file) =>
      suiteRuleBreaks(file, readFileSync(path.join(REPO_ROOT, file), "utf8")),
    );
    expect(breaks).toEqual([]);
  });

  it("the rules catch what they are for, and leave a scheduled timer alone", () => {
    const caught = (line: string) => suiteRuleBreaks("x.test.ts", line).length;
    expect(caught("  }, 60_000);")).toBe(1);
    expect(caught("    { timeout: 120_000 },")).toBe(1);
    expect(caught("await new Promise((r) => setTimeout(r, 250)); // two ticks")).toBe(1);
    expect(caught("await page.waitForTimeout(2000);")).toBe(1);
    expect(caught("expect(Date.now() - started).toBeLessThan(5_000);")).toBe(1);
    expect(caught("  }, budget({ cli: 2 }));")).toBe(0);
    expect(caught("  setInterval(() => {}, 1000);")).toBe(0);
    expect(caught("await page.waitForTimeout(0);")).toBe(0);
    expect(caught("      process.env = saved;")).toBe(1);
    expect(caught("  process.env.PATH = saved;")).toBe(0);
  });
});

describe("the order files run in", () => {
  it("every file that opens the built site is known to need it: its build starts first, it runs last", () => {
    // The browser tests that open the site do it through tests/support/browser.ts; the others
    // (code blocks, diagrams) draw what they test without it and need no build.
    const opening = globSync("tests/**/*.test.ts", { cwd: REPO_ROOT }).filter(
      (file) =>
        file !== "tests/repo/suite-rules.test.ts" && // this file reads needsSite itself
        /from "\.\.\/support\/(browser|site-build)\.ts"/.test(
          readFileSync(path.join(REPO_ROOT, file), "utf8"),
        ),
    );
    expect(opening.length).toBeGreaterThan(10);
    expect(opening.filter((file) => !needsSite(path.join(REPO_ROOT, file)))).toEqual([]);
    expect(needsSite(path.join(REPO_ROOT, "tests/site/state-words.test.ts"))).toBe(false);
  });
});

describe("timeout budgets", () => {
  const idle = { load: 0, cores: 2 };
  it("scale with the load per core when the run starts: 1 when idle, at most 8", () => {
    expect(timeoutScale({}, idle.load, idle.cores)).toBe(1);
    expect(timeoutScale({}, 2, 2)).toBe(2); // two busy loops on two cores
    expect(timeoutScale({}, 40, 2)).toBe(8);
  });

  it("are at least doubled under CI, and TEST_TIMEOUT_SCALE says otherwise", () => {
    expect(timeoutScale({ CI: "true" }, idle.load, idle.cores)).toBe(2);
    expect(timeoutScale({ TEST_TIMEOUT_SCALE: "3.5", CI: "true" }, 40, 2)).toBe(3.5);
    // a worker takes the factor its run worked out (vitest.config.ts)
    expect(timeoutScale({ LAH_TIMEOUT_SCALE: "5" }, idle.load, idle.cores)).toBe(5);
  });

  it("refuse a factor that is not a positive number, in one sentence", () => {
    for (const bad of ["fast", "0", "-2", "Infinity"])
      expect(() => timeoutScale({ TEST_TIMEOUT_SCALE: bad })).toThrow(
        `TEST_TIMEOUT_SCALE must be a positive number such as 2, not "${bad}".`,
      );
  });

  it("take the run's factor, or a larger one if the machine got busier during the run", () => {
    expect(runScale({ LAH_TIMEOUT_SCALE: "5" }, idle.load, idle.cores)).toBe(5);
    expect(runScale({ LAH_TIMEOUT_SCALE: "2" }, 8, 2)).toBe(5); // load 8 on 2 cores now
    expect(runScale({ LAH_TIMEOUT_SCALE: "2" }, 40, 2)).toBe(8);
    expect(runScale({ TEST_TIMEOUT_SCALE: "1.5", LAH_TIMEOUT_SCALE: "1.5" }, 40, 2)).toBe(1.5);
  });

  it("add up the work a test does, times the factor", () => {
    expect(budget("unit", 3)).toBe(3 * BUDGET.unit);
    expect(budget({ cli: 2, command: 1 }, 2.5)).toBe(
      Math.round((2 * BUDGET.cli + BUDGET.command) * 2.5),
    );
    expect(budget({ cli: 2 })).toBeGreaterThanOrEqual(2 * BUDGET.cli);
  });
});
