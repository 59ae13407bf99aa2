// a6's exercises: rebuild the numbers an eval reports (pass@k, pass^k and the Wilson interval, in
// stats.ts), and extend the results with a paired comparison of two harnesses and its sign test (in
// agent.ts). The checks state what each number means and compare the learner's with that meaning,
// computed another way: pass@k and pass^k by counting the k-subsets of the trials (and, for many
// trials, by the Codex paper's product form), the interval's ends as the roots of the score test's
// equation, the sign test's p-value by Pascal's triangle. tests/chapters/a6-evals.test.ts runs the
// rebuild's checks against the appendix's own stats.ts.
import type * as A6 from "../agent.ts";
import type * as Stats from "../stats.ts";
import { change, expectThat, refusal, type Check, type Exercise } from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type S = typeof Stats;

/** A number for a message: six digits, or what it was when it is not a number. */
const show = (x: unknown) =>
  typeof x === "number" && Number.isFinite(x) ? String(Number(x.toPrecision(6))) : String(x);
const isRate = (x: unknown): x is number => typeof x === "number" && x >= 0 && x <= 1;
const near = (got: unknown, expected: number, tolerance = 1e-9) =>
  typeof got === "number" && Math.abs(got - expected) <= tolerance;

/** n trials, c of which passed, and a k ≤ n; n up to `most`. Drawn as three independent whole
 *  numbers, so that a failing case shrinks to the fewest trials that still fail. */
const counts = (least: number, most: number) =>
  fc
    .tuple(fc.integer({ min: least, max: most }), fc.nat(), fc.nat())
    .map(([n, c, k]): [number, number, number] => [n, c % (n + 1), 1 + (k % n)]);

/** Of the ways to choose k of n trials (the first c passed), how many hold a pass and how many
 *  only passes: the definitions of pass@k and pass^k, counted one subset at a time. */
function subsets(n: number, c: number, k: number) {
  let total = 0;
  let withPass = 0;
  let allPass = 0;
  for (let mask = 0; mask < 1 << n; mask++) {
    let size = 0;
    let passes = 0;
    for (let i = 0; i < n; i++)
      if (mask & (1 << i)) {
        size++;
        if (i < c) passes++;
      }
    if (size !== k) continue;
    total++;
    if (passes > 0) withPass++;
    if (passes === k) allPass++;
  }
  return { total, withPass, allPass };
}

export const passAtKCounts: Check<S> = {
  id: "pass-at-k-is-a-count",
  async run(module) {
    await forAll(
      counts(1, 10),
      ([n, c, k]) => {
        const { total, withPass } = subsets(n, c, k);
        const got = module.passAtK(n, c, k);
        expectThat(near(got, withPass / total), "pass-at-k-wrong", {
          n,
          c,
          k,
          got: show(got),
          expected: show(withPass / total),
          ways: withPass,
          total,
        });
      },
      { runs: 80 },
    );
  },
};

export const passHatKCounts: Check<S> = {
  id: "pass-hat-k-is-a-count",
  async run(module) {
    await forAll(
      counts(1, 10),
      ([n, c, k]) => {
        const { total, allPass } = subsets(n, c, k);
        const got = module.passHatK(n, c, k);
        expectThat(near(got, allPass / total), "pass-hat-k-wrong", {
          n,
          c,
          k,
          got: show(got),
          expected: show(allPass / total),
          ways: allPass,
          total,
        });
      },
      { runs: 80 },
    );
  },
};

/** pass@k and pass^k as products (Chen et al. 2021's numerically stable form, and its twin):
 *  another way to the same numbers, which stays finite where factorials overflow. */
function products(n: number, c: number, k: number) {
  let noPass = 1;
  for (let i = n - c + 1; i <= n; i++) noPass *= 1 - k / i;
  let allPass = 1;
  for (let i = 0; i < k; i++) allPass *= (c - i) / (n - i);
  return { at: 1 - noPass, hat: allPass };
}

