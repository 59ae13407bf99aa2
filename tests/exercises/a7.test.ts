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
