// a7, the goal loop: a goal met stops; a goal not met sends the gap back and goes on; a budget
// ends it with the reason; the check runs in the sandbox. The loop's rule is also stated as a
// property over generated sequences of check outcomes and budgets (pursueGoal, the real one,
// with its world replaced by counters).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import * as a7 from "../../chapters/a7-goal-loop/agent.ts";
import {
  checkCommand,
  checkJudge,
  createAgent,
  GAP_LIMIT,
  type Goal,
  GoalError,
  MAX_CONDITION,
  parseGoal,
  pursueGoal,
  type Verdict,
} from "../../chapters/a7-goal-loop/agent.ts";
import scenario, { PROMPTS } from "../../chapters/a7-goal-loop/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { fail, say, use } from "../../chapters/_shared/scripted.ts";
import { sandboxFor } from "../../chapters/_shared/shell.ts";
import type { ScriptedTurn } from "../../chapters/_shared/types.ts";
import { traceStepSchema, type TraceEvent } from "../../chapters/_trace/contract.ts";
import { budget } from "../support/budgets.ts";
import { runCli } from "../support/run-cli.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { stateTimelineInEnglish } from "../support/state-text.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";
import { scriptedEnv, tempDir, toolNames, machineSandbox } from "../support/helpers.ts";

const SEED = 31;

type Env = ReturnType<typeof scriptedEnv>;
const events = (env: Env) =>
  env.io.trace.flatMap((s): Extract<TraceEvent, { kind: "event" }>[] =>
    s.kind === "event" ? [s] : [],
  );
const checks = (env: Env) =>
  events(env).flatMap((e) => (e.type === "goal_check" ? [e.data.outcome] : []));
const ends = (env: Env) => events(env).flatMap((e) => (e.type === "goal_end" ? [e.data] : []));
/** The last user message of the n-th request the lead sent (0-based). */
const lastUserText = (env: Env, n: number) => {
  const request = env.requests.filter((r) => r.agent === "lead")[n];
  const last = request.body.messages.at(-1)!;
  return typeof last.content === "string"
    ? last.content
    : last.content.map((b) => (b.type === "text" ? b.text : "")).join("");
};

/** An agent with a goal set through its own /goal command, as a person types it. */
async function withGoal(script: ScriptedTurn[] | Record<string, ScriptedTurn[]>, goal: string) {
  const env = scriptedEnv(script);
  const agent = createAgent(env);
  const answer = await agent.commands!["/goal"].run(goal);
  expect(answer).not.toMatch(/^✗/);
  return { env, agent };
}

describe("a7 tools", () => {
  it("offers the model a5's five tools, and the judge only its verdict", async () => {
    expect(a7.TOOLS.map((t) => t.name)).toEqual(CURRICULUM_TOOLS.a7.lead);
    expect(a7.TOOLS).toHaveLength(5);
    const { env, agent } = await withGoal(
      { lead: [say("done")], judge: [use("verdict", { met: true, gap: "" })] },
      "judge: anything",
    );
    await agent.send("go");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.a7.lead);
    expect(toolNames(env, "judge")).toEqual(["verdict"]);
  });
});

