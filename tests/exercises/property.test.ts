// The property runner the exercises' checks use (chapters/_exercises/property.ts): a rule that
// holds passes; one that breaks reports the SMALLEST failing case's own failure, the same on every
// run; a stub's "not started" goes on up at once, without being shrunk.
import { describe, expect, it } from "vitest";
import { CheckFailure, expectThat, NOT_STARTED } from "../../chapters/_exercises/kit.ts";
import { fc, forAll, shrinkFailures, stopChecksWhen } from "../../chapters/_exercises/property.ts";

/** What forAll threw, or undefined. */
async function thrown(run: Promise<void>): Promise<unknown> {
  try {
    await run;
    return undefined;
  } catch (err) {
    return err;
  }
}

describe("forAll: a check's rule tried on generated cases", () => {
  it("returns when the rule holds for every case, having tried as many as asked", async () => {
    let tried = 0;
    await forAll(
      fc.nat(100),
      (n) => {
        tried++;
        expectThat(n <= 100, "too-big", { n });
      },
      { runs: 30 },
    );
    expect(tried).toBe(30);
  });

  it("tries no more cases once the signal it started under is aborted (a test that timed out)", async () => {
    const controller = new AbortController();
    stopChecksWhen(controller.signal);
    let tried = 0;
    const run = forAll(
      fc.nat(100),
      () => {
        if (++tried === 3) controller.abort();
      },
      { runs: 200 },
    );
    stopChecksWhen(undefined); // the next test's signal: the property keeps the one it started under
    const err = await thrown(run);
    expect(tried).toBe(3);
    expect((err as Error).message).toBe("the checks were stopped");
  });

  it("reports the smallest failing case, with the values that case gave its failure", async () => {
    // "with n tool rounds your loop stopped after 2": it breaks from 3 on; the report says 3.
    const rule = (rounds: number) =>
      expectThat(rounds < 3, "stopped-early", { rounds, calls: Math.min(rounds, 2) });
    const err = await thrown(forAll(fc.integer({ min: 0, max: 50 }), rule, { runs: 50 }));
    expect(err).toBeInstanceOf(CheckFailure);
    expect((err as CheckFailure).key).toBe("stopped-early");
    expect((err as CheckFailure).values).toEqual({ rounds: 3, calls: 2 });
  });

  it("with shrinking off (the wrong answers' tests), stops at the first failing case, tried once; back on, shrinks it", async () => {
    // The rule for any threshold t a wrong answer breaks from: off, the case that failed first is
    // the last one tried and the one reported; on, the report is t itself.
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), async (t) => {
        const tried: number[] = [];
        const rule = (rounds: number) => {
          tried.push(rounds);
          expectThat(rounds < t, "stopped-early", { rounds });
        };
        shrinkFailures(false);
        let err: unknown;
        try {
          err = await thrown(forAll(fc.integer({ min: 0, max: 50 }), rule, { runs: 50 }));
        } finally {
          shrinkFailures(true);
        }
        const first = tried.findIndex((n) => n >= t);
        if (first < 0) return; // no case broke it: nothing to report either way
        expect(tried).toHaveLength(first + 1);
        expect((err as CheckFailure).values).toEqual({ rounds: tried[first] });
        tried.length = 0;
        const shrunk = await thrown(forAll(fc.integer({ min: 0, max: 50 }), rule, { runs: 50 }));
        expect((shrunk as CheckFailure).values).toEqual({ rounds: t });
      }),
      { seed: 5, numRuns: 30 },
    );
  });

  it("gives the same verdict on every run (one seed)", async () => {
    const rule = (xs: number[]) =>
      expectThat(xs.reduce((a, b) => a + b, 0) < 40, "sum", { xs: xs.join(",") });
    const cases = fc.array(fc.nat(30), { maxLength: 6 });
    const first = await thrown(forAll(cases, rule));
    const second = await thrown(forAll(cases, rule));
    expect(first).toBeInstanceOf(CheckFailure);
    expect((second as CheckFailure).values).toEqual((first as CheckFailure).values);
  });

  it("passes the learner's own exception on (the checker reports it as thrown)", async () => {
    const err = await thrown(
      forAll(fc.nat(10), (n) => {
        if (n > 4) throw new TypeError("Cannot read properties of undefined (reading 'type')");
      }),
    );
    expect(err).toBeInstanceOf(TypeError);
  });

  it("lets a stub's not started go on up after one case, unshrunk", async () => {
    let tried = 0;
    const err = await thrown(
      forAll(fc.nat(10), () => {
        tried++;
        throw new Error(`${NOT_STARTED} claimTask`);
      }),
    );
    expect(String((err as Error).message)).toContain(NOT_STARTED);
    expect(tried).toBe(1);
  });
});
