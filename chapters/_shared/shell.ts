// Running a command for the model: inside an OS sandbox where one can start, as its own process
// group, with a timeout, a cap on output and an environment that names no secrets. The bash
// tool, s08's hooks and s11's background jobs all start their commands here.
import { spawn, spawnSync, type StdioOptions } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { REPO_ROOT } from "./paths.ts";
import {
  fallbackIdentity,
  gitDirIn,
  gitGuards,
  gitChangeWarning,
  gitRunSurface,
  issueWarning,
  surfaceChanges,
} from "./git-guard.ts";
import { ownProgram } from "./programs.ts";

export interface CommandResult {
  /** stdout and stderr interleaved as they arrived. */
  output: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
  /** The command never started (say, its folder was refused); `output` says why. */
  refused?: true;
  /** The harness's own warnings, also at the end of `output` (what the command changed in what
   *  git runs): a caller that shows the result later (s11) shows these from here. */
  warnings?: string[];
}

export interface CommandOptions {
  /** The run's sandbox (the runner's choices: network, or none at all). */
  sandbox: Sandbox;
  /** Where the command runs, and the folder it may write. */
  cwd: string;
  timeoutMs?: number;
  maxOutput?: number;
  /** Which end of a long output is kept: the start (default), or the end (a7's goal check: a
   *  test run's verdict is its last lines). */
  keep?: "head" | "tail";
  /** Written to the command's stdin (hooks get their event this way); otherwise stdin is empty. */
  stdin?: string;
  /** Folders the harness lets the command write besides `cwd` (s12: a lane's repository's .git).
   *  Only ever paths the harness itself knows, never ones read from a file in the workspace. */
  writable?: string[];
  /** Files and folders of the harness's own the command may read though the sandbox hides them
   *  (a3: its type-check script and the TypeScript it runs), read-only. Harness paths only. */
  readable?: string[];
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
  // The locale categories by name: a prefix would pass any LC_SECRET someone set (SSH's AcceptEnv
  // forwards LC_* from the client, which makes it a common place to smuggle values).
  ...["ALL", "CTYPE", "COLLATE", "MESSAGES", "MONETARY", "NUMERIC", "TIME"].map((c) => `LC_${c}`),
  ...["ADDRESS", "IDENTIFICATION", "MEASUREMENT", "NAME", "PAPER", "TELEPHONE"].map(
    (c) => `LC_${c}`,
  ),
]);

