// The harness's own programs (bwrap, setsid) start outside the sandbox, so they must be the ones
// installed on this machine, never a file the model wrote. (No chapter imports here: shell.ts
// may use it too.)
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** `name` as found on the harness's own PATH: absolute folders only (a relative one, `.` or
 *  `node_modules/.bin`, is looked up from the workspace), and never a file inside a workspace
 *  (a direnv'd PATH may name one of its folders), whether or not that folder exists yet.
 *  Throws one sentence if there is none. */
export function ownProgram(name: string, workspaces: string | string[]): string {
  const excluded = [workspaces].flat().flatMap((ws) => {
    const resolved = path.resolve(ws);
    try {
      return [resolved, realpathSync(resolved)];
    } catch {
      return [resolved];
    }
  });
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    try {
      const real = realpathSync(path.join(dir, name));
      accessSync(real, constants.X_OK);
      // The resolved file is what runs: a link checked here and swapped before the start cannot
      // then lead somewhere else.
      const inside = excluded.some((ws) => real === ws || real.startsWith(ws + path.sep));
      if (statSync(real).isFile() && !inside) return real;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is not on the harness's PATH (outside the workspace)`);
}
