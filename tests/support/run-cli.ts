// The runner as a learner starts it (`npm run chapter ...`, here node cli.js as npm runs it), with a
// clean environment so no real key leaks into a test.
import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";

export const CLI = path.join(REPO_ROOT, "chapters/_runner/cli.js");
/** `npm run exercise`, as npm runs it. */
export const EXERCISE_CLI = ["--import", "tsx", path.join(REPO_ROOT, "chapters/_exercises/cli.ts")];

export function runCli(
  args: string[],
  opts: { input?: string; env?: Record<string, string>; program?: string[] } = {},
) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    NO_COLOR: "1",
    ...opts.env,
  };
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...(opts.program ?? [CLI]), ...args], {
      cwd: REPO_ROOT,
      env,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.end(opts.input ?? "");
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