export function commandEnv(env: NodeJS.ProcessEnv = process.env, home = "/tmp"): NodeJS.ProcessEnv {
  const kept = Object.entries(env).filter(([k]) => PASSED.has(k));
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

/** What the runner decided about the sandbox for one run: an object every command is started
 *  with (through the agent's env and its tools), never a setting changed under them. Frozen. */
export interface Sandbox {
  /** The workspace the run works in: `bwrap` is never looked up inside it. */
  readonly workspace: string;
  /** Commands may reach the network (`--allow-network`). Off by default. */
  readonly network: boolean;
  /** No sandbox at all (`--no-sandbox`); the banner says so. */
  readonly disabled: boolean;
}

/** Every sandbox sandboxFor made (an object of the caller's own is not one), and the workspace of
 *  each: a program the harness runs outside the sandbox (bwrap) is never a file in any of them,
 *  whichever run asks first. Facts about this process, not settings: nothing here turns off. */
const made = new WeakSet<Sandbox>();
const workspaces = new Set<string>();

/** The sandbox for a run in `workspace`: on, without network, unless the person said otherwise. */
export function sandboxFor(
  workspace: string,
  choices: { network?: boolean; disabled?: boolean } = {},
): Sandbox {
  const sandbox = Object.freeze({
    workspace: path.resolve(workspace),
    network: choices.network ?? false,
    disabled: choices.disabled ?? false,
  });
  workspaces.add(sandbox.workspace);
  made.add(sandbox);
  return sandbox;
}

/** `holder` (an agent's env) with `sandbox` in a slot that cannot be written: code handed the env
 *  (a tool factory, a team, a test) cannot put another sandbox there for the next command. */
export function holding<T extends object>(
  holder: T,
  sandbox: Sandbox,
): T & { readonly sandbox: Sandbox } {
  return Object.defineProperty(holder, "sandbox", {
    value: madeHere(sandbox),
    enumerable: true,
    writable: false,
    configurable: false,
  }) as T & { readonly sandbox: Sandbox };
}

/** `sandbox`, if sandboxFor made it; otherwise one sentence. (A JavaScript caller gets no type
 *  check: an options object where the sandbox goes must not read as "no sandbox here".) */
function madeHere(sandbox: Sandbox | undefined): Sandbox {
  if (!sandbox || !made.has(sandbox))
    throw new Error(
      "not a sandbox: pass the run's (env.sandbox, or the tool context's), made by sandboxFor",
    );
  return sandbox;
}

/** What this machine can do, found out once and the same for every run: whether bubblewrap
 *  starts here, and which bwrap (with its identity, so a file swapped in later is seen). */
let machine: { status: SandboxStatus; bwrap?: { path: string; id: string } } | undefined;

const identity = (file: string) => {
  const { dev, ino, size, mtimeMs } = statSync(file);
  return `${dev}:${ino}:${size}:${mtimeMs}`;
};

/** Can a bubblewrap sandbox start here? Asked once: macOS, Windows, a Linux without bwrap or
 *  without user namespaces all answer no, and commands then run unsandboxed, said in the banner. */
export function sandboxStatus(sandbox: Sandbox): SandboxStatus {
  if (madeHere(sandbox).disabled)
    return {
      kind: "none",
      summary: "sandbox: off (--no-sandbox); commands run with your permissions",
    };
  return probeMachine().status;
}

const none = (why: string): SandboxStatus => ({
  kind: "none",
  summary: `sandbox: none ${why}; commands run with your permissions`,
});

function probeMachine(): NonNullable<typeof machine> {
  if (machine) return machine;
  if (process.platform !== "linux")
    return (machine = { status: none(`on ${process.platform} (bubblewrap is Linux-only)`) });
  let found: string;
  try {
    found = ownProgram("bwrap", [...workspaces]);
  } catch {
    let anywhere: string | undefined;
    try {
      anywhere = ownProgram("bwrap", []);
    } catch {
      // on no folder of PATH at all
    }
    return (machine = {
      status: none(
        anywhere
          ? `(the only bwrap on PATH, ${anywhere}, lies in a workspace, where a model could replace it)`
          : "(bubblewrap is not installed: apt-get install bubblewrap)",
      ),
    });
  }
  // The probe is the machine's, not a run's: in an empty folder of its own, with the commands'
  // environment, and `true` by its full path (never a file a workspace holds, whatever PATH says).
  const here = realpathSync(mkdtempSync(path.join(tmpdir(), "lah-probe-")));
  try {
    const yes = ownProgram("true", [...workspaces, here]);
    const probing = Object.freeze({ workspace: here, network: false, disabled: false });
    const probe = (args: string[], stdio: StdioOptions = "ignore") =>
      spawnSync(found, [...args, yes], { stdio, cwd: here, env: commandEnv(), timeout: 10_000 });
    const test = probe(bwrapArgs(probing, here, []));
    // Folders are bound by the handle we hold open (`--bind-fd`, bubblewrap 0.7 and later).
    const byHandle = () => {
      const fd = openPinned(here);
      try {
        return probe(bwrapArgs(probing, here, [], [{ path: here, fd: 3 }]), [
          "ignore",
          "ignore",
          "ignore",
          fd,
        ]);
      } finally {
        closeSync(fd);
      }
    };
    if (test.status !== 0)
      return (machine = {
        status: none("(bubblewrap cannot start here: user namespaces are off)"),
      });
    if (byHandle().status !== 0)
      return (machine = {
        status: none(
          "(this bubblewrap is older than 0.7 and cannot bind a folder by handle: upgrade it)",
        ),
      });
    return (machine = {
      status: {
        kind: "bubblewrap",
        summary: "sandbox: bubblewrap — commands write only in the workspace and see no secrets",
      },
      bwrap: { path: found, id: identity(found) },
    });
  } finally {
    rmSync(here, { recursive: true, force: true });
  }
}

/** bwrap's full path, found when the machine was probed (before any model ran): a bare "bwrap"
 *  is looked up on PATH, where a relative entry (`.`, `bin`) or a workspace's folder would find a
 *  file a model wrote. Refused if it now lies in a workspace or a folder the command may write,
 *  or is no longer the file that was found. */
export function bwrapProgram(writable: string[] = []): string {
  const found = probeMachine().bwrap;
  if (!found) throw new Error("bubblewrap cannot start here");
  const inside = [...workspaces, ...writable].find((dir) =>
    found.path.startsWith(path.resolve(dir) + path.sep),
  );
  if (inside)
    throw new Error(`${found.path} lies in ${inside}, a folder a model may write: not started`);
  let now: string | undefined;
  try {
    now = identity(found.path);
  } catch {
    // gone: refused below
  }
  if (now !== found.id)
    throw new Error(`${found.path} changed since the harness found it: not started`);
  return found.path;
}

/** /run, and /var/run where it is a folder of its own rather than a link to /run. */
function hiddenRunDirs(): string[] {
  const dirs = ["/run", "/var/run"].filter(
    (dir) => lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false,
  );
  return dirs.flatMap((dir) => ["--tmpfs", dir]);
}

/** Places in a home folder that hold secrets: never shown, nor any folder that contains one. */
const SECRET_STORES = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config",
  ".docker",
  ".kube",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".password-store",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".local/share/keyrings",
];

