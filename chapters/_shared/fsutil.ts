// Crash-safe file writes: a reader sees the old file or the new one, never half of one.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

let counter = 0;

/** Write to a temp file beside the target, then rename it over the target (atomic on POSIX). */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${++counter}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

export class BrokenStateError extends Error {
  name = "BrokenStateError";
}

/** Read a JSON state file; a broken one is reported clearly instead of crashing with a stack. */
export function readJson<T>(file: string): T {
  const text = readFileSync(file, "utf8");
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new BrokenStateError(
      `state file ${file} is not valid JSON (${(err as Error).message}); fix or delete it`,
    );
  }
}