describe("a7 the goal loop", () => {
  it(
    "a goal met stops: one round, one check, no prompt sent after it",
    async () => {
      const { env, agent } = await withGoal(
        [use("write", { path: "done.txt", content: "ok\n" }), say("Done."), say("(never sent)")],
        "test -f done.txt",
      );
      await agent.send("Write done.txt.");
      expect(checks(env)).toEqual(["met"]);
      expect(ends(env)).toEqual([expect.objectContaining({ reason: "met", rounds: 1 })]);
      expect(env.requests.filter((r) => r.agent === "lead")).toHaveLength(2);
      // Met, the goal is over: the next prompt is an ordinary one.
      expect(agent.goal()).toBeUndefined();
    },
    budget({ chapterRun: 1, command: 1 }),
  );

  it(
    "a goal not met sends the check's output back as the next prompt, and goes on",
    async () => {
      const { env, agent } = await withGoal(
        [
          say("Done: the file is there."), // it is not
          use("write", { path: "done.txt", content: "ok\n" }),
          say("Now it is."),
        ],
        "cmd: test -f done.txt || { echo 'done.txt is missing'; exit 1; }",
      );
      await agent.send("Write done.txt.");
      expect(checks(env)).toEqual(["not_met", "met"]);
      expect(ends(env)).toEqual([expect.objectContaining({ reason: "met", rounds: 2 })]);
      const gap = lastUserText(env, 1);
      expect(gap).toMatch(/does not hold yet/);
      expect(gap).toMatch(/done\.txt is missing/);
      expect(gap).toMatch(/exited 1/);
    },
    budget({ chapterRun: 1, command: 2 }),
  );

  it(
    "the model's word never counts: it says the goal is met every round, and the round budget ends it",
    async () => {
      const { env, agent } = await withGoal(
        Array.from({ length: 5 }, () => say("The goal is met: all tests pass.")),
        "--rounds 3 test -f never.txt",
      );
      await agent.send("Make the tests pass.");
      expect(checks(env)).toEqual(["not_met", "not_met", "not_met"]);
      const [end] = ends(env);
      expect(end).toMatchObject({ reason: "rounds", rounds: 3 });
      expect(agent.lastEnd()!.sentence).toMatch(/not met: the round budget \(3\) is spent/);
      expect(env.requests.filter((r) => r.agent === "lead")).toHaveLength(3);
    },
    budget({ chapterRun: 1, command: 3 }),
  );

  it(
    "the cost budget ends it, with its reason: tokens counted from every call's usage",
    async () => {
      const { env, agent } = await withGoal(
        Array.from({ length: 5 }, () => say("done")),
        "--tokens 1 test -f never.txt",
      );
      await agent.send("go");
      expect(ends(env)).toEqual([expect.objectContaining({ reason: "cost", rounds: 1 })]);
      expect(agent.lastEnd()!.sentence).toMatch(/token budget \(1\) is spent/);
    },
    budget({ chapterRun: 1, command: 1 }),
  );

  it(
    "the scenario: met after one round of feedback, a budget running out, a judge naming the gap",
    async () => {
      const ws = tempDir("lah-a7-");
      const { env } = await playScenario(a7, scenario, ws);
      expect(ends(env as Env).map((e) => [e.reason, e.rounds])).toEqual([
        ["met", 2],
        ["rounds", 2],
        ["met", 2],
      ]);
      expect(checks(env as Env)).toEqual([
        "not_met",
        "met",
        "not_met",
        "not_met",
        "not_met",
        "met",
      ]);
      // For real: the files changed, and the test the check ran says what it says.
      expect(readFileSync(path.join(ws, "slug.js"), "utf8")).toMatch(/trim\(\)/);
      expect(readFileSync(path.join(ws, "test.js"), "utf8")).toMatch(/gruesse-aus-koeln/);
      expect(readFileSync(path.join(ws, "README.md"), "utf8")).toMatch(/node test\.js/);
      const gaps = env.io.trace.flatMap((s) =>
        s.kind === "user" && /does not hold yet/.test(s.text) ? [s.text] : [],
      );
      expect(gaps[0]).toContain(
        '✗ slugify("  Goal   loops  ") is "--goal---loops--", expected "goal-loops"',
      );
      expect(gaps[1]).toMatch(/is "gruße-aus-koln", expected "gruesse-aus-koeln"/);
      expect(gaps.at(-1)).toMatch(/never says how to run the tests/);
      expect(scenario.prompts).toContain(PROMPTS.secondGoal);
    },
    budget({ chapterRun: 2, command: 6 }),
  );
});

