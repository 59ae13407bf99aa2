// The scratch folder a run works in. Tools are jailed to it; the repository is never touched.
import {
  type Dirent,
  accessSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { writeJsonAtomic } from "../_shared/fsutil.ts";
import { REPO_ROOT, stateDirFor } from "../_shared/paths.ts";
import { emptyFolder, removeTree } from "../_shared/tree.ts";

export class WorkspaceError extends Error {
  name = "WorkspaceError";
}

export interface WorkspaceOptions {
  reset?: boolean;
  /** Files the chapter ships for the learner to edit (skills, hook configs); copied if missing. */
  template?: string;
}

/** Written in the state folder when the harness itself created (or found empty) the workspace.
 *  `--reset` empties only such a folder: never a home, a repository or anything else. */
const MARKER = "workspace.json";

export function madeByHarness(target: string): boolean {
  // The default workspaces under .workspace/ are the harness's by construction.
  if (target.startsWith(path.join(REPO_ROOT, ".workspace") + path.sep)) return true;
  try {
    const mark = JSON.parse(readFileSync(path.join(stateDirFor(target), MARKER), "utf8")) as {
      workspace?: string;
      made?: boolean;
    };
    return mark.made === true && mark.workspace === target;
  } catch {
    return false;
  }
}

const isEmptyDir = (dir: string) => readdirSync(dir).length === 0;

/** `p` with symlinks resolved, for a folder that may not exist yet: its deepest existing parent is
 *  resolved and the rest appended (a link on the way can lead into the repository). */
function realPath(p: string): string {
  const rest: string[] = [];
  let existing = p;
  while (!lstatSync(existing, { throwIfNoEntry: false }) && path.dirname(existing) !== existing) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  return path.join(realpathSync(existing), ...rest);
}

const inside = (p: string, folder: string) => p.startsWith(folder + path.sep);
const isStateFolder = (p: string) => path.basename(p).endsWith(".harness");
const isWorkspace = (p: string) => existsSync(path.join(stateDirFor(p), MARKER));

/** Why `dir` cannot be a workspace, or undefined. The model can write anything in its workspace,
 *  so a workspace must hold nothing the harness trusts — the repository, a git folder, a state
 *  folder — and must not lie inside another workspace, whose model could have planted this one's
 *  state (`<name>.harness/permissions.json` = auto) before it ever ran. */
function misplaced(dir: string): string | undefined {
  const repo = realpathSync(REPO_ROOT);
  const defaults = path.join(repo, ".workspace");
  if (inside(dir, repo) && !(path.dirname(dir) === defaults && !isStateFolder(dir)))
    return "it is inside the repository (only the default .workspace/<name>/ folders are)";
  if (dir.split(path.sep).includes(".git")) return "it is a git folder or inside one";
  if (isStateFolder(dir))
    return "it is a state folder (the harness keeps its own files in folders named *.harness)";
  for (let up = path.dirname(dir); up !== path.dirname(up); up = path.dirname(up)) {
    if (isStateFolder(up)) return `it is inside the state folder ${up}`;
    if (isWorkspace(up))
      return `it is inside the workspace ${up}, whose model could have written here`;
  }
  return undefined;
}

/** A state folder inside `dir` (of a workspace used before, inside it): the model working in
 *  `dir` could rewrite it. Looked for breadth-first in the first SCAN_FOLDERS folders, outside
 *  `.git` and `node_modules`; a deeper one is still refused when its own workspace is used, as
 *  that workspace is inside this one. */
const SCAN_FOLDERS = 5_000;
function heldState(dir: string): string | undefined {
  const queue = [dir];
  for (let seen = 0; seen < queue.length && seen < SCAN_FOLDERS; seen++) {
    let entries: Dirent[];
    try {
      entries = readdirSync(queue[seen]!, { withFileTypes: true });
    } catch {
      continue; // unreadable or too long a path: nothing of ours can be in it either
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue; // links are not followed
      const sub = path.join(queue[seen]!, entry.name);
      if (isStateFolder(sub) && existsSync(path.join(sub, MARKER))) return sub;
      if (entry.name !== ".git" && entry.name !== "node_modules") queue.push(sub);
    }
  }
  return undefined;
}

/** Why the state folder beside `target` cannot be trusted, or undefined. It decides what runs
 *  unasked (s07's rules, s08's trust marks), so it must be the harness's own: a real folder of
 *  this user's that no one else can change, holding the marker the harness wrote for `target`. */
function untrustedState(state: string, target: string, existed: boolean): string | undefined {
  const folder = lstatSync(state, { throwIfNoEntry: false });
  if (!folder) return undefined;
  if (folder.isSymbolicLink()) return `its state folder ${state} is a symlink`;
  // A default workspace's state sits in .workspace/, which no workspace may contain: it is the
  // harness's by place (a learner who deleted the workspace keeps its rules). Anywhere else, a
  // state folder without its workspace was left over or planted.
  const byPlace = path.dirname(target) === path.join(realpathSync(REPO_ROOT), ".workspace");
  if (!existed && !byPlace)
    return `its state folder ${state} exists without it (left over or planted)`;
  const mark = lstatSync(path.join(state, MARKER), { throwIfNoEntry: false });
  for (const [name, st] of [
    [state, folder],
    [path.join(state, MARKER), mark],
  ] as const) {
    if (!st) continue;
    if (process.getuid && st.uid !== process.getuid())
      return `its state folder ${state} belongs to another user`;
    // Group-writable is fine for the user's own group (umask 002 with a group of one's own).
    if (st.mode & 0o002 || (st.mode & 0o020 && st.gid !== process.getgid?.()))
      return `its state folder ${state} can be changed by other users (${name})`;
  }
  if (!folder.isDirectory()) return `its state folder ${state} is not a folder`;
  if (!byPlace && !(mark?.isFile() && markedFor(target)))
    return `its state folder ${state} was not made by the harness (it has no marker for this workspace)`;
  return undefined;
}

function markedFor(target: string): boolean {
  try {
    const mark = JSON.parse(readFileSync(path.join(stateDirFor(target), MARKER), "utf8")) as {
      workspace?: string;
    };
    return mark.workspace === target;
  } catch {
    return false;
  }
}

/** The real folder to work in, made (and its state folder) if need be; anything wrong with it is
 *  a WorkspaceError of one sentence. */
export function prepareWorkspace(dir: string, options: WorkspaceOptions = {}): string {
  try {
    return prepare(dir, options);
  } catch (err) {
    if (err instanceof WorkspaceError) throw err;
    throw new WorkspaceError(
      `cannot use ${path.resolve(dir)} as a workspace: ${(err as Error).message}`,
    );
  }
}

function prepare(dir: string, { reset = false, template }: WorkspaceOptions): string {
  const given = path.resolve(dir);
  // A symlink is followed once, here; everything after works on the real folder it names.
  const target = realPath(given);
  const realHome = existsSync(homedir()) ? realpathSync(homedir()) : homedir();
  const guarded = [REPO_ROOT, realHome];
  if (
    target === path.parse(target).root ||
    guarded.some((g) => g === target || g.startsWith(target + path.sep))
  ) {
    throw new WorkspaceError(
      `refusing to use ${target} as a workspace: it is the repository, your home or a parent of them`,
    );
  }
  // The path asked for and the one it leads to: a link may lead in, or out of, the repository.
  const why = misplaced(given) ?? misplaced(target);
  if (why) throw new WorkspaceError(`refusing to use ${target} as a workspace: ${why}`);
  const existed = existsSync(target);
  if (existed && !lstatSync(target).isDirectory())
    throw new WorkspaceError(`cannot use ${target} as a workspace: it is not a folder`);
  const held = existed ? heldState(target) : undefined;
  if (held)
    throw new WorkspaceError(
      `refusing to use ${target} as a workspace: it holds the state folder ${held} of another workspace, which a model working here could rewrite`,
    );
  const state = stateDirFor(target);
  const distrust = untrustedState(state, target, existed);
  if (distrust)
    throw new WorkspaceError(
      `refusing to use ${target} as a workspace: ${distrust}; delete it if you mean to start afresh`,
    );
  if (reset && existed && !isEmptyDir(target) && !madeByHarness(target)) {
    throw new WorkspaceError(
      `refusing to reset ${target}: the harness did not create it, so emptying it could destroy your files (delete its contents yourself if you mean it)`,
    );
  }
  try {
    if (reset && existed) {
      emptyFolder(target);
      removeTree(state);
    }
    const fresh = !existed || isEmptyDir(target);
    mkdirSync(target, { recursive: true });
    accessSync(target, constants.W_OK);
    if (fresh || !existsSync(path.join(state, MARKER))) {
      mkdirSync(state, { recursive: true, mode: 0o700 });
      writeJsonAtomic(path.join(state, MARKER), { workspace: realpathSync(target), made: fresh });
    }
    // The chapter's own files, where missing. A link the model left in their way is not followed
    // (cp refuses to write through it), and the refusal is one sentence.
    if (template && existsSync(template))
      cpSync(template, target, { recursive: true, force: false, errorOnExist: false });
  } catch (err) {
    throw new WorkspaceError(`cannot use ${target} as a workspace: ${(err as Error).message}`);
  }
  return realpathSync(target);
}