export const manyTrials: Check<S> = {
  id: "many-trials",
  async run(module) {
    await forAll(
      counts(11, 200),
      ([n, c, k]) => {
        const expected = products(n, c, k);
        const at = module.passAtK(n, c, k);
        expectThat(isRate(at) && near(at, expected.at), "many-wrong", {
          name: "pass@k",
          n,
          c,
          k,
          got: show(at),
          expected: show(expected.at),
        });
        const hat = module.passHatK(n, c, k);
        expectThat(isRate(hat) && near(hat, expected.hat), "many-wrong", {
          name: "pass^k",
          n,
          c,
          k,
          got: show(hat),
          expected: show(expected.hat),
        });
      },
      { runs: 60 },
    );
  },
};

/** The 95 % quantile of the normal distribution: the default z of an interval. */
const Z95 = 1.959963984540054;

/** A rate observed on n, as an eval has them (x of n) or any rate at all, and a z. */
const observed = fc.tuple(
  fc.integer({ min: 1, max: 500 }).chain((n) =>
    fc.tuple(
      fc.oneof(
        fc.integer({ min: 0, max: n }).map((x) => x / n),
        fc.constantFrom(0, 1),
        fc.double({ min: 0, max: 1, noNaN: true }),
      ),
      fc.constant(n),
    ),
  ),
  fc.constantFrom(undefined, 1, 2.575829303549),
);

/** The edges every run tries first: one observation, the ends of the scale, an eval's twelve. */
const EDGES: [[number, number], number | undefined][] = [
  [[0, 1], undefined],
  [[1, 1], undefined],
  [[0.5, 1], undefined],
  [[0, 12], undefined],
  [[1, 12], undefined],
  [[0.5, 12], undefined],
  [[1 / 3, 12], 1],
];

export const wilsonInterval: Check<S> = {
  id: "wilson-interval",
  async run(module) {
    const rule = ([[rate, n], z]: [[number, number], number | undefined]) => {
      const call = `wilson(${show(rate)}, ${n}${z === undefined ? "" : `, ${z}`})`;
      const got = z === undefined ? module.wilson(rate, n) : module.wilson(rate, n, z);
      const { low, high } = got ?? ({} as Partial<Stats.Interval>);
      const interval = `[${show(low)}, ${show(high)}]`;
      expectThat(
        isRate(low) && isRate(high) && low <= rate + 1e-12 && rate <= high + 1e-12 && low < high,
        "interval-misses",
        { call, interval, rate: show(rate) },
      );
      expectThat(rate !== 0 || low === 0, "interval-not-exact", {
        call,
        interval,
        end: "low",
        at: 0,
      });
      expectThat(rate !== 1 || high === 1, "interval-not-exact", {
        call,
        interval,
        end: "high",
        at: 1,
      });
      // Each end is where the score test stops accepting: (rate − p)² = z²·p(1 − p)/n.
      const z2 = (z ?? Z95) ** 2;
      for (const [end, p] of [
        ["low", low],
        ["high", high],
      ] as const) {
        const left = (rate - p) ** 2;
        const right = (z2 * p * (1 - p)) / n;
        expectThat(Math.abs(left - right) <= 1e-9 * (left + right) + 1e-15, "interval-off", {
          call,
          interval,
          end,
          left: left.toExponential(4),
          right: right.toExponential(4),
          z: show(z ?? Z95),
        });
      }
    };
    for (const edge of EDGES) rule(edge);
    await forAll(observed, rule, { runs: 120 });
  },
};

/** Input the numbers must refuse: counts that cannot be (c > n, k > n, no trials, fractions)
 *  and intervals of nothing or of a rate that is not one. Each of these is tried every time. */
