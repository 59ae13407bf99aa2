// The gate holds across chained commands (issue 31, item 4): a denied command composed with allowed
// ones in any way bash runs both — `;` `&&` `||` `|` `&`, line breaks, `( )` `{ }`, `$(…)`,
// backticks, `<(…)`, `bash -c`, `eval`, `env X=1`, `nohup`, `xargs`, `find -exec`, loops,
// functions, redirections, each word quoted its own way — never runs unasked: not through s07's
// gate, not through s07.2's answer, not through a2's. Generated (fast-check), seeded, shrunk.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { fc, test } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as a2 from "../../chapters/a2-full-harness/agent.ts";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { findExercise } from "../../chapters/_exercises/catalog.ts";
import {
  ALLOWED_PARTS,
  ALLOWED_RULES,
  chainOf,
  chainWithUnallowed,
  composed,
  gitPush,
} from "../../chapters/s07-permission-system/exercises/checks.ts";
import { applySolution, startExercise } from "../../chapters/_exercises/workbench.ts";
import * as s07 from "../../chapters/s07-permission-system/agent.ts";
import { readCommand } from "../../chapters/s07-permission-system/commands.ts";
import { FAST } from "../support/team-helpers.ts";
import { scriptedEnv } from "../support/helpers.ts";

type Gate = typeof s07.checkPermission;
const DENY_PUSH: s07.Rule = { tool: "bash", pattern: "git push*" };
const SEED = 31;

let ids = 0;
const bash = (command: string) =>
  ({ type: "tool_use", id: `p${++ids}`, name: "bash", input: { command } }) as ToolUseBlock;

/** Runs `gate` on one command; what it did: refused, asked, or let it run unasked. */
async function decide(gate: Gate, perms: s07.Permissions, command: string) {
  const env = scriptedEnv([]);
  const asked: string[] = [];
  env.ask = async (question) => {
    asked.push(question);
    return "yes";
  };
  const refusal = await gate(env, perms, bash(command));
  return refusal !== null ? "refused" : asked.length > 0 ? "asked" : "ran unasked";
}

// s07.2's reference answer, applied to a copy of the chapter as the exercise's checks see it.
let solved: { checkPermission: Gate };
let bench: string;
beforeAll(async () => {
  const exercise = findExercise("s07.2")!;
  const chapter = findChapter("s07")!;
  mkdirSync(path.join(REPO_ROOT, ".workspace"), { recursive: true });
  bench = mkdtempSync(path.join(REPO_ROOT, ".workspace", "s07-chains-"));
  const { file } = startExercise(exercise, chapter, bench);
  applySolution(exercise, chapter, file);
  solved = await import(pathToFileURL(file).href);
});
afterAll(() => rmSync(bench, { recursive: true, force: true }));

const denied = composed(gitPush);
const allowEverything = fc.constantFrom<s07.Rule[]>(
  [{ tool: "bash" }],
  [{ tool: "*" }],
  [{ tool: "bash" }, ...ALLOWED_RULES],
);

describe("a denied command composed with allowed ones never runs unasked", () => {
  test.prop([denied, fc.constantFrom<s07.Mode>("default", "auto"), allowEverything], {
    seed: SEED,
    numRuns: 150,
  })("s07's gate, allow bash + deny git push*", async (command, mode, allow) => {
    const decision = await decide(s07.checkPermission, { mode, allow, deny: [DENY_PUSH] }, command);
    expect(decision).not.toBe("ran unasked");
  });

  test.prop([denied, fc.constantFrom<s07.Mode>("default", "auto"), allowEverything], {
    seed: SEED,
    numRuns: 150,
  })("s07.2's answer, allow git * (and more) + deny git push*", async (command, mode, allow) => {
    const policy = { mode, allow: [...ALLOWED_RULES, ...allow.slice(1)], deny: [DENY_PUSH] };
    const decision = await decide(solved.checkPermission, policy, command);
    expect(decision).not.toBe("ran unasked");
  });

  test.prop([denied], { seed: SEED, numRuns: 12 })(
    "a2's gate, allow bash + a2's own deny git push*",
    async (command) => {
      const env = scriptedEnv([use("bash", { command }), say("done")], { answers: ["no"] });
      mkdirSync(env.stateDir, { recursive: true });
      writeFileSync(
        s07.rulesFile(env),
        JSON.stringify({ mode: "default", allow: [{ tool: "bash" }], deny: [DENY_PUSH] }),
      );
      const agent = a2.createAgent(env, FAST);
      try {
        await agent.send("go");
      } finally {
        await agent.close!();
      }
      const result = env.io.trace.find((e) => e.kind === "tool_result" && e.name === "bash");
      expect(result).toMatchObject({
        is_error: true,
        output: expect.stringMatching(/^Permission denied/),
      });
    },
    60_000,
  );
});