/** Tools installed under a hidden folder (node by nvm, pip --user scripts, ./node_modules/.bin)
 *  stay usable, read-only: each PATH folder there is shown, and beside a `bin` folder its `lib`
 *  (nvm's npm and pip's packages live there) — never the parent itself, which can hold
 *  credentials (~/.cargo/credentials.toml, ~/.local/share/keyrings). A PATH entry is followed to
 *  the real folder first, so `~/bin -> ~` cannot show the home folder. */
function toolDirsUnder(hidden: string[], writable: string[]): string[] {
  const home = homedir();
  const secrets = SECRET_STORES.map((name) => path.join(home, name));
  const within = (dir: string, parent: string) =>
    dir === parent || dir.startsWith(parent + path.sep);
  const safe = (dir: string) =>
    hidden.some((h) => dir.startsWith(h + path.sep)) &&
    !secrets.some((secret) => within(dir, secret) || within(secret, dir));
  const real = (dir: string) => (path.isAbsolute(dir) && existsSync(dir) ? realpathSync(dir) : "");
  const onPath = [
    ...(process.env.PATH ?? "").split(path.delimiter),
    path.dirname(process.execPath),
  ];
  // A PATH folder the command may write itself (a direnv'd `bin` in the workspace) is the
  // model's: it could be swapped for a link to anything in your home before the next command.
  const ours = (dir: string) => !writable.some((w) => within(path.resolve(dir), w));
  const shown = onPath.filter(ours).map(real).filter(safe).filter(ours);
  const libs = shown
    .filter((dir) => path.basename(dir) === "bin")
    .map((dir) => real(path.join(dir, "..", "lib")))
    .filter(safe);
  return [...new Set([...shown, ...libs])];
}

/** A folder or file bound into the sandbox by the descriptor the command receives it on (see
 *  `openPinned`), not looked up again by its name. */
export interface Mount {
  path: string;
  fd: number;
  readOnly?: boolean;
}

/** The bubblewrap command line. Order matters: later mounts cover earlier ones, so we show the
 *  whole system read-only, hide the places secrets live, then open the folders it may write.
 *  With `mounts` (as every command gets them) the writable folders are bound by handle. */
export function bwrapArgs(
  sandbox: Sandbox,
  cwd: string,
  writable: string[],
  mounts?: Mount[],
): string[] {
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
    // Daemons' sockets (D-Bus, whose systemd-run starts a command outside; docker; databases)
    // are files under /run: a network namespace does not cover them, and read-only does not stop
    // connect(). So /run is an empty folder too.
    ...hiddenRunDirs(),
  ];
  // No network: npm (and npx) is told so, and fails at once with ENOTCACHED instead of retrying
  // a registry it cannot reach for half a minute.
  if (!sandbox.network) args.push("--unshare-net", "--setenv", "npm_config_offline", "true");
  // With the network on, name lookups need resolv.conf, which often lives under /run.
  else if (existsSync("/etc/resolv.conf") && realpathSync("/etc/resolv.conf").startsWith("/run/")) {
    const resolv = realpathSync("/etc/resolv.conf");
    args.push("--ro-bind", resolv, resolv);
  }
  // Home (.ssh, .aws, tokens) and this repository (.env, the harness state of every chapter).
  const hidden = [...new Set([homedir(), REPO_ROOT])].filter(existsSync);
  for (const dir of hidden) args.push("--tmpfs", dir);
  // ...but tools installed under them (node by nvm, ./node_modules/.bin) stay usable, read-only.
  for (const dir of toolDirsUnder(hidden, [cwd, ...writable])) args.push("--ro-bind", dir, dir);
  for (const file of SECRET_FILES) if (existsSync(file)) args.push("--ro-bind", "/dev/null", file);
  // Without handles (a1 starts its servers through a transport that passes none) the folders are
  // bound by name, the repository guards too; it happens at start-up, before any model command.
  if (!mounts)
    for (const dir of [cwd, ...writable]) {
      args.push("--bind", dir, dir);
      for (const guard of gitGuards(dir))
        args.push(guard.readOnly ? "--ro-bind" : "--bind", guard.path, guard.path);
    }
  for (const { path: at, fd, readOnly } of mounts ?? [])
    args.push(readOnly ? "--ro-bind-fd" : "--bind-fd", String(fd), at);
  args.push("--chdir", cwd);
  return args;
}
// #endregion sandbox

