// The third attack's harness for s07's gate (tests/reliability/attack3-gate-brace.test.ts and
// attack3-gate-input.test.ts, once open doors): run a command in bash to show it really
// runs the denied `touch`, then put it to the gate in auto mode under a deny rule for `touch*`.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fc } from "@fast-check/vitest";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import * as s07 from "../../chapters/s07-permission-system/agent.ts";
import { budget } from "./budgets.ts";
import { scriptedEnv, tempDir } from "./helpers.ts";

export const SEED = 33;
const DENY_TOUCH: s07.Rule = { tool: "bash", pattern: "touch*" };
export const MARK = "pwned.txt";

let ids = 0;
const bash = (command: string) =>
  ({ type: "tool_use", id: `a3-${++ids}`, name: "bash", input: { command } }) as ToolUseBlock;

/** Does bash, given `command`, create the mark? (Outside any sandbox: it only touches a file in a
 *  temporary folder.) */
export async function runsThePayload(command: string): Promise<boolean> {
  const cwd = tempDir("lah-attack3-");
  try {
    await runCommand(command, { sandbox: sandboxFor(cwd), cwd, timeoutMs: budget({ cli: 1 }) });
    return existsSync(path.join(cwd, MARK));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export async function gate(command: string) {
  const env = scriptedEnv([]);
  env.ask = async () => "yes";
  return s07.checkPermission(env, { mode: "auto", allow: [], deny: [DENY_TOUCH] }, bash(command));
}

/** `touch` spelled with quotes inside one alternative of a brace expansion: the parser sees a
 *  word `{touch,}` (no `{…,…}` in any one literal piece, so not read as an expansion), bash
 *  expands it to `touch` (the empty alternative is dropped). */
export const braceWord = fc
  .tuple(
    fc.constantFrom(`"touch"`, `'touch'`, `touch""`, `to"uch"`, `t'ouc'h`, `"to"uch`),
    fc.constantFrom("{W,}", "{,W}", "{W,,}"),
  )
  .map(([w, form]) => form.replace("W", w));

type TestEnv = ReturnType<typeof scriptedEnv>;

/** s07's rules file written into a test environment's state folder. */
export function startWith(env: TestEnv, policy: object): TestEnv {
  mkdirSync(env.stateDir, { recursive: true });
  writeFileSync(s07.rulesFile(env), JSON.stringify(policy));
  return env;
}

/** Runs each command as one bash call of the scripted model through s07's agent. Every question
 *  is answered "no" and recorded. */
export async function runAll(policy: object, commands: string[]) {
  const env = scriptedEnv([...commands.map((command) => use("bash", { command })), say("ok")], {
    answers: commands.map(() => "no"),
  });
  const asked: string[] = [];
  const ask = env.ask.bind(env);
  env.ask = async (question, choices) => {
    asked.push(question);
    return ask(question, choices);
  };
  await s07.createAgent(startWith(env, policy)).send("go");
  return { env, asked };
}
