// a7's exercises: rebuild the goal loop (pursueGoal), and extend it so a gap says when the check
// found the same thing as the round before. The loop's checks drive the learner's pursueGoal with
// counters for its world (work, check, spent), on generated sequences of verdicts and budgets, and
// one real goal through the learner's agent; tests/chapters/a7-goal-loop.test.ts states the same
// rule against the appendix's own code.
import { say, use } from "../../_shared/scripted.ts";
import type * as A7 from "../agent.ts";
import {
  change,
  type Check,
  CheckFailure,
  NOT_STARTED,
  type Exercise,
  expectThat,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof A7;
type Outcome = A7.Verdict["outcome"];

interface Played {
  end: A7.GoalEnd;
  prompts: string[];
  details: string[];
}

/** Runs the learner's loop on checks that answer `outcomes` (then "not met") with `details`. */
async function play(
  module: M,
  outcomes: Outcome[],
  budget: { rounds: number; tokens: number },
  costs: number[],
  details: (i: number) => string = (i) => `check ${i + 1} found problem ${i + 1}`,
): Promise<Played> {
  // The session had spent tokens before the goal was set: the budget counts from the goal on.
  let spent = 5000;
  let checked = 0;
  const prompts: string[] = [];
  const given: string[] = [];
  const goal: A7.Goal = {
    condition: "node test.js",
    check: { kind: "command", command: "node test.js" },
    budget: { ...budget, timeoutMs: 1000 },
  };
  const end = await module.pursueGoal(goal, "the first prompt", {
    async work(prompt) {
      prompts.push(prompt);
      spent += costs[prompts.length - 1] ?? 0;
    },
    async check() {
      const detail = details(checked);
      given.push(detail);
      return { outcome: outcomes[checked++] ?? "not_met", detail };
    },
    spent: () => ({ tokens: spent }),
    report() {},
  });
  return { end, prompts, details: given };
}

/** Where the rule says the loop stops, and why. */
function expected(outcomes: Outcome[], rounds: number, tokens: number, costs: number[]) {
  let used = 0;
  for (let round = 1; ; round++) {
    used += costs[round - 1] ?? 0;
    const o = outcomes[round - 1] ?? "not_met";
    if (o === "met") return { round, reason: "met" };
    if (o === "failed") return { round, reason: "check_failed" };
    if (round >= rounds) return { round, reason: "rounds" };
    if (used >= tokens) return { round, reason: "cost" };
  }
}

const runs = fc.record({
  outcomes: fc.array(fc.constantFrom<Outcome>("met", "not_met", "not_met", "failed"), {
    maxLength: 10,
  }),
  rounds: fc.integer({ min: 1, max: 6 }),
  tokens: fc.integer({ min: 1, max: 2000 }),
  costs: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 10, maxLength: 10 }),
});

export const stopsByTheRule: Check<M> = {
  id: "stops-by-the-rule",
  async run(module) {
    await forAll(runs, async ({ outcomes, rounds, tokens, costs }) => {
      const { end } = await play(module, outcomes, { rounds, tokens }, costs);
      const want = expected(outcomes, rounds, tokens, costs);
      expectThat(end.rounds === want.round && end.reason === want.reason, "stopped-wrong", {
        outcomes: outcomes.join(", ") || "(all not met)",
        rounds,
        tokens,
        got: end.rounds,
        gotReason: end.reason,
        expected: want.round,
        expectedReason: want.reason,
      });
      expectThat(typeof end.sentence === "string" && end.sentence.trim() !== "", "no-sentence", {
        reason: end.reason,
      });
    });
  },
};

export const gapGoesBack: Check<M> = {
  id: "gap-goes-back",
  async run(module) {
    await forAll(runs, async ({ outcomes, rounds, costs }) => {
      const { prompts, details } = await play(module, outcomes, { rounds, tokens: 1e9 }, costs);
      expectThat(prompts[0] === "the first prompt", "first-prompt-lost", { got: prompts[0] });
      for (let r = 1; r < prompts.length; r++)
        expectThat(prompts[r].includes(details[r - 1]), "gap-missing", {
          round: r + 1,
          before: r,
        });
    });
  },
};

export const realGoal: Check<M> = {
  id: "real-goal",
  limitMs: 20_000,
  async run(module, kit) {
    const env = kit.env([
      say("Done: done.txt is written."), // it is not
      use("write", { path: "done.txt", content: "ok\n" }),
      say("Now it is."),
    ]);
    const agent = module.createAgent(env, { goal: "--rounds 3 test -f done.txt" });
    await agent.send("Write done.txt.");
    await agent.close?.();
    const end = agent.lastEnd();
    expectThat(end?.reason === "met" && end.rounds === 2, "real-not-met", {
      got: end ? `${end.reason} after ${end.rounds} rounds` : "no end",
    });
  },
};

