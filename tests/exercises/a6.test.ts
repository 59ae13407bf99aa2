// a6's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

const AT_K = "return 1 - choose(n - c, k) / choose(n, k);";

exerciseSuite("a6", {
  a6: {
    "pass@k as 1 − (1 − c/n)^k, the biased estimator": {
      estimators: swap(AT_K, "return 1 - (1 - c / n) ** k;"),
    },
    "pass^k as (c/n)^k": {
      estimators: swap("return choose(c, k) / choose(n, k);", "return (c / n) ** k;"),
    },
    "pass@k by factorials, which overflow past 170": {
      estimators: swap(
        AT_K,
        [
          "const f = (m: number): number => (m <= 1 ? 1 : m * f(m - 1));",
          "  const ways = (m: number, j: number) => f(m) / (f(j) * f(m - j));",
          "  return 1 - ways(n - c, k) / ways(n, k);",
        ].join("\n"),
      ),
    },
    "pass@k is 1 as soon as there are no more failures than k": {
      estimators: swap("if (n - c < k) return 1;", "if (n - c <= k) return 1;"),
    },
    "pass@k does not check its counts": {
      estimators: swap("checkCounts(n, c, k);\n  if (n - c < k)", "if (n - c < k)"),
    },
    "pass^k does not check its counts (C(1, 4) / C(3, 4) is NaN)": {
      estimators: swap("checkCounts(n, c, k);\n  return choose(c, k)", "return choose(c, k)"),
    },
    "the textbook (Wald) interval, rate ± z·√(rate(1 − rate)/n)": {
      interval: swap(
        "const half = (z / denominator) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));",
        "const half = z * Math.sqrt((rate * (1 - rate)) / n);",
      ),
    },
    "Wilson without the z²/4n² under the root": {
      interval: swap(" + z2 / (4 * n * n)", ""),
    },
    "Wilson with 1.96 instead of the parameter z": {
      interval: swap("const z2 = z * z;", "const z2 = 1.96 * 1.96;"),
    },
    "an interval of no observations is not refused": {
      interval: swap(
        "if (!(n >= 1)) throw new Error(`an interval needs at least one observation, not ${n}`);",
        "",
      ),
    },
    "a NaN rate passes the rate check (rate < 0 || rate > 1)": {
      interval: swap("if (!(rate >= 0 && rate <= 1))", "if (rate < 0 || rate > 1)"),
    },
  },
  "a6.2": {
    "counts the ties as disagreements": {
      numbers: swap(
        "pValue: signTest(aBetter.length, bBetter.length)",
        "pValue: signTest(aBetter.length, both.length - aBetter.length)",
      ),
    },
    "a one-sided p-value": {
      numbers: swap(
        "return Math.min(1, (2 * tail) / 2 ** m);",
        "return Math.min(1, tail / 2 ** m);",
      ),
    },
    "a p-value above 1 for an even split": {
      numbers: swap("return Math.min(1, (2 * tail) / 2 ** m);", "return (2 * tail) / 2 ** m;"),
    },
    "compares each task's first trial only": {
      numbers: swap(
        "byTask.set(task, runs.filter((r) => r.passed).length / runs.length);",
        "byTask.set(task, runs.find((r) => r.trial === 1)?.passed ? 1 : 0);",
      ),
    },
    "compares total passes, not shares of trials": {
      numbers: swap(
        "byTask.set(task, runs.filter((r) => r.passed).length / runs.length);",
        "byTask.set(task, runs.filter((r) => r.passed).length);",
      ),
    },
    "a harness with no runs is compared as if it failed everything": {
      numbers: swap(
        'if (own.length === 0) throw new Error(`no runs of the harness "${harness}" to compare`);',
        "",
      ),
    },
  },
});
