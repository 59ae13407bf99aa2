// Running a command for the model: inside an OS sandbox where one can start, as its own process
// group, with a timeout, a cap on output and an environment that names no secrets. The bash
// tool, s08's hooks and s11's background jobs all start their commands here.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { REPO_ROOT } from "./paths.ts";

export interface CommandResult {
  /** stdout and stderr interleaved as they arrived. */
  output: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
}

export interface CommandOptions {
  cwd: string;
  timeoutMs?: number;
  maxOutput?: number;
  /** Written to the command's stdin (hooks get their event this way); otherwise stdin is empty. */
  stdin?: string;
  /** Folders the command may write besides `cwd` (a lane's shared .git, say). */
  writable?: string[];
  /** "sh" for hooks, which are POSIX sh by convention; "bash" otherwise. */
  shell?: "bash" | "sh";
}

export interface RunningCommand {
  readonly pid: number | undefined;
  /** What the command has printed so far. */
  output(): string;
  /** Resolves once the command and everything it started have ended. */
  readonly done: Promise<CommandResult>;
  /** Ends the command and its whole process group now. */
  kill(): void;
}

// #region environment
/** Only what a command needs to run. An allow-list, not a deny-list: a secret can hide under
 *  any name (DATABASE_URL, MYSQL_PWD, GH_PAT), so names we do not know never pass. */
const PASSED = new Set([
  "PATH",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "NO_COLOR",
  "COLUMNS",
  "LINES",
]);

export function commandEnv(env: NodeJS.ProcessEnv = process.env, home = "/tmp"): NodeJS.ProcessEnv {
  const kept = Object.entries(env).filter(([k]) => PASSED.has(k) || k.startsWith("LC_"));
  // HOME points somewhere harmless: the real one (with ~/.ssh, ~/.aws) is hidden in the sandbox.
  return { ...Object.fromEntries(kept), HOME: home };
}
// #endregion environment

// #region sandbox
/** Files that hold secrets even when everything else in / may be read. */
const SECRET_FILES = ["/etc/shadow", "/etc/gshadow", "/etc/sudoers"];

export interface SandboxStatus {
  kind: "bubblewrap" | "none";
  /** One line for the banner. */
  summary: string;
}

export const sandboxSettings = {
  /** Let commands reach the network (`--allow-network`). Off by default. */
  network: false,
  /** Turn the sandbox off (`--no-sandbox`); the banner says so. */
  disabled: false,
};

let probed: SandboxStatus | undefined;

/** Can a bubblewrap sandbox start here? Asked once: macOS, Windows, a Linux without bwrap or
 *  without user namespaces all answer no, and commands then run unsandboxed, said in the banner. */
export function sandboxStatus(): SandboxStatus {
  if (sandboxSettings.disabled)
    return {
      kind: "none",
      summary: "sandbox: off (--no-sandbox); commands run with your permissions",
    };
  if (probed) return probed;
  if (process.platform !== "linux") {
    return (probed = {
      kind: "none",
      summary: `sandbox: none on ${process.platform} (bubblewrap is Linux-only); commands run with your permissions`,
    });
  }
  const test = spawnSync("bwrap", [...bwrapArgs(process.cwd(), []), "true"], {
    stdio: "ignore",
    timeout: 10_000,
  });
  probed =
    test.status === 0
      ? {
          kind: "bubblewrap",
          summary: "sandbox: bubblewrap — commands write only in the workspace and see no secrets",
        }
      : {
          kind: "none",
          summary: test.error
            ? "sandbox: none (bubblewrap is not installed: apt-get install bubblewrap); commands run with your permissions"
            : "sandbox: none (bubblewrap cannot start here: user namespaces are off); commands run with your permissions",
        };
  return probed;
}

/** PATH folders (and node's own) that live inside a hidden folder: a `bin` folder is shown
 *  with its parent, where its links usually point (~/.nvm/versions/node/v20/bin → ../lib). */
function toolDirsUnder(hidden: string[]): string[] {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), path.dirname(process.execPath)];
  const inside = (dir: string) => hidden.some((h) => dir.startsWith(h + path.sep));
  return [
    ...new Set(
      dirs
        .filter((d) => path.isAbsolute(d) && existsSync(d) && inside(d))
        .map((d) => (path.basename(d) === "bin" && inside(path.dirname(d)) ? path.dirname(d) : d)),
    ),
  ];
}

/** The bubblewrap command line. Order matters: later mounts cover earlier ones, so we show the
 *  whole system read-only, hide the places secrets live, then open the folders it may write. */
