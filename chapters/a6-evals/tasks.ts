// The tasks of an eval, in a folder format close to Harbor's / Terminal-Bench's:
//
//   tasks/<id>/
//     task.toml        what it exercises, timeouts, the permission rules it runs under
//     instruction.md   the prompt the agent gets, and all it gets
//     environment/     files laid over the shared repository (workspace/), and setup.sh, run once
//     solution/solve.sh  the reference solution: what the oracle runs
//     tests/test.sh    the verifier, with the hidden tests it runs
//     scripted.ts      how the offline model plays it (not part of Harbor's format: ours)
//
// Who sees what is the point of the format. The agent sees the instruction and the workspace;
// solution/ and tests/ stay in the repository, which neither its file tools (the jail) nor its
// commands (the sandbox hides the repository) can reach. The verifier runs only after the agent
// has finished, on a copy of the workspace with its own tests laid over whatever the agent left.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { runCommand, sandboxFor } from "../_shared/shell.ts";
import type { ScriptedTurn } from "../_shared/types.ts";

export const EVAL_DIR = import.meta.dirname;
export const TASKS_DIR = path.join(EVAL_DIR, "tasks");
/** The tiny TypeScript repository every task starts from. */
export const REPO_DIR = path.join(EVAL_DIR, "workspace");

/** A permission rule a harness with a gate (s07, a2) runs the task under. */
const RuleSchema = z.strictObject({ tool: z.string().min(1), pattern: z.string().optional() });

const TaskToml = z.object({
  version: z.string(),
  metadata: z.object({
    mechanism: z.string().min(1),
    /** The chapter whose mechanism the task exercises. */
    chapter: z.string().regex(/^[sa]\d+$/),
    difficulty: z.enum(["easy", "medium", "hard"]),
  }),
  agent: z.object({
    timeout_sec: z.number().positive(),
    deny: z.array(RuleSchema).default([]),
  }),
  verifier: z.object({ timeout_sec: z.number().positive() }),
});

/** How the scripted model plays a task, given the names of the tools the harness offers: a
 *  harness without `todo` gets a model that does not call it. */
export type TaskScript = (tools: ReadonlySet<string>) => Record<string, ScriptedTurn[]>;

export interface Task {
  id: string;
  dir: string;
  instruction: string;
  mechanism: string;
  chapter: string;
  difficulty: string;
  agentTimeoutMs: number;
  verifierTimeoutMs: number;
  deny: z.infer<typeof RuleSchema>[];
}

/** Reads one task folder; a broken one is an error that names the folder and what is wrong. */
export function loadTask(dir: string): Task {
  const id = path.basename(dir);
  const need = (file: string) => {
    if (!existsSync(path.join(dir, file))) throw new Error(`task ${id}: ${file} is missing`);
  };
  for (const file of ["task.toml", "instruction.md", "solution/solve.sh", "tests/test.sh"])
    need(file);
  let meta: z.infer<typeof TaskToml>;
  try {
    meta = TaskToml.parse(parseToml(readFileSync(path.join(dir, "task.toml"), "utf8")));
  } catch (err) {
    throw new Error(`task ${id}: task.toml is not valid: ${(err as Error).message}`);
  }
  return {
    id,
    dir,
    instruction: readFileSync(path.join(dir, "instruction.md"), "utf8").trim(),
    mechanism: meta.metadata.mechanism,
    chapter: meta.metadata.chapter,
    difficulty: meta.metadata.difficulty,
    agentTimeoutMs: meta.agent.timeout_sec * 1000,
    verifierTimeoutMs: meta.verifier.timeout_sec * 1000,
    deny: meta.agent.deny,
  };
}

/** Every task under `root`, sorted by id (the order of the results file). */
export function loadTasks(root = TASKS_DIR): Task[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => loadTask(path.join(root, d.name)))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** `all`, or a comma-separated list of ids; an unknown id is an error that lists the known ones. */
export function selectTasks(wanted: string, tasks = loadTasks()): Task[] {
  if (wanted === "all") return tasks;
  return wanted.split(",").map((id) => {
    const task = tasks.find((t) => t.id === id.trim());
    if (!task)
      throw new Error(`unknown task "${id}"; the tasks are: ${tasks.map((t) => t.id).join(", ")}`);
    return task;
  });
}

export async function taskScript(task: Task): Promise<TaskScript> {
  const file = path.join(task.dir, "scripted.ts");
  if (!existsSync(file)) throw new Error(`task ${task.id}: scripted.ts is missing`);
  return ((await import(file)) as { default: TaskScript }).default;
}

