// Checking a learner's copy: its checks run in a child process (run-checks.ts), each under a time
// limit; a check that does not finish in time, or a crash, costs that check, and the child is
// started again for the next one. What comes back is a result per check, in plain data, which the
// command line turns into the learner's language.
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Exercise } from "./kit.ts";
import type { CheckResult } from "./run-checks.ts";

const CHILD = fileURLToPath(new URL("./run-checks.ts", import.meta.url));
const TYPECHECK = fileURLToPath(new URL("./typecheck.ts", import.meta.url));
const DEFAULT_LIMIT_MS = 10_000;

export type Outcome =
  | CheckResult
  | { index: number; ok: false; timedOut: number }
  | { index: number; ok: false; compile: string };

/** Runs every check of `exercise` against the module in `file`; one outcome per check, in order. */
export async function runChecks(exercise: Exercise, file: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  // The checks' workspaces go under one folder of this run's, removed at the end even when a
  // child was killed half-way through a check.
  const root = mkdtempSync(path.join(tmpdir(), "lah-check-"));
  try {
    while (outcomes.length < exercise.checks.length) {
      const from = outcomes.length;
      const got = await runFrom(exercise, file, from, root);
      outcomes.push(...got);
      if (got.length === 0) break; // cannot happen: runFrom always reports check `from`
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return outcomes;
}

/** The copy's type errors, one line each ("agent.ts:12:5: …"), from a child of their own, so the
 *  check (seconds on a large import graph) runs while the behaviours do. */
export function typeCheck(file: string): Promise<string[]> {
  return new Promise((resolve) => {
    const child = fork(TYPECHECK, [file], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "ignore", "ipc"],
    });
    let found: string[] = [];
    child.on("message", (lines: string[]) => (found = lines));
    child.on("exit", () => resolve(found));
  });
}

/** One child, from check `from` on, until it finishes, crashes or a check runs out of time. */
function runFrom(exercise: Exercise, file: string, from: number, root: string): Promise<Outcome[]> {
  return new Promise((resolve) => {
    const outcomes: Outcome[] = [];
    const child: ChildProcess = fork(CHILD, [exercise.id, file, String(from)], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, TMPDIR: root },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += String(d)));
    let timer: NodeJS.Timeout | undefined;
    const current = () => from + outcomes.length;
    const arm = () => {
      clearTimeout(timer);
      const limit = exercise.checks[current()]?.limitMs ?? DEFAULT_LIMIT_MS;
      timer = setTimeout(() => {
        outcomes.push({ index: current(), ok: false, timedOut: limit });
        child.kill("SIGKILL");
      }, limit);
    };
    arm();
    child.on("message", (message: CheckResult | { compile: string }) => {
      if ("compile" in message) {
        // The module did not load: every remaining check reports it.
        for (let i = current(); i < exercise.checks.length; i++)
          outcomes.push({ index: i, ok: false, compile: message.compile });
        return;
      }
      outcomes.push(message);
      arm();
    });
    child.on("exit", () => {
      clearTimeout(timer);
      if (outcomes.length === 0)
        outcomes.push({
          index: from,
          ok: false,
          thrown: stderr.trim().split("\n").at(-1) || "the check process stopped",
        });
      resolve(outcomes);
    });
  });
}
