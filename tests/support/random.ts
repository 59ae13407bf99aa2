// Seeded randomness for the tests that pick random crash points and timings. A test reads its seed
// from an environment variable (a fresh one by default) and prints it, so a failing run can be
// replayed: CRASH_SEED=123 npx vitest run tests/reliability/crash-state.test.ts.
// No vitest import here: worker processes (tests/reliability/workers/) use it too.

/** mulberry32: a small, fast, seeded PRNG; numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed in `process.env[name]`, or a fresh random one. */
export function seedFrom(name: string): number {
  const given = process.env[name];
  if (given === undefined || given === "") return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isInteger(seed))
    throw new Error(`${name} must be a whole number, not ${JSON.stringify(given)}`);
  return seed;
}

/** What a test prints with its figures: `seed=<n> (replay with NAME=<n>)`. */
export const seedLine = (name: string, seed: number) =>
  `seed=${seed} (replay with ${name}=${seed})`;

/** A copy of `items` in a random order (Fisher–Yates), drawn from `rand`. */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
