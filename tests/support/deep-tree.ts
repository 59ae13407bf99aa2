// A folder chain thousands of levels deep, as a model's `mkdir d && cd d` loop leaves it. Built
// and removed through open folders (/proc/self/fd), so neither needs a path longer than PATH_MAX
// nor a recursion as deep as the tree.
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  rmSync,
  writeFileSync,
} from "node:fs";

const { O_RDONLY, O_DIRECTORY } = constants;

/** Makes `depth` nested folders named `d` under `dir`, with `extra[level]` (a file's name) written
 *  in the folder at that level (0 = `dir` itself); returns how long it took (ms). */
export function deepTree(dir: string, depth: number, extra: Record<number, string> = {}): number {
  const started = Date.now();
  let fd = openSync(dir, O_RDONLY | O_DIRECTORY);
  try {
    for (let i = 0; i < depth; i++) {
      if (extra[i]) writeFileSync(`/proc/self/fd/${fd}/${extra[i]}`, "x");
      mkdirSync(`/proc/self/fd/${fd}/d`);
      const next = openSync(`/proc/self/fd/${fd}/d`, O_RDONLY | O_DIRECTORY);
      closeSync(fd);
      fd = next;
    }
  } finally {
    closeSync(fd);
  }
  return Date.now() - started;
}

/** Removes what deepTree made under `dir` (the chain of `d` folders), climbing back through `..`
 *  of the open folder; for test clean-ups, independent of the harness's own removal code. */
export function removeDeep(dir: string): void {
  let fd = openSync(dir, O_RDONLY | O_DIRECTORY);
  let depth = 0;
  try {
    while (existsSync(`/proc/self/fd/${fd}/d`)) {
      const next = openSync(`/proc/self/fd/${fd}/d`, O_RDONLY | O_DIRECTORY);
      closeSync(fd);
      fd = next;
      depth++;
    }
    for (; depth > 0; depth--) {
      const parent = openSync(`/proc/self/fd/${fd}/..`, O_RDONLY | O_DIRECTORY);
      closeSync(fd);
      fd = parent;
      rmSync(`/proc/self/fd/${fd}/d`, { recursive: true, force: true });
    }
  } finally {
    closeSync(fd);
  }
}
