// s02's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap, both } from "../support/exercises.ts";

exerciseSuite("s02", {
  s02: {
    "checks only where the links lead (a link outside that leads back in passes)": {
      jail: swap(
        "  if (!isInside(workspace, full)) throw new Error(`path escapes the workspace: ${requested}`);\n",
        "",
      ),
    },
    "refuses an escape without saying why": {
      jail: swap("`path escapes the workspace: ${requested}`", "``"),
    },
    "refuses a malformed input with an empty error result": {
      dispatch: swap(
        "{ output: `Error: ${malformed}`, isError: true }",
        '{ output: "", isError: true }',
      ),
    },
    "never follows symlinks": {
      jail: swap("const real = followLinks(full, String(requested));", "const real = full;"),
    },
    "compares paths as plain prefixes (a sibling folder wsx passes for ws)": {
      jail: both(
        swap("!isInside(workspace, full)", "!full.startsWith(workspace)"),
        swap("!isInside(workspace, real)", "!real.startsWith(workspace)"),
      ),
    },
    "treats an absolute path as relative (path.join)": {
      jail: swap(
        "path.resolve(workspace, plainPath(requested))",
        "path.join(workspace, plainPath(requested))",
      ),
    },
    "throws on an unknown tool instead of returning an error result": {
      dispatch: swap(
        'if (!handler) return { output: `Error: unknown tool "${call.name}"`, isError: true };',
        'if (!handler) throw new Error(`unknown tool "${call.name}"`);',
      ),
    },
    "looks the handler up with handlers[name] (a name every object inherits is found)": {
      dispatch: swap(
        "Object.hasOwn(handlers, call.name) ? handlers[call.name] : undefined",
        "handlers[call.name]",
      ),
    },
    "reports a handler that threw as a success": {
      dispatch: swap(
        '`Error: ${reason.replace(/^E[A-Z]+: /, "")}`, isError: true }',
        '`Error: ${reason.replace(/^E[A-Z]+: /, "")}`, isError: false }',
      ),
    },
    "never checks the input against the schema": {
      dispatch: swap(
        "  if (malformed) return { output: `Error: ${malformed}`, isError: true };\n",
        "",
      ),
    },
  },
  "s02.1": {
    "deletes without the jail": {
      tools: swap("path.relative(workspace, safePath(root, p))", "String(p)"),
    },
    "removes a folder with everything in it": {
      tools: both(
        swap("lstatSync, openSync, unlinkSync }", "lstatSync, openSync, rmSync }"),
        swap("    if (!stat.isFile()) throw new Error(`${String(p)} is not a file`);\n", ""),
        swap("unlinkSync(at);", "rmSync(at, { recursive: true });"),
      ),
    },
  },
});
