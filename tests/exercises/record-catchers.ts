// `npm run catchers`: finds, for every wrong answer in tests/exercises/<chapter>.test.ts, the check
// that catches it soonest, and writes tests/exercises/catchers/<chapter>.json. The wrong answers'
// tests try that check first (tests/support/exercises.ts): without it, a wrong answer caught by an
// expensive check waited for every cheaper one to pass first (a4's: 8 s each instead of 2).
// Run it after adding or renaming wrong answers or checks; a test names entries that went stale.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";

const suites = readdirSync(path.join(REPO_ROOT, "tests", "exercises"))
  .filter((name) => /^[sa]\d+\.test\.ts$/.test(name))
  .map((name) => path.join("tests", "exercises", name));

const { status } = spawnSync("npx", ["vitest", "run", ...suites], {
  cwd: REPO_ROOT,
  stdio: "inherit",
  env: { ...process.env, LAH_RECORD_CATCHERS: "1" },
});
process.exit(status ?? 1);