const REFUSED: [string, number[]][] = [
  ...(["passAtK", "passHatK"] as const).flatMap((name) =>
    [
      [3, 4, 1],
      [3, -1, 1],
      [3, 1, 4],
      [3, 1, 0],
      [0, 0, 1],
      [2.5, 1, 1],
      [3, 1.5, 1],
      [4, 1, 1.5],
      [Number.NaN, 1, 1],
      [3, Number.NaN, 1],
      [3, 1, Number.NaN],
    ].map((args): [string, number[]] => [name, args]),
  ),
  ["wilson", [0.5, 0]],
  ["wilson", [0.5, -3]],
  ["wilson", [0.5, 0.5]],
  ["wilson", [0.5, Number.NaN]],
  ["wilson", [Number.NaN, 12]],
  ["wilson", [-0.1, 12]],
  ["wilson", [1.1, 12]],
];

/** And counts past the ends, drawn at random: more passes than trials, more tries than trials. */
const pastTheEnds = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 5 }), fc.boolean())
    .map(([n, over, hat]): [string, number[]] => [hat ? "passHatK" : "passAtK", [n, n + over, 1]]),
  fc
    .tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 5 }), fc.boolean())
    .map(([n, over, hat]): [string, number[]] => [hat ? "passHatK" : "passAtK", [n, 0, n + over]]),
);

function expectRefused(module: S, [name, args]: [string, number[]]): void {
  const call = `${name}(${args.map(show).join(", ")})`;
  let got: unknown;
  const why = refusal(() => {
    got = (module[name as "passAtK"] as (...a: number[]) => unknown)(...args);
  });
  // NaN and Infinity as themselves (JSON would say null).
  const said =
    JSON.stringify(got, (_, v: unknown) =>
      typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
    ) ?? "undefined";
  expectThat(why !== undefined, "not-refused", { call, got: said });
  expectThat(why.trim().length > 0, "refused-silently", { call });
}

export const badInputRefused: Check<S> = {
  id: "bad-input-refused",
  async run(module) {
    for (const input of REFUSED) expectRefused(module, input);
    await forAll(pastTheEnds, (input) => expectRefused(module, input), { runs: 30 });
  },
};

// ---- a6.2: a paired comparison of two harnesses, and its sign test ----

/** What a6.2 adds to agent.ts: compareHarnesses(records, a, b). */
interface Comparison {
  aBetter: string[];
  bBetter: string[];
  pValue: number;
}
type M = typeof A6 & {
  compareHarnesses?: (records: A6.RunRecord[], a: string, b: string) => Comparison;
};

/** Per task, the trials of x and of y (and of z, a third harness the comparison must ignore). */
interface TaskRuns {
  x: boolean[];
  y: boolean[];
  z: boolean[];
}
const trials = fc.array(fc.boolean(), { maxLength: 3 });
const taskRuns = fc.tuple(
  fc
    .array(fc.record({ x: trials, y: trials, z: trials }), { minLength: 1, maxLength: 9 })
    .map((tasks) => {
      // Both harnesses ran something, or the comparison has nothing to stand on.
      const [first, ...rest] = tasks;
      const ran = (h: "x" | "y") => tasks.some((t) => t[h].length > 0);
      return [
        {
          ...first,
          x: ran("x") ? first.x : [true],
          y: ran("y") ? first.y : [false],
        },
        ...rest,
      ];
    }),
  fc.nat(),
);

function recordsOf(tasks: TaskRuns[], order: number): A6.RunRecord[] {
  const records = tasks.flatMap((t, i) =>
    (["x", "y", "z"] as const).flatMap((harness) =>
      t[harness].map((passed, trial): A6.RunRecord => ({
        harness,
        task: `t${i}`,
        trial: trial + 1,
        passed,
        exitCode: passed ? 0 : 1,
        calls: 1,
        input_tokens: 10,
        output_tokens: 1,
        ms: 1,
        verifierOutput: "",
      })),
    ),
  );
  // The records in an order the comparison must not depend on.
  const turned = [
    ...records.slice(order % records.length),
    ...records.slice(0, order % records.length),
  ];
  return order % 2 ? turned.reverse() : turned;
}

