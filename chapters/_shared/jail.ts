// The workspace jail's hardening: what s02's `safePath` uses to decide where a path really leads,
// and the race-free opener the file tools open it with. s02 teaches the idea (resolve the path
// against the workspace, refuse it if it leaves, check again where its links lead); this file is
// the fine print, one piece per attack:
//
//   - A path that is not plain text: not a string, empty, a NUL byte (the OS would cut the name
//     there), `~` (the home folder, to the model and to a shell), absurdly long names.
//     `plainPath` refuses them before anything is resolved.
//   - `..` and absolute paths elsewhere: `safePath` resolves the path against the workspace and
//     refuses it when it is not inside (`isInside`).
//   - A link leading outside, also in a parent folder (`link/x.txt`, `a` -> `/etc`): a link that
//     stays inside is followed, so the check is repeated on where the path really leads.
//     `followLinks` resolves the deepest part of the path that exists (seen with `lstat`, which
//     sees a link itself) and appends the rest.
//   - A dangling link: a write through it would create a file wherever it points. `followLinks`
//     refuses any broken link.
//   - The workspace itself swapped for a link (a teammate's lane the lead's bash replaced with a
//     link to your home): `jailRoot` refuses a root that is not the real folder the harness named,
//     and `openRoot` checks it again through the open descriptor.
//   - A swap between check and open: another process (a background command, a teammate) turns a
//     folder on the approved path into a link to `/etc` after the check, and a plain open follows
//     it. So `openApproved` never opens a path in one go: it opens the workspace, then each part
//     *inside the folder it already holds open*, each with O_NOFOLLOW, so a link at any step fails
//     to open. On Linux, `/proc/self/fd/<n>/<name>` names "<name> inside the folder I hold open as
//     fd n", wherever that folder is now; elsewhere we fall back to the checked path (the check
//     alone, with its race).
//   - What is not a plain file with one name: a FIFO would freeze the harness (opened with
//     O_NONBLOCK, then refused), a device could be anything, a hard link may be a file outside by
//     another name. `fstat` on the open file refuses them.
//   - `.git`: its config and hooks say what git runs (yours too, later, outside any sandbox). The
//     file tools may read it, never change it; checked on the very parts the opener opens.
//   - A tree deeper than any call stack (a model's `mkdir d && cd d` loop): `listInside` walks an
//     explicit stack, at most MAX_LIST_DEPTH open folders deep, and says what it left out.
import {
  type Dirent,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeSync,
} from "node:fs";
import path from "node:path";

/** The requested path as text, refused when it cannot be a plain path inside the workspace. */
export function plainPath(requested: unknown): string {
  if (typeof requested !== "string" || requested.trim() === "")
    throw new Error("path must be a non-empty string");
  if (requested.includes("\0")) throw new Error("path contains a NUL byte");
  if (requested.startsWith("~"))
    throw new Error(`"~" paths are not allowed: use a path inside the workspace`);
  if (
    Buffer.byteLength(requested) > 1024 ||
    requested.split(/[/\\]/).some((part) => Buffer.byteLength(part) > 255)
  ) {
    throw new Error("path is too long");
  }
  return requested;
}

/** The folder the tools are jailed to, exactly as the harness named it. It must be a real folder,
 *  not a link: a teammate's lane that the lead's bash swapped for a link to your home must not
 *  move the jail there. */
export function jailRoot(root: string): string {
  const real = realpathSync(root);
  if (real !== path.resolve(root))
    throw new Error(`the tools' folder ${root} is reached through a symlink (to ${real}); refused`);
  return real;
}

/** `p` is the jail's root or something below it. */
export const isInside = (realRoot: string, p: string) =>
  p === realRoot || p.startsWith(realRoot + path.sep);

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Where `full` really leads: the deepest part of it that exists, with its links followed, and the
 *  rest (still to be created) appended. A broken link anywhere on it is refused. */
export function followLinks(full: string, requested: string): string {
  let existing = full;
  const rest: string[] = [];
  while (!exists(existing)) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  try {
    return path.join(realpathSync(existing), ...rest);
  } catch {
    throw new Error(`path goes through a broken symlink: ${requested}`);
  }
}

/** A path the jail's check (s02's `safePath`) approved: what was asked for, which the errors
 *  name, and where it really leads. */
export interface Approved {
  requested: string;
  real: string;
}

const PINNED = existsSync("/proc/self/fd");
const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

export interface OpenDir {
  fd: number;
  path: string;
}
export const inDir = (dir: OpenDir, name: string) =>
  PINNED ? `/proc/self/fd/${dir.fd}/${name}` : path.join(dir.path, name);

function openDirIn(dir: OpenDir, name: string, create: boolean): OpenDir {
  const at = inDir(dir, name);
  if (create && !exists(at)) mkdirSync(at);
  try {
    // O_NOFOLLOW: a symlink here fails to open instead of leading somewhere else.
    return {
      fd: openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW),
      path: path.join(dir.path, name),
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR")
      throw new Error(`${name} is a symlink or not a folder; file tools do not follow links`);
    throw err;
  }
}

/** Opens the jail's root itself, race-free: not through a link, and (on Linux) checked again
 *  through the open handle, so a swap after jailRoot's check is caught too. */
function openRoot(root: string): OpenDir {
  const real = jailRoot(root);
  const fd = openSync(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (PINNED && readlinkSync(`/proc/self/fd/${fd}`) !== real) {
    closeSync(fd);
    throw new Error(`the tools' folder ${root} was swapped for a symlink; refused`);
  }
  return { fd, path: real };
}

/** The parts of an approved path below the jail's root. A path that is not below it is refused
 *  here too, so an opener handed an unchecked path cannot climb out with `..`. */
export function partsBelow(root: string, { requested, real }: Approved): string[] {
  const rel = path.relative(jailRoot(root), real);
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel))
    throw new Error(`path escapes the workspace: ${requested}`);
  return rel.split(path.sep).filter(Boolean);
}

