// The harness's own programs (bwrap, setsid) start outside the sandbox, so they must be the ones
// installed on this machine, never a file the model wrote. (No chapter imports here: shell.ts
// may use it too.)
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** `name` as found on the harness's own PATH: absolute folders only (a relative one, `.` or
 *  `node_modules/.bin`, is looked up from the workspace), and never a file inside the workspace
 *  (a direnv'd PATH may name one of its folders). Throws one sentence if there is none. */
export function ownProgram(name: string, workspace: string): string {
  const ws = realpathSync(workspace);
  const found = (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .map((dir) => path.join(dir, name))
    .find((file) => {
      try {
        accessSync(file, constants.X_OK);
        const real = realpathSync(file);
        return statSync(real).isFile() && real !== ws && !real.startsWith(ws + path.sep);
      } catch {
        return false;
      }
    });
  if (!found) throw new Error(`${name} is not on the harness's PATH (outside the workspace)`);
  return found;
}
