// `npm run exercise <id> -- --check` on every exercise's reference answer, timed end to end as a
// learner runs it (npm, the command line, the check process and the type check beside it), once
// each, in a workbench of its own. Goal: ≤ 5 s for every exercise on an idle machine of the CI
// kind. `npm run bench` prints it; `node --import tsx tests/bench/exercise-checks.ts [--save]`
// prints only this (and with --save keeps it in docs/bench.json for the README).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { saveFigures } from "./figures.ts";

const GOAL_S = 5;

/** Seconds each exercise's `--check` took on its reference answer, by exercise id. A check that
 *  fails (it should not) is reported, not timed. */
export function timeChecks(ids = EXERCISES.map((e) => e.id)): Map<string, number | string> {
  const workbench = mkdtempSync(path.join(tmpdir(), "bench-workbench-"));
  const exercise = (...argv: string[]) =>
    execFileSync("npm", ["run", "--silent", "exercise", "--", ...argv], {
      cwd: REPO_ROOT,
      env: { ...process.env, LAH_WORKBENCH: workbench },
      stdio: "ignore",
    });
  const times = new Map<string, number | string>();
  try {
    for (const id of ids) {
      exercise(id, "--solution", "--yes");
      const start = performance.now();
      try {
        exercise(id, "--check");
        times.set(id, (performance.now() - start) / 1000);
      } catch {
        times.set(id, "failed");
      }
    }
  } finally {
    rmSync(workbench, { recursive: true, force: true });
  }
  return times;
}

/** The bench's row: the range, the slowest three, and every exercise over the goal. */
export function exerciseCheckRow(times = timeChecks()): [string, string] {
  const timed = [...times].filter((t): t is [string, number] => typeof t[1] === "number");
  const failed = [...times].filter(([, t]) => typeof t === "string").map(([id]) => id);
  const s = (n: number) => `${n.toFixed(1)} s`;
  const sorted = timed.sort((a, b) => a[1] - b[1]);
  const over = sorted.filter(([, t]) => t > GOAL_S);
  const slowest = sorted.slice(-3).reverse();
  const value =
    `every exercise's reference answer (${timed.length} of ${times.size}, one run each): ` +
    `${s(sorted[0]?.[1] ?? NaN)}–${s(sorted.at(-1)?.[1] ?? NaN)}; slowest ${slowest
      .map(([id, t]) => `${id} ${s(t)}`)
      .join(
        ", ",
      )}; ${over.length ? `over ${GOAL_S} s: ${over.map(([id]) => id).join(", ")}` : `none over ${GOAL_S} s`}` +
    (failed.length ? `; failed: ${failed.join(", ")}` : "");
  return [`npm run exercise <id> -- --check on every reference answer (goal ≤ ${GOAL_S} s)`, value];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const load = Math.round(loadavg()[0] * 10) / 10;
  const [what, value] = exerciseCheckRow();
  console.log(`${what}: ${value} (load at start ${load})`);
  if (process.argv.includes("--save"))
    saveFigures({
      "exercise-check": { value, measured: new Date().toISOString().slice(0, 10), load },
    });
}
