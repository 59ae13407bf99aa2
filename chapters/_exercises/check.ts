// Checking a learner's copy: its checks run in a child process (run-checks.ts), each under a time
// limit; a check that does not finish in time, or a crash, costs that check, and the child is
// started again for the next one. What comes back is a result per check, in plain data, which the
// command line turns into the learner's language. Each says what was observed: a loop that kept
// the process busy, an await that never settled, a process killed by a signal or ended by the
// learner's code are four different sentences, because they are four different mistakes.
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Exercise } from "./kit.ts";
import { HEARTBEAT_MS, type CheckResult } from "./run-checks.ts";

const CHILD = fileURLToPath(new URL("./run-checks.ts", import.meta.url));
const TYPECHECK = fileURLToPath(new URL("./typecheck.js", import.meta.url));
const DEFAULT_LIMIT_MS = 10_000;
const LOAD_LIMIT_MS = 60_000;

export type Outcome =
  | CheckResult
  /** Out of time; `waiting`: the process was idle (heartbeats went on), so an await, not a loop. */
  | { index: number; ok: false; timedOut: number; waiting: boolean }
  | { index: number; ok: false; compile: string }
  /** The check process was killed by a signal nobody here sent. */
  | { index: number; ok: false; killed: string }
  /** The check process ended (process.exit, or a crash with nothing on stderr) mid-check. */
  | { index: number; ok: false; exited: number };

/** How long a check that names no limit of its own may take (`--time-limit`), in ms. */
export interface CheckOptions {
  limitMs?: number;
}

/** Runs every check of `exercise` against the module in `file`; one outcome per check, in order. */
export async function runChecks(
  exercise: Exercise,
  file: string,
  { limitMs = DEFAULT_LIMIT_MS }: CheckOptions = {},
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  // The checks' workspaces go under one folder of this run's, removed at the end even when a
  // child was killed half-way through a check.
  const root = mkdtempSync(path.join(tmpdir(), "lah-check-"));
  try {
    while (outcomes.length < exercise.checks.length) {
      const from = outcomes.length;
      const got = await runFrom(exercise, file, from, root, limitMs);
      outcomes.push(...got);
      if (got.length === 0) break; // cannot happen: a child that stops early reports why
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return outcomes;
}

/** The copy's type errors, one line each ("agent.ts:12:5: …"), from a child of their own, so the
 *  check (seconds on a large import graph) runs while the behaviours do. `lesson` is the chapter's
 *  file the copy was made from (typecheck.js reads the copy wherever the chapter imports it). A
 *  type check that could not run is itself a line: silence would read as "no type errors". */
export function typeCheck(file: string, lesson?: string): Promise<string[]> {
  return new Promise((resolve) => {
    const child = fork(TYPECHECK, lesson ? [file, lesson] : [file], {
      execArgv: [], // plain JavaScript: no TypeScript loader to start

      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += String(d)));
    let found: string[] | undefined;
    child.on("message", (lines: string[]) => (found = lines));
    child.on("exit", (code, signal) =>
      resolve(
        found ?? [
          `${path.basename(file)}: the type check did not run (${signal ?? `exit code ${code}`}): ${
            stderr.trim().split("\n").at(-1) ?? ""
          }`,
        ],
      ),
    );
  });
}

/** One child, from check `from` on, until it finishes, crashes or a check runs out of time. */
function runFrom(
  exercise: Exercise,
  file: string,
  from: number,
  root: string,
  defaultLimitMs: number,
): Promise<Outcome[]> {
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
    let lastAlive = 0;
    // The child's end is explained already: we killed it at a timeout, or it said its check's
    // await can never settle and left; the next child takes the next check.
    let accountedFor = false;
    const current = () => from + outcomes.length;
    // The first check's clock starts once the copy has loaded (the child says so): loading the
    // copy and the chapters it imports takes seconds on a busy machine, and is not the check's.
    // Loading has a limit of its own, for a top-level await that never settles.
    const arm = (limit = exercise.checks[current()]?.limitMs ?? defaultLimitMs) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        // A busy loop stops the child's heartbeats; an await leaves its event loop free to send
        // them. Several missed beats (a busy machine delays a few) mean busy.
        const waiting = Date.now() - lastAlive < Math.max(10 * HEARTBEAT_MS, limit / 4);
        outcomes.push({ index: current(), ok: false, timedOut: limit, waiting });
        accountedFor = true;
        child.kill("SIGKILL");
      }, limit);
    };
    arm(LOAD_LIMIT_MS);
    child.on(
      "message",
      (message: CheckResult | { compile: string } | { alive: number } | { loaded: true }) => {
        if ("loaded" in message) {
          arm();
          return;
        }
        if ("alive" in message) {
          lastAlive = Date.now();
          return;
        }
        if ("compile" in message) {
          // The module did not load: every remaining check reports it.
          for (let i = current(); i < exercise.checks.length; i++)
            outcomes.push({ index: i, ok: false, compile: message.compile });
          return;
        }
        outcomes.push(message);
        if ("unsettled" in message) accountedFor = true;
        arm();
      },
    );
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (current() < exercise.checks.length && !accountedFor) {
        const said = crashLine(stderr);
        outcomes.push(
          signal
            ? { index: current(), ok: false, killed: signal }
            : said
              ? { index: current(), ok: false, thrown: said }
              : { index: current(), ok: false, exited: code ?? 0 },
        );
      }
      resolve(outcomes);
    });
  });
}

/** What a crashed check process said, in one line: its error, not Node's version line nor the
 *  stack under it (an uncaught error ends with "Node.js v20…"). */
export function crashLine(stderr: string): string | undefined {
  const lines = stderr
    .split("\n")
    .map((l) => l.trimEnd())
    .filter(
      (l) => l.trim() && !/^Node\.js v\d/.test(l) && !/^\s+at /.test(l) && !/^\s*\^+$/.test(l),
    );
  return lines.find((l) => /^(\w*Error|Error)\b/.test(l.trim())) ?? lines.at(-1);
}

/** What `--check` decides: the copy passes only when every check passes *and* TypeScript finds
 *  no error in it (a type error is a failed check, never a footnote to a pass). */
export interface Verdict {
  outcomes: Outcome[];
  typeErrors: string[];
  passed: number;
  total: number;
  pass: boolean;
}

/** The checks and the type check of the copy `file` of `exercise`, made from the lesson `lesson`.
 *  The type check runs in a process of its own, beside the checks. */
export async function verdictOf(
  exercise: Exercise,
  file: string,
  lesson: string,
  options: CheckOptions = {},
): Promise<Verdict> {
  const [outcomes, typeErrors] = await Promise.all([
    runChecks(exercise, file, options),
    typeCheck(file, lesson),
  ]);
  const passed = outcomes.filter((o) => o.ok).length;
  const total = outcomes.length;
  return { outcomes, typeErrors, passed, total, pass: passed === total && typeErrors.length === 0 };
}
