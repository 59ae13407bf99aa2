// The checker's child process: imports the learner's module and runs an exercise's checks from a
// given one on, sending each result to the parent (check.ts) as it finishes. A child of its own, so
// a loop that never ends or a crash in the learner's code costs one check, not the whole run.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { findExercise } from "./catalog.ts";
import { CheckFailure, checkKit, NOT_STARTED } from "./kit.ts";

export type CheckResult =
  | { index: number; ok: true }
  | { index: number; ok: false; failure: { key: string; values: Record<string, string | number> } }
  | { index: number; ok: false; notStarted: string }
  | { index: number; ok: false; thrown: string; where?: string };

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

async function main() {
  const [id, file, from] = process.argv.slice(2);
  const exercise = findExercise(id);
  if (!exercise) throw new Error(`unknown exercise ${id}`);
  const send = (r: CheckResult | { compile: string }) =>
    new Promise<void>((done) => process.send!(r, () => done()));
  let module;
  try {
    module = await import(pathToFileURL(file).href);
  } catch (err) {
    await send({ compile: err instanceof Error ? err.message : String(err) });
    return;
  }
  const kit = checkKit();
  try {
    for (let i = Number(from); i < exercise.checks.length; i++) {
      try {
        await exercise.checks[i].run(module, kit);
        await send({ index: i, ok: true });
      } catch (err) {
        await send(resultOf(i, err, file));
      }
    }
  } finally {
    kit.cleanUp();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