// ---- Every way a loop ends, and what it counts (a property check) ----

/** A run with money and a failing turn too: the session had spent tokens and dollars before the
 *  goal; each round costs tokens and dollars; a round's work may throw (an interrupt, or any
 *  other error) after spending. */
const fullRuns = fc
  .record({
    outcomes: fc.array(fc.constantFrom<Outcome>("met", "not_met", "not_met", "not_met", "failed"), {
      maxLength: 8,
    }),
    rounds: fc.integer({ min: 1, max: 6 }),
    /** Sometimes a token budget the run never reaches, so the dollars decide; sometimes (a round
     *  number) exactly what the first rounds cost, so a budget spent to the token is tried too. */
    tokens: fc.oneof(
      fc.integer({ min: 1, max: 2000 }),
      fc.constant(1e9),
      fc.record({ exactAfter: fc.integer({ min: 1, max: 4 }) }),
    ),
    costs: fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 8, maxLength: 8 }),
    /** In quarters of a dollar (exact in floating point): a dollar budget (or none), what each
     *  round costs (undefined: the price is not known, so only tokens count). */
    dollarBudget: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
    quarters: fc.option(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 8, maxLength: 8 }), {
      nil: undefined,
    }),
    throws: fc.option(
      fc.record({ round: fc.integer({ min: 1, max: 6 }), interrupt: fc.boolean() }),
      {
        nil: undefined,
        freq: 2,
      },
    ),
  })
  .map(({ tokens, costs, ...run }) => ({
    ...run,
    costs,
    tokens:
      typeof tokens === "number"
        ? tokens
        : Math.max(
            1,
            costs.slice(0, tokens.exactAfter).reduce((a, b) => a + b, 0),
          ),
  }));

export const endsAndAccounts: Check<M> = {
  id: "ends-and-accounts",
  async run(module) {
    await forAll(
      fullRuns,
      async ({ outcomes, rounds, tokens, costs, dollarBudget, quarters, throws }) => {
        let spent = 5000;
        let dollars = 1.25; // spent before the goal, like the tokens
        let worked = 0;
        const reports: Parameters<A7.GoalParts["report"]>[0][] = [];
        const goal: A7.Goal = {
          condition: "node test.js",
          check: { kind: "command", command: "node test.js" },
          budget: {
            rounds,
            tokens,
            timeoutMs: 1000,
            ...(dollarBudget === undefined ? {} : { dollars: dollarBudget / 4 }),
          },
        };
        const ending = module.pursueGoal(goal, "the first prompt", {
          async work() {
            worked++;
            spent += costs[worked - 1] ?? 0;
            dollars += (quarters?.[worked - 1] ?? 0) / 4;
            if (throws?.round === worked) {
              const err = new Error(throws.interrupt ? "interrupted" : "the model call failed");
              if (throws.interrupt) err.name = "InterruptedError";
              throw err;
            }
          },
          async check() {
            const round = worked;
            return { outcome: outcomes[round - 1] ?? "not_met", detail: `check ${round}` };
          },
          spent: () => ({ tokens: spent, ...(quarters === undefined ? {} : { dollars }) }),
          report(event) {
            reports.push(event);
          },
        });
        // A loop always ends with a reason: a failed turn is one, not an exception.
        const end = await ending.catch((err: unknown) => {
          if (err instanceof Error && err.message.startsWith(NOT_STARTED)) throw err;
          throw new CheckFailure("loop-threw", {
            error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
          });
        });
        // The rule, step by step.
        let used = 0;
        let usedQuarters = 0;
        let want: { round: number; reason: string } | undefined;
        const wantReports: string[] = [];
        for (let round = 1; !want; round++) {
          used += costs[round - 1] ?? 0;
          usedQuarters += quarters?.[round - 1] ?? 0;
          if (throws?.round === round) {
            want = { round, reason: throws.interrupt ? "interrupted" : "error" };
            break;
          }
          const o = outcomes[round - 1] ?? "not_met";
          wantReports.push(`round ${round}: ${o}, check ${round}, ${used} tokens`);
          if (o === "met") want = { round, reason: "met" };
          else if (o === "failed") want = { round, reason: "check_failed" };
          else if (round >= rounds) want = { round, reason: "rounds" };
          else if (used >= tokens) want = { round, reason: "cost" };
          else if (
            dollarBudget !== undefined &&
            quarters !== undefined &&
            usedQuarters >= dollarBudget
          )
            want = { round, reason: "cost" };
        }
        const story = {
          outcomes: outcomes.join(", ") || "(all not met)",
          rounds,
          tokens,
          dollars: dollarBudget === undefined ? "none" : `$${(dollarBudget / 4).toFixed(2)}`,
          spentDollars:
            quarters === undefined
              ? "unknown"
              : quarters.map((q) => `$${(q / 4).toFixed(2)}`).join(", "),
          throws: throws
            ? `round ${throws.round}, ${throws.interrupt ? "InterruptedError" : "Error"}`
            : "never",
        };
        expectThat(end.rounds === want.round && end.reason === want.reason, "ended-wrong", {
          ...story,
          got: end.rounds,
          gotReason: end.reason,
          expected: want.round,
          expectedReason: want.reason,
        });
        expectThat(end.tokens === used, "end-tokens", {
          ...story,
          got: end.tokens,
          expected: used,
        });
        const gotReports = reports.map(
          (r) => `round ${r.round}: ${r.outcome}, ${r.detail}, ${r.tokens} tokens`,
        );
        expectThat(gotReports.join("; ") === wantReports.join("; "), "reports-wrong", {
          ...story,
          got: gotReports.join("; ") || "none",
          expected: wantReports.join("; ") || "none",
        });
        expectThat(typeof end.sentence === "string" && end.sentence.trim() !== "", "no-sentence", {
          reason: end.reason,
        });
      },
    );
  },
};