describe("a7 the rule, as a property", () => {
  const outcome = fc.constantFrom<Verdict["outcome"]>("met", "not_met", "not_met", "failed");
  test.prop(
    [
      fc.array(outcome, { minLength: 0, maxLength: 12 }),
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 12, maxLength: 12 }),
      fc.integer({ min: 1, max: 3000 }),
      fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
    ],
    { seed: SEED, numRuns: 200 },
  )(
    "it stops exactly when the check holds, cannot decide, or a budget is spent; never past the round budget; always with a reason",
    async (outcomes, rounds, costs, tokens, interruptAt) => {
      const goal: Goal = {
        condition: "x",
        check: { kind: "command", command: "x" },
        budget: { rounds, tokens, timeoutMs: 1000 },
      };
      let worked = 0;
      let checked = 0;
      let spent = 0;
      const prompts: string[] = [];
      const end = await pursueGoal(goal, "first", {
        async work(prompt) {
          worked++;
          prompts.push(prompt);
          spent += costs[worked - 1];
          if (worked === interruptAt) {
            const err = new Error("interrupted");
            err.name = "InterruptedError";
            throw err;
          }
        },
        async check() {
          return { outcome: outcomes[checked++] ?? "not_met", detail: `check ${checked}` };
        },
        spent: () => ({ tokens: spent }),
        report() {},
      });
      // Where it must stop, worked out from the rule alone.
      let expected: { reason: a7.StopReason; rounds: number } | undefined;
      let used = 0;
      for (let round = 1; !expected; round++) {
        used += costs[round - 1];
        const o = outcomes[round - 1] ?? "not_met";
        if (round === interruptAt) expected = { reason: "interrupted", rounds: round };
        else if (o === "met") expected = { reason: "met", rounds: round };
        else if (o === "failed") expected = { reason: "check_failed", rounds: round };
        else if (round >= rounds) expected = { reason: "rounds", rounds: round };
        else if (used >= tokens) expected = { reason: "cost", rounds: round };
      }
      expect({ reason: end.reason, rounds: end.rounds }).toEqual(expected);
      expect(end.rounds).toBeLessThanOrEqual(rounds);
      expect(worked).toBe(end.rounds);
      expect(checked).toBe(end.reason === "interrupted" ? end.rounds - 1 : end.rounds);
      expect(end.sentence).toMatch(end.reason === "met" ? /^goal met: / : /^goal not met: \S/);
      // Every round after the first is the gap of the check before it.
      for (const [i, prompt] of prompts.slice(1).entries())
        expect(prompt).toContain(`check ${i + 1}`);
    },
  );

  test.prop([fc.string({ maxLength: 80 }), fc.string({ maxLength: 200 })], { seed: SEED })(
    "any text /goal is given is either a goal or a GoalError, never anything else",
    (flagish, rest) => {
      for (const args of [flagish, `--${flagish} ${rest}`, `${rest}`]) {
        try {
          const goal = parseGoal(args);
          expect(goal.condition.length).toBeGreaterThan(0);
          expect(goal.budget.rounds).toBeGreaterThanOrEqual(1);
        } catch (err) {
          expect(err).toBeInstanceOf(GoalError);
        }
      }
    },
  );

  test.prop(
    [
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.constantFrom("npm test", "cmd: npx tsc --noEmit", "judge: the README explains X"),
      fc.boolean(),
    ],
    { seed: SEED },
  )("flags in either spelling set the budget; the prefix chooses the check", (r, t, c, eq) => {
    const f = (name: string, v: number) => (eq ? `--${name}=${v}` : `--${name} ${v}`);
    const goal = parseGoal(`${f("rounds", r)} ${f("tokens", t)} ${c}`);
    expect(goal.budget).toMatchObject({ rounds: r, tokens: t });
    expect(goal.condition).toBe(c);
    expect(goal.check.kind).toBe(c.startsWith("judge:") ? "judge" : "command");
  });
});

describe("a7 the check", () => {
  const sandboxed = machineSandbox().kind === "bubblewrap";
  it.runIf(sandboxed)(
    "runs in the sandbox: a goal command that writes outside the workspace does not get to",
    async () => {
      const root = tempDir("lah-a7-escape-");
      const ws = path.join(root, "ws");
      const outside = path.join(root, "outside");
      mkdirSync(ws);
      mkdirSync(outside);
      const verdict = await checkCommand(
        `echo pwned > ${outside}/planted.txt && echo pwned > ../outside/relative.txt`,
        ws,
        sandboxFor(ws),
        10_000,
      );
      expect(verdict.outcome).not.toBe("met");
      expect(existsSync(path.join(outside, "planted.txt"))).toBe(false);
      expect(existsSync(path.join(outside, "relative.txt"))).toBe(false);
      // The same command inside the workspace works: the sandbox, not a broken shell, said no.
      expect((await checkCommand("echo ok > inside.txt", ws, sandboxFor(ws), 10_000)).outcome).toBe(
        "met",
      );
      expect(readFileSync(path.join(ws, "inside.txt"), "utf8")).toBe("ok\n");
    },
    budget({ command: 2 }),
  );
  it.runIf(!sandboxed)("runs in the sandbox (skipped: no bubblewrap here)", () => {
    console.warn(`a7 sandbox check skipped: ${machineSandbox().summary}`);
  });

  it(
    "a hung check is stopped at its timeout and reported; it is never counted as met",
    async () => {
      const { env, agent } = await withGoal(
        [say("done"), say("(never sent)")],
        "--timeout 1 sleep 600",
      );
      await agent.send("go");
      expect(checks(env)).toEqual(["failed"]);
      expect(ends(env)).toEqual([expect.objectContaining({ reason: "check_failed", rounds: 1 })]);
      expect(agent.lastEnd()!.sentence).toMatch(
        /^goal not met: the check could not decide: .*ran past 1 s/,
      );
    },
    budget({ chapterRun: 1, command: 2 }),
  );

  it(
    "the gap is bounded: a check that prints 200 KB sends back its tail, at most GAP_LIMIT characters",
    async () => {
      const ws = tempDir("lah-a7-");
      const verdict = await checkCommand(
        "node -e \"process.stdout.write('x'.repeat(200000)); console.log('\\nLAST LINE'); process.exit(1)\"",
        ws,
        sandboxFor(ws),
        10_000,
      );
      expect(verdict.outcome).toBe("not_met");
      expect(verdict.detail).toMatch(/LAST LINE$/);
      expect(verdict.detail.length).toBeLessThan(GAP_LIMIT + 200);
    },
    budget({ command: 1 }),
  );

  it("a judge that answers without its verdict tool, or with the wrong shape, has not said met", async () => {
    for (const reply of [
      say("Met, clearly."),
      use("verdict", { met: "true", gap: "" }),
      use("verdict", { gap: "" }),
    ]) {
      const env = scriptedEnv({ judge: [reply] });
      const verdict = await checkJudge(env.modelFor("judge"), "m", "the README explains X", [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "text", text: "Done, the goal is met." }] },
      ]);
      expect(verdict.outcome).toBe("failed");
    }
  });

  it(
    "the judge reads the condition and the transcript, fenced as evidence",
    async () => {
      const { env, agent } = await withGoal(
        {
          lead: [use("write", { path: "README.md", content: "# x\nRun: npm test\n" }), say("ok")],
          judge: [use("verdict", { met: true, gap: "" })],
        },
        "judge: README.md says how to run the tests",
      );
      await agent.send("Write the README.");
      const asked = env.requests.find((r) => r.agent === "judge")!.body;
      const text = JSON.stringify(asked.messages);
      expect(text).toMatch(/Condition: README.md says how to run the tests/);
      expect(text).toMatch(/Run: npm test/);
      expect(asked.system).toMatch(/evidence, never instructions/);
      expect(asked.tool_choice).toEqual({ type: "tool", name: "verdict" });
      expect(ends(env)).toEqual([expect.objectContaining({ reason: "met", rounds: 1 })]);
    },
    budget({ chapterRun: 1 }),
  );
});

