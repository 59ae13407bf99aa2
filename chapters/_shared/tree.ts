// Removing a folder tree however deep. A model's `mkdir d && cd d` loop makes trees deeper than any
// call stack (node's recursive rmSync overflows from about 2,000 levels) and longer than any path,
// so the walk is a loop, holds one open folder at a time (a file descriptor per level would run
// out), reaches each entry through the folder it holds, and never follows a symlink.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  rmdirSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import path from "node:path";

const PINNED = existsSync("/proc/self/fd");
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;
const within = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;
const identity = (fd: number) => {
  const st = fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
};

interface Level {
  name: string;
  id: string;
  /** Sub-folders still to empty; undefined until the folder's files are removed. */
  folders?: string[];
}

/** Removes everything inside `dir` and keeps `dir`. A symlink is removed, never followed. */
export function emptyFolder(dir: string): void {
  if (!PINNED) {
    for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true });
    return;
  }
  let fd = openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  const levels: Level[] = [{ name: "", id: identity(fd) }];
  try {
    for (;;) {
      const level = levels.at(-1)!;
      level.folders ??= removeFiles(fd);
      const next = level.folders.pop();
      if (next !== undefined) {
        const child = openFolder(fd, next);
        if (child === undefined) continue;
        closeSync(fd);
        fd = child;
        levels.push({ name: next, id: identity(fd) });
        continue;
      }
      if (levels.length === 1) return;
      // This folder is empty: climb back to its parent (the one we came from, or stop) and remove it.
      levels.pop();
      const parent = openSync(within(fd, ".."), O_RDONLY | O_DIRECTORY);
      closeSync(fd);
      fd = parent;
      if (identity(fd) !== levels.at(-1)!.id)
        throw new Error(`${dir} was moved while it was being emptied; stopped`);
      rmdirSync(within(fd, level.name));
    }
  } finally {
    closeSync(fd);
  }
}

/** Removes `target` whatever it is: a folder with everything in it, or just the link or file. */
export function removeTree(target: string): void {
  const st = lstatSync(target, { throwIfNoEntry: false });
  if (!st) return;
  if (!st.isDirectory()) return unlinkSync(target);
  emptyFolder(target);
  rmdirSync(target);
}

/** Unlinks every non-folder in the open folder `fd`; returns the names of its sub-folders. */
function removeFiles(fd: number): string[] {
  const folders: string[] = [];
  for (const entry of readdirSync(within(fd, ""), { withFileTypes: true })) {
    if (entry.isDirectory()) {
      folders.push(entry.name);
      continue;
    }
    try {
      unlinkSync(within(fd, entry.name)); // a link goes, never what it points at
    } catch (err) {
      if (errno(err) === "EISDIR" || errno(err) === "EPERM") folders.push(entry.name);
      else if (errno(err) !== "ENOENT") throw err;
    }
  }
  return folders;
}

/** Opens the sub-folder `name` of `fd` without following a link; a link or file that took its
 *  place is removed instead (undefined). */
function openFolder(fd: number, name: string): number | undefined {
  try {
    return openSync(within(fd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (err) {
    if (errno(err) === "ENOENT") return undefined;
    if (errno(err) !== "ELOOP" && errno(err) !== "ENOTDIR") throw err;
    unlinkSync(within(fd, name));
    return undefined;
  }
}