/** The tasks both ran, and which did better on each (by its share of passed trials). */
function expectedSplit(tasks: TaskRuns[]) {
  const aBetter: string[] = [];
  const bBetter: string[] = [];
  tasks.forEach((t, i) => {
    if (!t.x.length || !t.y.length) return;
    const share = (runs: boolean[]) => runs.filter(Boolean).length / runs.length;
    if (share(t.x) > share(t.y)) aBetter.push(`t${i}`);
    if (share(t.y) > share(t.x)) bBetter.push(`t${i}`);
  });
  return { aBetter, bBetter };
}

/** The two-sided sign test's p-value, from Pascal's triangle: twice the chance of a split at
 *  least as uneven under p = ½, at most 1. */
function signTestP(wins: number, losses: number): number {
  const m = wins + losses;
  let row = [1];
  for (let i = 0; i < m; i++) row = [1, ...row.slice(1).map((v, j) => v + row[j]), 1];
  const tail = row.slice(0, Math.min(wins, losses) + 1).reduce((a, b) => a + b, 0);
  return Math.min(1, (2 * tail) / 2 ** m);
}

/** What the runs were, for a message: "t0 x 1/2 y 0/1; t1 …". */
const described = (tasks: TaskRuns[]) =>
  tasks
    .map((t, i) => {
      const of = (runs: boolean[]) => `${runs.filter(Boolean).length}/${runs.length}`;
      return `t${i} x ${of(t.x)} y ${of(t.y)}`;
    })
    .join("; ");

const sorted = (list: unknown) =>
  Array.isArray(list) ? JSON.stringify([...(list as string[])].sort()) : String(list);

function compare(module: M): NonNullable<M["compareHarnesses"]> {
  expectThat(typeof module.compareHarnesses === "function", "no-compare");
  return module.compareHarnesses;
}

export const pairedByTask: Check<M> = {
  id: "paired-by-task",
  async run(module) {
    const compareHarnesses = compare(module);
    await forAll(
      taskRuns,
      ([tasks, order]) => {
        const records = recordsOf(tasks, order);
        const expected = expectedSplit(tasks);
        for (const [a, b, aBetter, bBetter] of [
          ["x", "y", expected.aBetter, expected.bBetter],
          ["y", "x", expected.bBetter, expected.aBetter],
        ] as const) {
          const got = compareHarnesses(records, a, b);
          expectThat(
            sorted(got?.aBetter) === sorted(aBetter) && sorted(got?.bBetter) === sorted(bBetter),
            "split-wrong",
            {
              runs: described(tasks),
              a,
              b,
              got: `${sorted(got?.aBetter)} and ${sorted(got?.bBetter)}`,
              expected: `${sorted(aBetter)} and ${sorted(bBetter)}`,
            },
          );
        }
      },
      { runs: 60 },
    );
  },
};

export const signTestExact: Check<M> = {
  id: "sign-test-exact",
  async run(module) {
    const compareHarnesses = compare(module);
    await forAll(
      taskRuns,
      ([tasks, order]) => {
        const records = recordsOf(tasks, order);
        const { aBetter, bBetter } = expectedSplit(tasks);
        const expected = signTestP(aBetter.length, bBetter.length);
        const got = compareHarnesses(records, "x", "y")?.pValue;
        const swapped = compareHarnesses(records, "y", "x")?.pValue;
        expectThat(near(got, expected) && near(swapped, expected), "p-wrong", {
          runs: described(tasks),
          wins: aBetter.length,
          losses: bBetter.length,
          expected: show(expected),
          got: show(got),
          swapped: show(swapped),
        });
      },
      { runs: 60 },
    );
  },
};

export const unknownHarnessRefused: Check<M> = {
  id: "unknown-harness-refused",
  async run(module) {
    const compareHarnesses = compare(module);
    await forAll(
      fc.tuple(taskRuns, fc.boolean()),
      ([[tasks, order], first]) => {
        const records = recordsOf(tasks, order);
        const [a, b] = first ? ["nobody", "x"] : ["y", "nobody"];
        let got: unknown;
        const why = refusal(() => (got = compareHarnesses(records, a, b)));
        expectThat(why !== undefined, "unknown-compared", {
          a,
          b,
          got: JSON.stringify(got) ?? "undefined",
        });
      },
      { runs: 10 },
    );
  },
};