/** The extension's rule: a gap that repeats the check before it says so, and only then. */
export const saysSameFailure: Check<M> = {
  id: "says-same-failure",
  async run(module) {
    const sequences = fc.array(fc.constantFrom("A", "B"), { minLength: 2, maxLength: 6 });
    await forAll(
      sequences,
      async (found) => {
        const { prompts, details } = await play(
          module,
          [],
          { rounds: found.length, tokens: 1e9 },
          [],
          (i) => `the test says ${found[i] ?? "A"}`,
        );
        for (let r = 2; r < prompts.length; r++) {
          // prompts[r] is the gap of check r (1-based); check r-1 came before it.
          const same = details[r - 1] === details[r - 2];
          const said = prompts[r].includes(`same as after round ${r - 1}`);
          expectThat(!same || said, "same-not-said", { round: r, before: r - 1 });
          expectThat(same || !prompts[r].includes("same as after round"), "same-said-wrongly", {
            round: r,
          });
        }
      },
      { runs: 60 },
    );
  },
};

/** a7.1's answer: the loop remembers the last verdict; gapPrompt names a repeat. */
const sameFailureChanges = [
  change(
    "export function gapPrompt(goal: Goal, verdict: Verdict, round: number): string {",
    "export function gapPrompt(\n  goal: Goal,\n  verdict: Verdict,\n  round: number,\n  repeatOf?: number,\n): string {",
  ),
  change(
    '    ">>>",\n',
    '    ">>>",\n    ...(repeatOf === undefined\n      ? []\n      : [\n          `This is the same as after round ${repeatOf}: what you changed since did not change what the check sees.`,\n        ]),\n',
  ),
  change(
    "  for (let round = 1; ; round++) {",
    "  let previous: Verdict | undefined;\n  for (let round = 1; ; round++) {",
  ),
  change(
    "    prompt = gapPrompt(goal, verdict, round);",
    "    prompt = gapPrompt(\n      goal,\n      verdict,\n      round,\n      previous?.detail === verdict.detail ? round - 1 : undefined,\n    );\n    previous = verdict;",
  ),
];

export const exercises: Exercise<M>[] = [
  {
    id: "a7",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "pursueGoal",
        contract: [
          "Works on `prompt` (parts.work), then checks (parts.check) and reports the verdict with",
          "the round and the tokens spent since the start (parts.report). Met: end 'met'. Could not",
          "decide ('failed'): end 'check_failed'. Else, round budget spent: 'rounds'; tokens (or",
          "dollars) spent: 'cost'; otherwise the next prompt is gapPrompt(goal, verdict, round).",
          "A work that throws: 'interrupted' (an InterruptedError) or 'error'. Every end has a sentence.",
        ].join("\n"),
      },
    ],
    checks: [stopsByTheRule, gapGoesBack, endsAndAccounts, realGoal],
  },
  {
    id: "a7.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      loop: (reference: string) => sameFailureChanges.reduce((text, edit) => edit(text), reference),
    },
    checks: [saysSameFailure],
  },
];
