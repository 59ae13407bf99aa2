// The numbers of an eval, and how sure we may be of them.
//
// Per task we have n trials of which c passed. Three rates come from that:
//   pass@1  c / n: how often one try succeeds.
//   pass@k  the chance that at least one of k tries succeeds. The unbiased estimator from n ≥ k
//           trials (Chen et al. 2021, the Codex paper): 1 − C(n−c, k) / C(n, k). It is not
//           1 − (1 − c/n)^k, which is biased when n is small.
//   pass^k  the chance that all k tries succeed (τ-bench, Yao et al. 2024): C(c, k) / C(n, k).
// pass@k says what a person who retries gets; pass^k what an unattended harness gets every time.
// A harness's rate is the mean of its tasks' rates: each task weighs the same.

/** C(n, k) as a float; exact for the small n an eval uses. */
export function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

function checkCounts(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k))
    throw new Error(`n, c and k must be whole numbers (n=${n}, c=${c}, k=${k})`);
  if (n < 1 || c < 0 || c > n) throw new Error(`need 0 ≤ c ≤ n and n ≥ 1 (n=${n}, c=${c})`);
  if (k < 1 || k > n) throw new Error(`need 1 ≤ k ≤ n (n=${n}, k=${k}): run at least k trials`);
}

// #region estimators
/** At least one of k tries passes, estimated without bias from n trials with c passes. */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  if (n - c < k) return 1; // every set of k trials contains a pass
  return 1 - choose(n - c, k) / choose(n, k);
}

/** All k tries pass, estimated from n trials with c passes. */
export function passHatK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  return choose(c, k) / choose(n, k);
}
// #endregion estimators

export interface Interval {
  low: number;
  high: number;
}

const Z95 = 1.959963984540054;

// #region interval
/** The Wilson score interval for a proportion p̂ of n (95 %). Chosen over the textbook
 *  p̂ ± 1.96·√(p̂(1−p̂)/n) because that one collapses to a zero-width interval at 0/12 and 12/12
 *  and spills below 0 or above 1 near them, exactly where a small eval lives; Wilson's stays
 *  inside [0, 1] and still says "12 of 12 could be a 76 % harness". */
export function wilson(rate: number, n: number, z = Z95): Interval {
  if (!(n >= 1)) throw new Error(`an interval needs at least one observation, not ${n}`);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`a rate is between 0 and 1, not ${rate}`);
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (rate + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  // At 0 and 1 the bounds are exactly 0 and 1; floating point would leave a 1e-17 there.
  return {
    low: rate === 0 ? 0 : Math.max(0, center - half),
    high: rate === 1 ? 1 : Math.min(1, center + half),
  };
}
// #endregion interval

/** mulberry32: a small seeded generator, so the same seed gives the same interval. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A percentile bootstrap over tasks (95 %): resample the tasks with replacement, take the mean,
 *  repeat, keep the middle 95 %. Used for pass@k and pass^k, which are means of per-task
 *  estimates rather than counts of successes: the tasks are what we sampled, so they are what
 *  we resample. Seeded, so the results file is the same every run. */
export function bootstrap(values: number[], seed: number, rounds = 2000): Interval {
  if (values.length === 0) throw new Error("an interval needs at least one task");
  const random = seeded(seed);
  const means: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let total = 0;
    for (let i = 0; i < values.length; i++) total += values[Math.floor(random() * values.length)];
    means.push(total / values.length);
  }
  means.sort((a, b) => a - b);
  return { low: means[Math.floor(rounds * 0.025)], high: means[Math.ceil(rounds * 0.975) - 1] };
}

export const mean = (values: number[]) =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
