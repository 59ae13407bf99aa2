// A check that states a rule and tries it on many generated cases (fast-check), not on one
// scripted shape. The cases come from a fixed seed, so a learner who runs --check twice sees the
// same verdict; when a case breaks the rule, fast-check shrinks it to the smallest one that still
// does, and the check reports THAT case's failure — the CheckFailure the rule threw, whose values
// describe the case in the learner's words ("with 3 tool rounds your loop stopped after 2").
import fc from "fast-check";
import { NOT_STARTED } from "./kit.ts";

export { fc };

/** One seed for every property: a verdict does not change between two runs of --check. */
export const SEED = 31;

export interface ForAllOptions {
  /** How many cases to try (keep it modest: --check has 5 s for a whole exercise). */
  runs?: number;
  seed?: number;
}

/** Set by whoever runs checks in its own process (the exercises' tests): once it is aborted (the
 *  test timed out), a property started under it tries no more cases, so a check left behind does
 *  not go on running beside the next test. The checker's child process needs none: it is killed. */
let stopWhen: AbortSignal | undefined;
export function stopChecksWhen(signal: AbortSignal | undefined): void {
  stopWhen = signal;
}

/** Whether a failing case is shrunk to the smallest one that still fails: yes for a learner, whose
 *  hint describes that case. The exercises' tests of wrong answers only ask that some check fails,
 *  and shrinking was most of what a caught wrong answer cost (a4's swapped report: 3.4 s, of which
 *  0.7 s found the failure), so they turn it off while they run (tests/support/exercises.ts). */
let shrink = true;
export function shrinkFailures(on: boolean): void {
  shrink = on;
}

/** Tries `rule` on cases drawn from `cases`. Returns when it holds for all of them; otherwise
 *  throws what the rule threw on the smallest failing case (a CheckFailure, or the learner's own
 *  exception, which the checker reports as such). A stub's "not started" goes on up at once,
 *  without shrinking: there is nothing to learn from a smaller case. */
export async function forAll<T>(
  cases: fc.Arbitrary<T>,
  rule: (value: T) => Promise<void> | void,
  { runs = 25, seed = SEED }: ForAllOptions = {},
): Promise<void> {
  let notStarted: unknown;
  const stop = stopWhen;
  const details = await fc.check(
    fc.asyncProperty(cases, async (value) => {
      if (notStarted) return;
      if (stop?.aborted) throw new Error("the checks were stopped");
      try {
        await rule(value);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (message.includes(NOT_STARTED)) {
          notStarted = err;
          return;
        }
        throw err;
      }
    }),
    { numRuns: runs, seed, endOnFailure: !shrink },
  );
  if (notStarted) throw notStarted;
  if (details.failed) {
    if (details.errorInstance !== null && details.errorInstance !== undefined)
      throw details.errorInstance;
    throw new Error("the property could not be tried: no case could be made or it was cut short");
  }
}
