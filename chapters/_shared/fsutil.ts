// Crash-safe file writes: a reader sees the old file or the new one, never half of one.
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
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

/** True when a file's last line has no newline: an append that a crash cut off. An append-only log
 *  (s12's lane events, s13's mailboxes) then starts its next line with one, so the torn line stays
 *  alone instead of gluing onto the next entry. */
export function endsMidLine(file: string): boolean {
  const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (size === 0) return false;
  const fd = openSync(file, "r");
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}
