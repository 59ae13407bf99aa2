// Where things live: the repository, and the harness's own state beside each workspace.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** The harness's own state for a workspace (mailboxes, task board, request table, trust marks,
 *  lane index) lives beside it, not in it: the model's commands and file tools reach only the
 *  workspace, so they cannot forge a message, grab a claim or trust their own hooks. */
export function stateDirFor(workspace: string): string {
  const full = path.resolve(workspace);
  return path.join(path.dirname(full), `${path.basename(full)}.harness`);
}