export function bwrapArgs(cwd: string, writable: string[]): string[] {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const args = [
    "--unshare-user",
    "--uid",
    String(uid),
    "--gid",
    String(gid),
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // Our pid namespace: no /proc of the harness, and when the command ends, everything it
    // started ends with it — a `setsid` daemon included. If the harness dies, so does bwrap.
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  if (!sandboxSettings.network) args.push("--unshare-net");
  // Home (.ssh, .aws, tokens) and this repository (.env, the harness state of every chapter).
  const hidden = [...new Set([homedir(), REPO_ROOT])].filter(existsSync);
  for (const dir of hidden) args.push("--tmpfs", dir);
  // ...but tools installed under them (node by nvm, ./node_modules/.bin) stay usable, read-only.
  for (const dir of toolDirsUnder(hidden)) args.push("--ro-bind", dir, dir);
  for (const file of SECRET_FILES) if (existsSync(file)) args.push("--ro-bind", "/dev/null", file);
  for (const dir of [cwd, ...writable]) args.push("--bind", dir, dir);
  args.push("--chdir", cwd);
  return args;
}
// #endregion sandbox

// #region process-groups
/** Every process group we started and have not yet seen end: `killAllCommands` ends them all. */
const live = new Map<number, () => void>();

function killGroup(pid: number | undefined, signal: NodeJS.Signals = "SIGKILL"): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Ends every command, hook and background job still running (Ctrl-C twice, SIGTERM, exit). */
export function killAllCommands(): void {
  for (const kill of [...live.values()]) kill();
}
process.on("exit", killAllCommands);

export function liveCommandCount(): number {
  return live.size;
}

/** A git worktree (an s12 lane) keeps its history in the main checkout's .git: a command in
 *  the lane must be able to commit there, so that folder is writable too. */
function sharedGitDir(cwd: string): string[] {
  try {
    const gitdir = /^gitdir: (.+)$/m.exec(readFileSync(path.join(cwd, ".git"), "utf8"))?.[1];
    if (!gitdir) return [];
    const common = readFileSync(path.join(path.resolve(cwd, gitdir), "commondir"), "utf8").trim();
    return [path.resolve(cwd, gitdir, common)];
  } catch {
    return []; // not a worktree (or a plain repository, whose .git is inside cwd already)
  }
}

export function startCommand(command: string, opts: CommandOptions): RunningCommand {
  const { timeoutMs = 30_000, maxOutput = 50_000, shell = "bash" } = opts;
  const cwd = realpathSync(opts.cwd);
  const writable = [...(opts.writable ?? []), ...sharedGitDir(cwd)]
    .filter(existsSync)
    .map((dir) => realpathSync(dir));
  const sandboxed = sandboxStatus().kind === "bubblewrap";
  const [file, args] = sandboxed
    ? ["bwrap", [...bwrapArgs(cwd, writable), shell, "-c", command]]
    : [shell, ["-c", command]];
  // detached: the command leads its own process group, so one kill reaches all its children.
  const child = spawn(file, args, {
    cwd,
    detached: true,
    env: commandEnv(),
    stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  const text = { output: "", stdout: "", stderr: "" };
  let truncated = false;
  let timedOut = false;
  // A decoder per stream: a multi-byte character split across two chunks stays one character.
  const collect = (key: "stdout" | "stderr") => {
    const decoder = new StringDecoder("utf8");
    return (chunk: Buffer | string) => {
      const piece = typeof chunk === "string" ? chunk : decoder.write(chunk);
      if (text.output.length >= maxOutput) {
        truncated = truncated || piece.length > 0;
        return;
      }
      const room = maxOutput - text.output.length;
      if (piece.length > room) truncated = true;
      text.output += piece.slice(0, room);
      text[key] += piece.slice(0, room);
    };
  };
  child.stdout!.on("data", collect("stdout"));
  child.stderr!.on("data", collect("stderr"));
  if (child.stdin) {
    child.stdin.on("error", () => {
      /* a command that never reads its stdin is fine */
    });
    child.stdin.end(opts.stdin);
  }
  const kill = () => killGroup(child.pid);
  if (child.pid) live.set(child.pid, kill);
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, timeoutMs);

  const done = new Promise<CommandResult>((resolve) => {
    let exitCode: number | null = null;
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.pid) live.delete(child.pid);
      if (error) text.output += error;
      resolve({ ...text, exitCode, timedOut, truncated });
    };
    child.on("exit", (code) => {
      exitCode = code;
      // Anything it left running in the background goes with it...
      kill();
      // ...and a grandchild that escaped the group (setsid, possible only without the sandbox)
      // may not hold our pipes open forever.
      setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish();
      }, 500).unref();
    });
    child.on("close", () => finish());
    child.on("error", (err) => finish(String(err)));
  });
  return { pid: child.pid, output: () => text.output, done, kill };
}

export function runCommand(command: string, opts: CommandOptions): Promise<CommandResult> {
  return startCommand(command, opts).done;
}
// #endregion process-groups