// #region workspace
/** Copies `from` into `to`: folders and regular files only. A symlink is skipped, never
 *  followed: in a workspace the agent made, a link could point at any file of yours. */
export function copyPlain(from: string, to: string, skip: (name: string) => boolean = () => false) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    const stat = lstatSync(source);
    if (stat.isDirectory()) copyPlain(source, target);
    else if (stat.isFile()) copyFileSync(source, target);
  }
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, stdio: "pipe", encoding: "utf8" });

/** A fresh workspace for one run: the repository with the task's environment laid over it,
 *  committed on `main` (a run can diff, undo and merge), then the task's setup.sh run in the
 *  sandbox. Returns its path; the caller removes it and its `.harness` folder. */
export async function prepareWorkspace(task: Task, parent = tmpdir()): Promise<string> {
  const workspace = mkdtempSync(path.join(parent, `lah-eval-${task.id}-`));
  copyPlain(REPO_DIR, workspace);
  const environment = path.join(task.dir, "environment");
  if (existsSync(environment)) copyPlain(environment, workspace, (name) => name === "setup.sh");
  git(workspace, "init", "-q", "-b", "main");
  git(workspace, "config", "user.name", "Eval");
  git(workspace, "config", "user.email", "eval@example.invalid");
  git(workspace, "config", "commit.gpgsign", "false");
  git(workspace, "add", "-A");
  // A fixed date: the same commit id every time, so nothing the agent sees differs between runs.
  execFileSync("git", ["commit", "-qm", "tiny-shop 1.0.0"], {
    cwd: workspace,
    stdio: "pipe",
    env: {
      ...process.env,
      GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
    },
  });
  const setup = path.join(environment, "setup.sh");
  if (existsSync(setup)) {
    const result = await runCommand(readFileSync(setup, "utf8"), {
      sandbox: sandboxFor(workspace),
      cwd: workspace,
      timeoutMs: task.agentTimeoutMs,
    });
    if (result.exitCode !== 0)
      throw new Error(`task ${task.id}: environment/setup.sh failed: ${result.output.trim()}`);
  }
  return workspace;
}

/** Removes a workspace and the state folder its harness kept beside it. */
export function removeWorkspace(workspace: string): void {
  for (const dir of [workspace, `${workspace}.harness`])
    rmSync(dir, { recursive: true, force: true });
}
// #endregion workspace

// #region verifier
export interface Verdict {
  passed: boolean;
  /** test.sh's exit code (null: it was killed by its timeout). */
  exitCode: number | null;
  /** The end of what it printed, to read why a run failed (not part of the results file). */
  output: string;
}

/** TypeScript to JavaScript, file by file, without running anything: node then runs the tests on
 *  the .js files. Type errors are not the verifier's business; behaviour is. */
function transpileAll(ts: typeof import("typescript"), dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === ".git" || entry.name === "node_modules") continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) transpileAll(ts, file);
    else if (entry.isFile() && /\.ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: false,
        },
        fileName: entry.name,
      });
      writeFileSync(file.replace(/\.ts$/, ".js"), outputText);
    }
  }
}

/** Judges a finished run by the files it left, never by what the agent said about them.
 *  1. Copy the workspace (folders and regular files; links are not followed) to a folder of
 *     the verifier's own, made now, after the agent has stopped.
 *  2. Lay the task's tests/ over it: a tests/ folder the agent wrote is replaced, not trusted.
 *  3. Turn the TypeScript into JavaScript (nothing runs yet).
 *  4. Run tests/test.sh there, in the sandbox: it runs code the agent wrote, so it gets no more
 *     power than the agent's own commands. Exit code 0 is a pass; anything else, a fail. */
export async function verify(task: Task, workspace: string): Promise<Verdict> {
  const checkout = mkdtempSync(path.join(tmpdir(), `lah-verify-${task.id}-`));
  try {
    copyPlain(workspace, checkout);
    rmSync(path.join(checkout, "tests"), { recursive: true, force: true });
    copyPlain(path.join(task.dir, "tests"), path.join(checkout, "tests"));
    // The compiler takes seconds to load: only a verifier that runs loads it.
    transpileAll((await import("typescript")).default, checkout);
    const result = await runCommand("bash tests/test.sh", {
      sandbox: sandboxFor(checkout),
      cwd: checkout,
      timeoutMs: task.verifierTimeoutMs,
    });
    return {
      passed: result.exitCode === 0 && !result.timedOut,
      exitCode: result.timedOut ? null : result.exitCode,
      output: result.output.slice(-2000),
    };
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
}
// #endregion verifier