/** Opens the folder `parts` name below the jail's root, part by part, each inside the one before
 *  (creating missing ones if `create`); the caller closes its fd. */
export function openFolder(root: string, parts: string[], create: boolean): OpenDir {
  let dir = openRoot(root);
  try {
    for (const part of parts) {
      const next = openDirIn(dir, part, create);
      closeSync(dir.fd);
      dir = next;
    }
    return dir;
  } catch (err) {
    closeSync(dir.fd);
    throw err;
  }
}

export type OpenMode = "read" | "write" | "edit";

/** Opens an approved file for `mode`, race-free: returns its fd, which the caller closes.
 *  Refuses anything that is not a plain file with one name, and any change inside `.git`
 *  unless `intoGit` (the harness's own writes). */
export function openApproved(
  root: string,
  target: Approved,
  mode: OpenMode,
  { intoGit = false } = {},
): number {
  const { requested } = target;
  const parts = partsBelow(root, target);
  const name = parts.pop();
  if (!name) throw new Error(`${requested} is the workspace itself, not a file`);
  if (mode !== "read" && !intoGit && [...parts, name].some((p) => p.toLowerCase() === ".git"))
    throw new Error(`${requested} is inside .git: the file tools do not change it`);
  const dir = openFolder(root, parts, mode === "write");
  try {
    const flags =
      { read: O_RDONLY, write: O_WRONLY | O_CREAT, edit: O_RDWR }[mode] | O_NOFOLLOW | O_NONBLOCK;
    let fd: number;
    try {
      fd = openSync(inDir(dir, name), flags, 0o644);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ELOOP")
        throw new Error(`${requested} is a symlink; file tools do not follow links`);
      if (code === "ENXIO") throw new Error(`${requested} is not a regular file`);
      throw err;
    }
    const st = fstatSync(fd);
    const problem = !st.isFile()
      ? "is not a regular file"
      : st.nlink > 1
        ? "has other hard links (it may be a file outside)"
        : "";
    if (problem) {
      closeSync(fd);
      throw new Error(`${requested} ${problem}; refused`);
    }
    return fd;
  } finally {
    closeSync(dir.fd);
  }
}

/** The whole text of an approved file, opened race-free. */
export function readApproved(root: string, target: Approved): string {
  const fd = openApproved(root, target, "read");
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Creates or replaces an approved file, opened race-free (parents are created). */
export function writeApproved(
  root: string,
  target: Approved,
  text: string,
  options?: { intoGit?: boolean },
): void {
  const fd = openApproved(root, target, "write", options);
  try {
    ftruncateSync(fd); // only now: a file we refused is never truncated
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** The entries of an approved folder, listed through open folders (no link is followed, however
 *  the path is swapped meanwhile); `[]` when it does not exist. */
export function listApprovedFolder(root: string, target: Approved): Dirent[] {
  const parts = partsBelow(root, target);
  let dir: OpenDir | undefined;
  try {
    dir = openFolder(root, parts, false);
    return readdirSync(PINNED ? `/proc/self/fd/${dir.fd}` : dir.path, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  } finally {
    if (dir) closeSync(dir.fd);
  }
}

/** How deep a listing goes. A tree deeper than any call stack must neither crash the walk nor
 *  hold a file descriptor per level, so deeper folders are left out, and the listing says so. */
export const MAX_LIST_DEPTH = 128;

export interface Listing {
  files: string[];
  /** False when the listing stopped at `limit` entries or left folders out for depth. */
  complete: boolean;
  /** Folders deeper than MAX_LIST_DEPTH were not listed. */
  tooDeep: boolean;
}

/** Every file and link under the workspace, listed through open folders only, never following
 *  a link and skipping `.git`: a glob can only ever name what is inside. Stops after `limit`
 *  entries. The walk is a loop over an explicit stack of open folders (one per level), not a
 *  recursion. */
export function listInside(root: string, limit = 100_000): Listing {
  const files: string[] = [];
  let tooDeep = false;
  const stack: { dir: OpenDir; prefix: string; entries: Dirent[] }[] = [];
  const enter = (dir: OpenDir, prefix: string) => {
    try {
      const entries = readdirSync(PINNED ? `/proc/self/fd/${dir.fd}` : dir.path, {
        withFileTypes: true,
      });
      stack.push({ dir, prefix, entries: entries.reverse() }); // popped from the end: in order
    } catch (err) {
      closeSync(dir.fd);
      throw err;
    }
  };
  enter(openRoot(root), "");
  try {
    while (stack.length > 0) {
      const level = stack.at(-1)!;
      const entry = level.entries.pop();
      if (!entry) {
        closeSync(stack.pop()!.dir.fd);
        continue;
      }
      if (files.length >= limit) return { files, complete: false, tooDeep };
      const rel = level.prefix + entry.name;
      if (!entry.isDirectory()) {
        files.push(rel);
        continue;
      }
      if (rel === ".git") continue;
      if (stack.length >= MAX_LIST_DEPTH) {
        tooDeep = true;
        continue;
      }
      try {
        enter(openDirIn(level.dir, entry.name, false), `${rel}/`);
      } catch {
        continue; // swapped for a link or removed since the listing: skip it
      }
    }
    return { files, complete: !tooDeep, tooDeep };
  } finally {
    for (const level of stack) closeSync(level.dir.fd);
  }
}
