// The order a wrong answer's checks run in (tests/support/exercises.ts): its recorded catcher
// (tests/exercises/catchers/) first, then the quickest on the reference answer. Only speed rides
// on it, but a check left out or run twice would change what a wrong answer's test proves.
import { describe, expect, it } from "vitest";
import { fc } from "../../chapters/_exercises/property.ts";
import { findExercise } from "../../chapters/_exercises/catalog.ts";
import { checkCopy, checkOrder } from "../support/exercises.ts";

describe("the order of a wrong answer's checks", () => {
  it("is every check once: the catcher first, then by time taken, ties in the exercise's order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f"), { minLength: 1 }),
        fc.array(fc.option(fc.nat(5), { nil: undefined })),
        fc.option(fc.constantFrom("a", "b", "c", "d", "e", "f", "gone"), { nil: undefined }),
        (picked, times, first) => {
          const ids: string[] = picked;
          const checks = ids.map((id) => ({ id }));
          const took = times as number[]; // a hole: a check not timed
          const order = checkOrder(checks, took, first).map((c) => c.id);
          expect([...order].sort()).toEqual([...ids].sort());
          const rest = ids.includes(first!) ? order.slice(1) : order;
          if (ids.includes(first!)) expect(order[0]).toBe(first);
          const time = (id: string) => took[ids.indexOf(id)] ?? Infinity;
          for (let i = 1; i < rest.length; i++) {
            const [before, after] = [rest[i - 1], rest[i]];
            expect(time(before)).toBeLessThanOrEqual(time(after));
            if (time(before) === time(after))
              expect(ids.indexOf(before)).toBeLessThan(ids.indexOf(after));
          }
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });

  it("is the order checkCopy runs them in", async () => {
    const exercise = findExercise("s01")!;
    const ids = exercise.checks.map((c) => c.id);
    const slowestFirst = ids.map((_, i) => ids.length - i); // the last check the quickest
    const results = await checkCopy(exercise, () => {}, {
      cheapestFirst: slowestFirst,
      tryFirst: ids[1],
    });
    expect(results.map((r) => r.id)).toEqual([
      ids[1],
      ...ids.filter((id) => id !== ids[1]).reverse(),
    ]);
  });
});