describe("a7 bad input gets a clear message and changes nothing", () => {
  it("/goal with nothing says there is no goal and how to set one", async () => {
    const agent = createAgent(scriptedEnv([]));
    expect(await agent.commands!["/goal"].run("")).toMatch(/^No goal set\. Usage: \/goal /);
  });

  it("an unknown flag, a bad number, no condition or too long a one is refused, and the goal set stays", async () => {
    const { agent } = await withGoal([], "--rounds 4 npm test");
    const before = agent.goal();
    for (const [args, message] of [
      ["--bogus npm test", /unknown flag --bogus: --rounds, --tokens, --dollars, --timeout/],
      ["--rounds 0 npm test", /--rounds needs a whole number from 1 to 50, not "0"/],
      ["--rounds two npm test", /--rounds needs a whole number/],
      ["--rounds 3", /needs a condition/],
      ["cmd:   ", /cmd: needs something after it/],
      ["--dollars 1 npm test", /--dollars needs the model's price/],
      [`judge: ${"x".repeat(MAX_CONDITION)}`, /at most 4000/],
    ] as const) {
      const answer = await agent.commands!["/goal"].run(args);
      expect(answer).toMatch(/^✗ /);
      expect(answer).toMatch(message);
      expect(agent.goal()).toBe(before);
    }
    expect(await agent.commands!["/goal"].run("clear")).toMatch(
      /Goal dropped: --rounds 4 npm test|Goal dropped: npm test/,
    );
    expect(agent.goal()).toBeUndefined();
  });
});

describe("a7 headless: -p with --goal", () => {
  const run = async (
    goal: string,
    script: ScriptedTurn[],
    format: "text" | "json" | "stream-json",
  ) => {
    const env = scriptedEnv(script);
    const out: string[] = [];
    const err: string[] = [];
    const code = await a7.runHeadless(
      env,
      { prompt: "go", goal, outputFormat: format },
      (t) => out.push(t),
      (t) => err.push(t),
    );
    return { code, out: out.join(""), err: err.join("") };
  };

  it(
    "exits 0 when the goal is met and 3 when a budget ends it; json says why",
    async () => {
      const met = await run(
        "test -f a.txt",
        [use("write", { path: "a.txt", content: "a" }), say("ok")],
        "json",
      );
      expect(met.code).toBe(0);
      expect(JSON.parse(met.out).goal).toMatchObject({ reason: "met", rounds: 1 });
      const spent = await run("--rounds 2 test -f never", [say("done"), say("done")], "json");
      expect(spent.code).toBe(3);
      expect(JSON.parse(spent.out).goal).toMatchObject({ reason: "rounds", rounds: 2 });
      const text = await run("--rounds 1 test -f never", [say("I am done")], "text");
      expect(text.out).toBe("I am done\n");
      expect(text.err).toMatch(/goal not met: the round budget \(1\) is spent/);
    },
    budget({ chapterRun: 3, command: 4 }),
  );

  it(
    "stream-json carries the goal's checks as recording lines",
    async () => {
      const { code, out } = await run(
        "--rounds 2 test -f a.txt",
        [say("done"), use("write", { path: "a.txt", content: "a" }), say("ok")],
        "stream-json",
      );
      expect(code).toBe(0);
      const steps = out
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      for (const step of steps) expect(traceStepSchema.safeParse(step).success).toBe(true);
      // The goal given with --goal comes first, before the session's own steps go on.
      expect(steps.find((s) => s.kind === "event" && s.type !== "session")).toMatchObject({
        type: "goal",
        data: { condition: "test -f a.txt", check: "command", rounds: 2 },
      });
      expect(steps.filter((s) => s.type === "goal_check").map((s) => s.data.outcome)).toEqual([
        "not_met",
        "met",
      ]);
      expect(steps.filter((s) => s.type === "goal_end").map((s) => s.data.reason)).toEqual(["met"]);
    },
    budget({ chapterRun: 1, command: 2 }),
  );

  it(
    "a model error ends the goal with its reason, and the error itself goes on up: -p exits 1",
    async () => {
      const { env, agent } = await withGoal(
        [say("done"), fail(500, "api_error", "the model is down")],
        "test -f never.txt",
      );
      await expect(agent.send("go")).rejects.toThrow(/the model is down/);
      expect(ends(env)).toEqual([expect.objectContaining({ reason: "error", rounds: 2 })]);
      const headless = await run("test -f never.txt", [fail(500, "api_error", "down")], "json");
      expect(headless.code).toBe(1);
      expect(JSON.parse(headless.out)).toMatchObject({ is_error: true, goal: { reason: "error" } });
    },
    budget({ chapterRun: 2, command: 1 }),
  );

  it("a bad --goal exits 2 with the reason, and runs nothing", async () => {
    const { code, err } = await run(
      "--rounds 0 npm test",
      [use("write", { path: "a.txt", content: "a" })],
      "text",
    );
    expect(code).toBe(2);
    expect(err).toMatch(/^--goal: --rounds needs a whole number/);
  });

  it(
    "through the runner, as a learner starts it: --goal with -p exits 0 when met; --goal elsewhere is a clear error",
    async () => {
      const ws = tempDir("lah-a7-cli-");
      const met = await runCli([
        "a7",
        "--offline",
        "--workspace",
        ws,
        "-p",
        "Write slugify and its test.",
        // A value that starts with a dash is given with "=" (node's parseArgs reads it as a flag).
        "--goal=--rounds 3 node test.js",
        "--output-format",
        "json",
      ]);
      expect(met.code, met.stderr).toBe(0);
      expect(JSON.parse(met.stdout).goal).toMatchObject({ reason: "met", rounds: 2 });
      const elsewhere = await runCli(["a5", "--offline", "-p", "hi", "--goal", "npm test"]);
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toMatch(/a5 has no goals: --goal is a7's/);
    },
    budget({ cli: 2, command: 2 }),
  );
});

describe("a7 in the player", () => {
  it("the goal panel shows the goal, its round, its budget and the last verdict, from the recorded events", () => {
    const trace = readTrace("a7")!;
    const states = stateTimelineInEnglish(trace);
    const at = (type: string, n: number) =>
      trace.steps.findIndex(
        (s, i) =>
          s.kind === "event" &&
          s.type === type &&
          trace.steps.slice(0, i + 1).filter((t) => t.kind === "event" && t.type === type)
            .length === n,
      );
    expect(states[at("goal", 1)].goal).toEqual([
      ["node test.js", "0", "5 rounds, 200000 tokens", "not checked yet"],
    ]);
    expect(states[at("goal_check", 1)].goal![0].slice(1, 2)).toEqual(["1"]);
    expect(states[at("goal_check", 1)].goal![0][3]).toMatch(/^not_met/);
    expect(states[at("goal_end", 2)].goal![0]).toEqual([
      "node test.js",
      "2",
      "2 rounds, 200000 tokens",
      expect.stringMatching(/^not_met .* → stopped: rounds$/),
    ]);
    expect(states.at(-1)!.goal![0][3]).toMatch(/^met .* → stopped: met$/);
  });
});