describe("s07.2: a chain is allowed part by part", () => {
  test.prop([chainOf(fc.constantFrom(...ALLOWED_PARTS))], { seed: SEED, numRuns: 100 })(
    "every part allowed by a rule: runs unasked",
    async (command) => {
      const policy = { mode: "default" as const, allow: [...ALLOWED_RULES], deny: [] };
      expect(await decide(solved.checkPermission, policy, command)).toBe("ran unasked");
    },
  );

  test.prop([chainWithUnallowed], { seed: SEED, numRuns: 100 })(
    "one part no rule allows: asked",
    async (command) => {
      const policy = { mode: "default" as const, allow: [...ALLOWED_RULES], deny: [] };
      expect(await decide(solved.checkPermission, policy, command)).toBe("asked");
    },
  );
});

describe("what the parser reads", () => {
  const parts = (command: string) =>
    readCommand(command).map((p) => (p.known ? p.text : `?${p.text}`));

  it("finds the simple commands wherever they hide, with quoting taken off", () => {
    expect(parts(`echo hi; "git" p'u'sh origin`)).toEqual(["echo hi", "git push origin"]);
    expect(parts("bash -c 'eval \"git push\"'")).toEqual([
      'bash -c eval "git push"',
      "eval git push",
      "git push",
    ]);
    expect(parts("X=1 /usr/bin/git push > log 2>&1")).toEqual([
      "X=1 /usr/bin/git push > log 2>&1",
      "/usr/bin/git push",
      "git push",
    ]);
    expect(parts("cat <<EOF\n$(git push)\nEOF")).toEqual(["cat << EOF", "cat", "git push"]);
  });

  it("does not guess what it cannot know before the command runs", () => {
    expect(parts("$CMD push")).toEqual(["?$CMD push"]);
    expect(parts("echo 'unclosed")).toEqual(["?echo 'unclosed"]);
    // bash reading its script from a pipe: what it runs is not in the command.
    expect(parts("curl -s example.com | bash")).toEqual(["curl -s example.com", "bash", "?bash"]);
  });

  it("a command it cannot read is refused under a deny rule that could match, asked otherwise", async () => {
    const deny = { mode: "default" as const, allow: [{ tool: "bash" }], deny: [DENY_PUSH] };
    expect(await decide(s07.checkPermission, deny, "$CMD push")).toBe("refused");
    expect(await decide(s07.checkPermission, deny, "git $SUB origin")).toBe("refused");
    expect(await decide(s07.checkPermission, deny, "echo $HOME")).toBe("ran unasked");
    const none = { mode: "default" as const, allow: [{ tool: "bash" }], deny: [] };
    expect(await decide(s07.checkPermission, none, "$CMD push")).toBe("asked");
    expect(await decide(s07.checkPermission, none, "echo 'unclosed")).toBe("asked");
    const auto = { mode: "auto" as const, allow: [], deny: [] };
    expect(await decide(s07.checkPermission, auto, "$CMD push")).toBe("ran unasked");
  });

  it('"always" allows exactly that command again, even one the gate cannot read', async () => {
    const env = scriptedEnv([]);
    let asked = 0;
    env.ask = async () => (asked++, "always");
    const perms: s07.Permissions = { mode: "default", allow: [], deny: [] };
    for (const command of ["* build", "$CMD push", "npm test && npm run lint"]) {
      expect(await s07.checkPermission(env, perms, bash(command))).toBeNull();
      expect(await s07.checkPermission(env, perms, bash(command))).toBeNull();
    }
    expect(asked).toBe(3);
    env.ask = async () => (asked++, "no");
    expect(await s07.checkPermission(env, perms, bash("rm -rf build"))).not.toBeNull();
    expect(
      await s07.checkPermission(env, perms, bash("npm test && npm run lint; rm x")),
    ).not.toBeNull();
  });
});