/** a6.2's answer: compareHarnesses and its sign test, after summarize. */
const COMPARISON = `/** Two harnesses on the same tasks, task by task (a6.2). */
export interface Comparison {
  a: string;
  b: string;
  /** The tasks where a passed a larger share of its trials than b, and the other way round. */
  aBetter: string[];
  bBetter: string[];
  /** The tasks both ran with the same share: they say nothing about which is better. */
  ties: string[];
  /** The two-sided sign test on the tasks where they differ. */
  pValue: number;
}

/** Compares a and b on the tasks both ran. Only the tasks where they differ carry information:
 *  if neither harness were better, each such task would go either way with chance ½. */
export function compareHarnesses(records: RunRecord[], a: string, b: string): Comparison {
  const shares = (harness: string) => {
    const own = records.filter((r) => r.harness === harness);
    if (own.length === 0) throw new Error(\`no runs of the harness "\${harness}" to compare\`);
    const byTask = new Map<string, number>();
    for (const task of new Set(own.map((r) => r.task))) {
      const runs = own.filter((r) => r.task === task);
      byTask.set(task, runs.filter((r) => r.passed).length / runs.length);
    }
    return byTask;
  };
  const ofA = shares(a);
  const ofB = shares(b);
  const both = [...ofA.keys()].filter((task) => ofB.has(task)).sort();
  const aBetter = both.filter((task) => ofA.get(task)! > ofB.get(task)!);
  const bBetter = both.filter((task) => ofB.get(task)! > ofA.get(task)!);
  const ties = both.filter((task) => ofA.get(task) === ofB.get(task));
  return { a, b, aBetter, bBetter, ties, pValue: signTest(aBetter.length, bBetter.length) };
}

/** The chance of a split at least this uneven between wins and losses if each were a fair coin:
 *  twice the smaller tail of the binomial(wins + losses, ½), at most 1. */
export function signTest(wins: number, losses: number): number {
  const m = wins + losses;
  let term = 1; // C(m, 0)
  let tail = 0;
  for (let i = 0; i <= Math.min(wins, losses); i++) {
    tail += term;
    term = (term * (m - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** m);
}
// #endregion numbers`;

export const exercises: Exercise<S | M>[] = [
  {
    id: "a6",
    kind: "rebuild",
    file: "stats.ts",
    blanks: [
      {
        name: "passAtK",
        contract: [
          "The chance that at least one of k tries passes, estimated without bias from n trials of",
          "which c passed: the share of the C(n, k) ways to pick k of the n trials that hold at least",
          "one pass (choose(n, k) counts them). Bad counts are an error: call checkCounts first.",
        ].join("\n"),
      },
      {
        name: "passHatK",
        contract: [
          "The chance that all k tries pass, from n trials of which c passed: the share of the",
          "C(n, k) ways to pick k of the n trials that hold only passes. Bad counts are an error.",
        ].join("\n"),
      },
      {
        name: "wilson",
        contract: [
          "The Wilson score interval around a rate observed on n: every p for which",
          "(rate − p)² ≤ z²·p(1 − p)/n, so its ends are the two roots of that quadratic in p. At",
          "rate 0 the low end is exactly 0, at rate 1 the high end exactly 1. An n below 1 (or NaN)",
          "and a rate outside [0, 1] (or NaN) are errors that say what is wrong.",
        ].join("\n"),
      },
    ],
    checks: [passAtKCounts, passHatKCounts, manyTrials, wilsonInterval, badInputRefused],
  },
  {
    id: "a6.2",
    kind: "extend",
    file: "agent.ts",
    solution: { numbers: change("// #endregion numbers", COMPARISON) },
    checks: [pairedByTask, signTestExact, unknownHarnessRefused],
  },
];