// #region process-groups
/** How much of a command's latest output is kept for its live line. */
const TAIL = 2_000;
/** A command running now, as the terminal's live line shows it (the runner's status line). */
export interface LiveCommand {
  /** When it started (Date.now()). */
  readonly since: number;
  /** Started to run on its own (s11's background jobs), not awaited by the tool that started it. */
  readonly background: boolean;
  /** The last line it printed that is not blank, as it printed it ("" before any): whoever shows
   *  it escapes it. A progress bar's line is the part after its last carriage return. */
  lastLine(): string;
}

/** Every process group we started and have not yet seen end: `killAllCommands` ends them all. */
const live = new Map<number, { kill: () => void; command: LiveCommand }>();

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
  for (const { kill } of [...live.values()]) kill();
}
process.on("exit", killAllCommands);

export function liveCommandCount(): number {
  return live.size;
}

/** The commands running now, oldest first. */
export function liveCommands(): LiveCommand[] {
  return [...live.values()].map(({ command }) => command);
}

/** Opens a folder (or file) to bind and checks where the open handle really is. A path that goes
 *  through a symlink (a `.worktrees/x` the model linked to your home) is refused; and since
 *  bubblewrap binds the handle itself, swapping the folder for a link after this check changes
 *  nothing. The caller closes the descriptor. */
