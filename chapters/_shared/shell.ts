// Running a shell command safely enough for a tutorial: a process group we can kill whole,
// a timeout, a cap on output, and an environment without secrets.
import { spawn } from "node:child_process";

export interface CommandResult {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
}

export interface CommandOptions {
  cwd: string;
  timeoutMs?: number;
  maxOutput?: number;
}

const SECRET = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|ANTHROPIC|COOKIE|SESSION/i;

/** The environment a model-driven command sees: ours, minus anything that looks secret. */
export function scrubbedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !SECRET.test(k)));
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export function runCommand(command: string, { cwd, timeoutMs = 30_000, maxOutput = 50_000 }: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    // detached: the command leads its own process group, so a timeout kills its children too.
    const child = spawn("bash", ["-c", command], { cwd, detached: true, env: scrubbedEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let truncated = false;
    let timedOut = false;
    const collect = (chunk: Buffer) => {
      if (output.length >= maxOutput) { truncated = true; return; }
      output += chunk.toString("utf8");
      if (output.length > maxOutput) { output = output.slice(0, maxOutput); truncated = true; }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => { timedOut = true; killGroup(child.pid); }, timeoutMs);
    let exitCode: number | null = null;
    let settled = false;
    const finish = (text = output) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ output: text, exitCode, timedOut, truncated });
    };
    child.on("exit", (code) => {
      exitCode = code;
      // Anything it left running in the background goes with it...
      killGroup(child.pid);
      // ...and a grandchild that escaped the group (setsid) may not hold our pipes open forever.
      setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); finish(); }, 500).unref();
    });
    child.on("close", () => finish());
    child.on("error", (err) => finish(String(err)));
  });
}
