// Test helpers: a temporary workspace and an env driven by a scripted model. What a test leaves
// behind (folders, child processes) is cleaned up after each test by tests/setup.ts.
import { execFileSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnv, type Env } from "../../chapters/_runner/runtime.ts";
import type { ScriptedTurn } from "../../chapters/_shared/types.ts";
import { removeTree } from "../../chapters/_shared/tree.ts";
import {
  sandboxFor,
  sandboxStatus,
  type Sandbox,
  type SandboxStatus,
} from "../../chapters/_shared/shell.ts";
import type { ToolContext } from "../../chapters/s02-tool-use/agent.ts";
import { checkKit, type CheckKit } from "../../chapters/_exercises/kit.ts";

const made: string[] = [];

/** A fresh folder under the OS temp dir (or under `base`), removed after the test. */
export function tempDir(prefix = "lah-", base = tmpdir()): string {
  const dir = mkdtempSync(path.join(base, prefix));
  made.push(dir);
  return dir;
}

/** Removes the test's folders; a workspace's harness state lives beside it (stateDirFor). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0))
    for (const d of [dir, `${dir}.harness`]) {
      try {
        rmSync(d, { recursive: true, force: true });
      } catch {
        removeTree(d); // a tree too deep for one path (ENAMETOOLONG), emptied a folder at a time
      }
    }
}

const children = new Set<ChildProcess>();

/** A child process to SIGKILL after the test if it is still running (a test that fails half-way
 *  must not leave, say, a writer looping until killed). */
export function killAfterTest(child: ChildProcess): ChildProcess {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

export function killTestChildren(): void {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
}

/** An env whose model plays `script` (turns per agent, or the lead's turns as an array). */
export function scriptedEnv(
  script: ScriptedTurn[] | Record<string, ScriptedTurn[]>,
  opts: { workspace?: string; answers?: string[]; sandbox?: Sandbox } = {},
): Env & { requests: NonNullable<Env["scripted"]>["requests"] } {
  const env = createEnv({
    workspace: opts.workspace ?? tempDir("lah-ws-"),
    sandbox: opts.sandbox,
    scenario: { script: Array.isArray(script) ? { lead: script } : script, answers: opts.answers },
  });
  return Object.assign(env, { requests: env.scripted!.requests });
}

/** Names of the tools in the first request an agent sent. */
export function toolNames(
  env: { requests: { agent: string; body: { tools?: unknown[] } }[] },
  agent = "lead",
): string[] {
  const first = env.requests.find((r) => r.agent === agent);
  return (first?.body.tools ?? []).map((t) => (t as { name: string }).name);
}

export type { Env };

// Seeded randomness (mulberry32) lives in random.ts, which worker processes import without vitest.
export { mulberry32, seedFrom, seedLine, shuffled } from "./random.ts";

// waitFor lives in wait.ts, which code outside the test workers (the sequencer) imports too.
export { waitFor } from "./wait.ts";

/** Host processes named `marker` (started with `exec -a <marker>`; markers are unique per run). */
export function processesNamed(marker: string): number {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.startsWith(`${marker} `)).length;
}

/** The kit an exercise's check runs with, for a chapter test that runs the same behaviour
 *  against the chapter's own code (chapters/_exercises/): its folders are this test's. */
export const testKit = (): CheckKit => checkKit(() => tempDir("lah-ws-"));

/** A tool context for `root`, in the sandbox a run gets when no flag changes it (on, no network). */
export const toolAt = (root: string): ToolContext => ({ root, sandbox: sandboxFor(root) });

/** What the sandbox is on this machine: bubblewrap, or none and why. */
export const machineSandbox = (): SandboxStatus => sandboxStatus(sandboxFor(tmpdir()));

/** A fresh folder to run a command in, with its sandbox: `runCommand(c, { ...scratch() })`. */
export function scratch(): { cwd: string; sandbox: Sandbox } {
  const cwd = tempDir();
  return { cwd, sandbox: sandboxFor(cwd) };
}

/** The same as arguments: `bash(command, ...scratchArgs())`. */
export function scratchArgs(): [string, Sandbox] {
  const { cwd, sandbox } = scratch();
  return [cwd, sandbox];
}
