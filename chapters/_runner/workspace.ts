// The scratch folder a run works in. Tools are jailed to it; the repository is never touched.
import {
  accessSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { writeJsonAtomic } from "../_shared/fsutil.ts";
import { REPO_ROOT, stateDirFor } from "../_shared/paths.ts";

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

function madeByHarness(target: string): boolean {
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

export function prepareWorkspace(
  dir: string,
  { reset = false, template }: WorkspaceOptions = {},
): string {
  const given = path.resolve(dir);
  // A symlink is followed once, here; everything after works on the real folder it names.
  const target = existsSync(given) ? realpathSync(given) : given;
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
  const existed = existsSync(target);
  if (existed && !lstatSync(target).isDirectory())
    throw new WorkspaceError(`cannot use ${target} as a workspace: it is not a folder`);
  if (reset && existed && !isEmptyDir(target) && !madeByHarness(target)) {
    throw new WorkspaceError(
      `refusing to reset ${target}: the harness did not create it, so emptying it could destroy your files (delete its contents yourself if you mean it)`,
    );
  }
  const state = stateDirFor(target);
  try {
    if (reset && existed) {
      for (const entry of readdirSync(target))
        rmSync(path.join(target, entry), { recursive: true, force: true });
      rmSync(state, { recursive: true, force: true });
    }
    const fresh = !existed || isEmptyDir(target);
    mkdirSync(target, { recursive: true });
    accessSync(target, constants.W_OK);
    if (fresh || !existsSync(path.join(state, MARKER))) {
      writeJsonAtomic(path.join(state, MARKER), { workspace: realpathSync(target), made: fresh });
    }
  } catch (err) {
    throw new WorkspaceError(`cannot use ${target} as a workspace: ${(err as Error).message}`);
  }
  if (template && existsSync(template)) {
    cpSync(template, target, { recursive: true, force: false, errorOnExist: false });
  }
  return realpathSync(target);
}
