// A lock that two processes can share through the file system, used by the team chapters for a
// mailbox (a send's append against a drain's rename) and for claiming a task.
//
// The lock is a folder, `<something>.lock/`, holding one empty file whose name says who holds it:
// `<pid>.<random token>`. That name is the whole design:
//   - taking: build your own folder with your entry in it, then rename it onto the lock path. A
//     rename onto a missing or empty folder succeeds; onto a folder with an entry it fails. So of
//     many takers exactly one wins, and a held lock is never empty.
//   - a holder that died: its pid names no running process. Its entry is deleted by that exact
//     name — never someone else's, since every name is unique — and the lock is taken as above.
//     A slow holder keeps its lock however long it needs: age proves nothing, a dead pid does.
//   - releasing: delete your own entry, by name, then the empty folder. If someone took the lock
//     in between, the folder is theirs and not empty: it stays.
import { randomBytes } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

export interface Lock {
  /** Gives the lock back, if it is still ours. */
  release(): void;
}

/** Takes the lock at `lockPath` now, or returns null while a running process holds it. */
export function tryLock(lockPath: string): Lock | null {
  const owner = `${process.pid}.${randomBytes(6).toString("hex")}`;
  const mine = `${lockPath}.${owner}.taking`;
  mkdirSync(mine);
  writeFileSync(path.join(mine, owner), "");
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        renameSync(mine, lockPath);
        return { release: () => release(lockPath, owner) };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
      }
      const holders = entries(lockPath); // [] if it was released meanwhile: try again
      if (holders.some((holder) => running(holder))) return null;
      for (const dead of holders) rmSync(path.join(lockPath, dead), { force: true });
    }
    return null;
  } finally {
    rmSync(mine, { recursive: true, force: true }); // gone already if the rename won
  }
}

/** Runs `work` under the lock, waiting (1 ms at a time, synchronously) while someone else holds it. */
export function withLock<T>(lockPath: string, work: () => T): T {
  let lock = tryLock(lockPath);
  while (!lock) {
    Atomics.wait(PAUSE, 0, 0, 1);
    lock = tryLock(lockPath);
  }
  try {
    return work();
  } finally {
    lock.release();
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function release(lockPath: string, owner: string): void {
  rmSync(path.join(lockPath, owner), { force: true });
  try {
    rmdirSync(lockPath);
  } catch {
    // ENOTEMPTY: someone took it the moment we let go; ENOENT: already gone. Either way, not ours.
  }
}

function entries(lockPath: string): string[] {
  try {
    return readdirSync(lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/** Is the process named by a lock entry still running? Signal 0 asks without sending anything.
 *  A zombie (killed, not yet collected by its parent) has stopped for good: it counts as gone.
 *  (If the system has given a dead holder's pid to a new process, the lock waits for that one:
 *  slower, never wrong.) */
export function running(entry: string): boolean {
  const pid = Number(entry.split(".")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false; // not an entry this code wrote
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // it exists, it just is not ours
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8")); // Linux only
  } catch {
    return true; // no /proc here (macOS), or it ended this instant: the next try will see
  }
}
