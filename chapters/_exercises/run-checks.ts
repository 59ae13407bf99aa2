// The checker's child process: imports the learner's module and runs an exercise's checks from a
// given one on, sending each result to the parent (check.ts) as it finishes. A child of its own, so
// a loop that never ends or a crash in the learner's code costs one check, not the whole run.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { findExercise } from "./catalog.ts";
import type { ChapterModule } from "../_shared/types.ts";
import { CheckFailure, checkKit, NOT_STARTED, type CheckKit, type Exercise } from "./kit.ts";

export type CheckResult =
  | { index: number; ok: true }
  | { index: number; ok: false; failure: { key: string; values: Record<string, string | number> } }
  | { index: number; ok: false; notStarted: string }
  | { index: number; ok: false; thrown: string; where?: string }
  | { index: number; ok: false; unsettled: true };

/** How often the child says it is still there while a check runs (check.ts reads the gaps). */
export const HEARTBEAT_MS = 250;

/** Where in the learner's file an error came from: "agent.ts:123", from the stack. */
export function whereIn(file: string, err: unknown): string | undefined {
  const stack = err instanceof Error ? (err.stack ?? "") : "";
  const at = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+)`).exec(stack);
  return at ? `${path.basename(file)}:${at[1]}` : undefined;
}

function resultOf(index: number, err: unknown, file: string): CheckResult {
  if (err instanceof CheckFailure)
    return { index, ok: false, failure: { key: err.key, values: err.values } };
  const message = err instanceof Error ? err.message : String(err);
  if (message.startsWith(NOT_STARTED))
    return { index, ok: false, notStarted: message.slice(NOT_STARTED.length).trim() };
  return { index, ok: false, thrown: message.split("\n")[0], where: whereIn(file, err) };
}

/** Runs the checks from `from` on against an imported module, each result handed to `report`
 *  as it finishes (the child sends it to the parent; the exercises' tests collect it). A report
 *  that answers "enough" ends the run there: a test of a wrong answer needs one failed check. */
export async function runChecksOn(
  exercise: Exercise,
  module: unknown,
  file: string,
  kit: CheckKit,
  report: (result: CheckResult) => Promise<void | "enough"> | void | "enough",
  from = 0,
): Promise<void> {
  for (let i = from; i < exercise.checks.length; i++) {
    let result: CheckResult;
    try {
      await exercise.checks[i].run(module as ChapterModule, kit);
      result = { index: i, ok: true };
    } catch (err) {
      result = resultOf(i, err, file);
    }
    if ((await report(result)) === "enough") return;
  }
}

async function main() {
  const [id, file, from] = process.argv.slice(2);
  const exercise = findExercise(id);
  if (!exercise) throw new Error(`unknown exercise ${id}`);
  const send = (r: CheckResult | { compile: string } | { alive: number } | { loaded: true }) =>
    new Promise<void>((done) => process.send!(r, () => done()));
  // Which check is running, for the two ways it can end without a result: nothing left to run
  // while it awaits (the event loop drained: an await that can never settle, in a check or at the
  // copy's top level), and a timeout, where the parent tells a loop that never ends (no
  // heartbeat: the process is busy) from a wait (heartbeats go on) by these heartbeats.
  let running = Number(from);
  const heartbeat = setInterval(
    () => process.connected && process.send!({ alive: running }),
    HEARTBEAT_MS,
  );
  heartbeat.unref(); // it must not keep a drained process alive
  process.once("beforeExit", () => {
    if (running < exercise.checks.length)
      void send({ index: running, ok: false, unsettled: true }).then(() => process.exit(0));
  });
  let module;
  try {
    module = await import(pathToFileURL(file).href);
  } catch (err) {
    await send({ compile: err instanceof Error ? err.message : String(err) });
    return;
  }
  await send({ loaded: true });
  const kit = checkKit();
  try {
    await runChecksOn(
      exercise,
      module,
      file,
      kit,
      async (result) => {
        await send(result);
        running = result.index + 1;
      },
      Number(from),
    );
  } finally {
    kit.cleanUp();
  }
}

// Run as the checker's child, not when the exercises' tests import runChecksOn.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(2);
    },
  );