function openPinned(wanted: string, folder = true): number {
  let fd: number;
  try {
    const flags = constants.O_RDONLY | constants.O_NOFOLLOW | (folder ? constants.O_DIRECTORY : 0);
    fd = openSync(wanted, flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR")
      throw new Error(`${wanted} is a symlink or not a folder: commands run only in real folders`);
    throw err;
  }
  const real = readlinkSync(`/proc/self/fd/${fd}`);
  if (real !== wanted) {
    closeSync(fd);
    throw new Error(
      `${wanted} is reached through a symlink (to ${real}): commands run only in real folders`,
    );
  }
  return fd;
}

/** The program and arguments that run `file args` for the model: inside bubblewrap where it can
 *  start, with every folder to bind opened and handed over as descriptors 3, 4, … (`fds`). */
function sandboxed(
  sandbox: Sandbox,
  file: string,
  args: string[],
  cwd: string,
  writable: string[],
  readable: string[] = [],
): { program: string; argv: string[]; fds: number[]; repos: string[]; close: () => void } {
  const repos = [cwd, ...writable].flatMap(gitDirIn);
  if (sandboxStatus(sandbox).kind !== "bubblewrap")
    return { program: file, argv: args, fds: [], repos, close() {} };
  const folders = [cwd, ...writable].map((dir) => path.resolve(dir));
  const binds = folders.map((dir) => ({ path: dir, folder: true, readOnly: false }));
  binds.push(...folders.flatMap(gitGuards));
  for (const shown of readable)
    binds.push({ path: shown, folder: statSync(shown).isDirectory(), readOnly: true });
  const mounts: Mount[] = [];
  try {
    for (const bind of binds) mounts.push({ ...bind, fd: openPinned(bind.path, bind.folder) });
  } catch (err) {
    mounts.forEach(({ fd }) => closeSync(fd));
    throw err;
  }
  // The child receives them as its descriptors 3, 4, …
  const fds = mounts.map(({ fd }) => fd);
  const inChild = mounts.map((mount, i) => ({ ...mount, fd: 3 + i }));
  const argv = [...bwrapArgs(sandbox, folders[0], folders.slice(1), inChild), file, ...args];
  let program: string;
  try {
    program = bwrapProgram(folders);
  } catch (err) {
    mounts.forEach(({ fd }) => closeSync(fd));
    throw err;
  }
  return { program, argv, fds, repos, close: () => fds.forEach((fd) => closeSync(fd)) };
}

/** Runs a program for the harness itself in the same sandbox as the model's commands, and waits:
 *  s12's own git reads files the model can write, so it gets no more power than a command the
 *  model runs (no secrets, no network, writes only in `cwd` and `writable`) and no less guard:
 *  a repository's config and hooks are read-only to it too. `env` is added to the command's
 *  environment (the harness's own settings, never values read from the workspace). */
export function runSandboxedSync(
  file: string,
  args: string[],
  opts: {
    sandbox: Sandbox;
    cwd: string;
    writable?: string[];
    timeoutMs?: number;
    env?: Record<string, string>;
  },
): { status: number | null; stdout: string; stderr: string } {
  const run = sandboxed(opts.sandbox, file, args, opts.cwd, opts.writable ?? []);
  try {
    const result = spawnSync(run.program, run.argv, {
      cwd: opts.cwd,
      env: { ...commandEnv(), ...opts.env },
      encoding: "utf8",
      timeout: opts.timeoutMs ?? 30_000,
      stdio: ["ignore", "pipe", "pipe", ...run.fds],
    });
    const error = result.error ? String(result.error) : "";
    return {
      status: result.status,
      stdout: result.stdout ?? "",
      stderr: (result.stderr ?? "") + error,
    };
  } finally {
    run.close();
  }
}

/** Starts a command to run on its own (s11's background jobs); `runCommand` waits for one. */
export function startCommand(command: string, opts: CommandOptions): RunningCommand {
  return start(command, opts, true);
}

function start(command: string, opts: CommandOptions, background: boolean): RunningCommand {
  const { timeoutMs = 30_000, maxOutput = 50_000, shell = "bash" } = opts;
  let run: ReturnType<typeof sandboxed>;
  try {
    run = sandboxed(
      opts.sandbox,
      shell,
      ["-c", command],
      opts.cwd,
      opts.writable ?? [],
      opts.readable,
    );
  } catch (err) {
    return refused(`Error: ${(err as Error).message}`);
  }
  // What git runs in the repositories this command may write, to compare when it ends.
  const repos = run.repos;
  const before = gitRunSurface(repos);
  // detached: the command leads its own process group, so one kill reaches all its children.
  const child = spawn(run.program, run.argv, {
    cwd: opts.cwd,
    detached: true,
    env: { ...commandEnv(), ...fallbackIdentity(repos) },
    stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe", ...run.fds],
  });
  run.close(); // the child has its own copies now
  const text = { output: "", stdout: "", stderr: "" };
  let truncated = false;
  let timedOut = false;
  // The end of what it printed, past the cap too: the live line shows its last line.
  let tail = "";
  // A decoder per stream: a multi-byte character split across two chunks stays one character.
  const collect = (key: "stdout" | "stderr") => {
    const decoder = new StringDecoder("utf8");
    return (chunk: Buffer | string) => {
      const piece = typeof chunk === "string" ? chunk : decoder.write(chunk);
      tail = (tail + piece).slice(-TAIL);
      if (opts.keep === "tail") {
        for (const k of ["output", key] as const) {
          const joined = text[k] + piece;
          if (joined.length > maxOutput) truncated = true;
          text[k] = joined.slice(-maxOutput);
        }
        return;
      }
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
  const lastLine = () =>
    tail
      .split(/[\r\n]/)
      .findLast((line) => line.trim())
      ?.trimEnd() ?? "";
  if (child.pid)
    live.set(child.pid, { kill, command: { since: Date.now(), background, lastLine } });
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
      const warnings = lookAgain(repos, before, [opts.cwd, ...(opts.writable ?? [])]);
      for (const warning of warnings) text.output += `\n${warning}`;
      resolve({ ...text, exitCode, timedOut, truncated, warnings });
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

/** What the command changed in what git runs, as warnings. A look that fails (a `.git` the
 *  command made too strange to read) is a warning too: the harness does not know, so it says so. */
function lookAgain(repos: string[], before: Map<string, string>, writable: string[]): string[] {
  try {
    // A repository the command made (`git init && git config core.fsmonitor …`) is new in
    // everything that decides what git runs: each is named with what it holds.
    const made = writable.flatMap(gitDirIn).filter((git) => !repos.includes(git));
    const changed = surfaceChanges(before, gitRunSurface([...repos, ...made]));
    return changed.length ? [gitWarning(changed)] : [];
  } catch (err) {
    return [
      issueWarning(
        `[harness] could not look into ${repos.join(", ")} after this command ` +
          `(${(err as Error).message}): it may have changed what git runs. Look before you run ` +
          "git there (git status, git config --list --show-origin, ls .git).",
      ),
    ];
  }
}

const gitWarning = (changed: string[]) => gitChangeWarning("this command", changed);

/** A command that never started: the reason is its output. */
function refused(output: string): RunningCommand {
  const result = {
    output,
    stdout: "",
    stderr: output,
    exitCode: null,
    timedOut: false,
    truncated: false,
    refused: true as const,
  };
  return { pid: undefined, output: () => output, done: Promise.resolve(result), kill() {} };
}

export function runCommand(command: string, opts: CommandOptions): Promise<CommandResult> {
  return start(command, opts, false).done;
}
// #endregion process-groups
