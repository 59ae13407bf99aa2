// a7's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("a7", {
  a7: {
    "runs one round past the round budget": {
      loop: swap("if (round >= goal.budget.rounds)", "if (round > goal.budget.rounds)"),
    },
    "goes on when the check could not decide": {
      loop: swap(
        'if (verdict.outcome === "failed")',
        'if (verdict.outcome === ("never" as string))',
      ),
    },
    "never looks at the cost": {
      loop: swap("if (spent.tokens >= goal.budget.tokens)", "if (spent.tokens < 0)"),
    },
    "sends the first prompt again instead of the gap": {
      loop: swap("prompt = gapPrompt(goal, verdict, round);", ""),
    },
    "goes on when the token budget is spent to the token": {
      loop: swap(
        "if (spent.tokens >= goal.budget.tokens)",
        "if (spent.tokens > goal.budget.tokens)",
      ),
    },
    "never looks at the dollar budget": {
      loop: swap(
        "if (goal.budget.dollars !== undefined && (spent.dollars ?? 0) >= goal.budget.dollars)",
        "if (goal.budget.dollars === -1)",
      ),
    },
    "counts the whole session's dollars, not the goal's": {
      loop: swap(": now.dollars - start.dollars,", ": now.dollars,"),
    },
    "calls every failed turn an interrupt": {
      loop: swap("if (isInterrupt(err)) return", "if (err) return"),
    },
    "lets a failed turn go on up instead of ending with a reason": {
      loop: swap('return end("error", round, `the turn failed: ${errorText(err)}`);', "throw err;"),
    },
    "reports nothing to the person": {
      loop: swap("    parts.report({", "    void ({"),
    },
    "reports the session's tokens": {
      loop: swap(
        "      tokens: used().tokens,\n    });",
        "      tokens: parts.spent().tokens,\n    });",
      ),
    },
    "ends saying the tokens of the session": {
      loop: swap(
        "    tokens: used().tokens,\n    sentence",
        "    tokens: parts.spent().tokens,\n    sentence",
      ),
    },
    "counts the whole session's tokens, not the goal's": {
      loop: swap("tokens: now.tokens - start.tokens,", "tokens: now.tokens,"),
    },
  },
  "a7.1": {
    "says same after any failure": {
      loop: swap(
        "previous?.detail === verdict.detail ? round - 1 : undefined",
        "previous ? round - 1 : undefined",
      ),
    },
    "names the wrong round": {
      loop: swap(
        "previous?.detail === verdict.detail ? round - 1 : undefined",
        "previous?.detail === verdict.detail ? round : undefined",
      ),
    },
  },
});
