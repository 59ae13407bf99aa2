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
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    try {
      const real = realpathSync(path.join(dir, name));
      accessSync(real, constants.X_OK);
      // The resolved file is what runs: a link checked here and swapped before the start cannot
      // then lead somewhere else.
      if (statSync(real).isFile() && real !== ws && !real.startsWith(ws + path.sep)) return real;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is not on the harness's PATH (outside the workspace)`);
}
