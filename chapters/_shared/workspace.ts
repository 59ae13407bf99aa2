// The scratch folder a run works in. Tools are jailed to it; the repository is never touched.
import { accessSync, constants, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./chapters.ts";

export class WorkspaceError extends Error {
  name = "WorkspaceError";
}

export interface WorkspaceOptions {
  reset?: boolean;
  /** Files the chapter ships for the learner to edit (skills, hook configs); copied if missing. */
  template?: string;
}

export function prepareWorkspace(dir: string, { reset = false, template }: WorkspaceOptions = {}): string {
  const target = path.resolve(dir);
  const forbidden = [REPO_ROOT, homedir(), path.parse(target).root];
  if (forbidden.includes(target) || REPO_ROOT.startsWith(target + path.sep)) {
    throw new WorkspaceError(`refusing to use ${target} as a workspace: it is the repository, your home or a parent of them`);
  }
  try {
    if (reset && existsSync(target)) {
      for (const entry of readdirSync(target)) rmSync(path.join(target, entry), { recursive: true, force: true });
    }
    mkdirSync(target, { recursive: true });
    accessSync(target, constants.W_OK);
  } catch (err) {
    throw new WorkspaceError(`cannot use ${target} as a workspace: ${(err as Error).message}`);
  }
  if (template && existsSync(template)) {
    cpSync(template, target, { recursive: true, force: false, errorOnExist: false });
  }
  return target;
}
