// How the exercises' checks are shown to be worth trusting (tests/exercises/): for every exercise
// of a chapter, its checks pass on the reference answer, fail on what the learner starts from (the
// stub of a rebuild, the unextended chapter of an extend) and fail on each plausible wrong answer
// (a mutant: the reference region with one mistake a learner could make). Each copy is made in a
// workbench of the test's own and imported in-process; `npm run exercise -- --check` runs the same
// checks in a child process (tests/exercises/cli.test.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { checkKit, type Exercise } from "../../chapters/_exercises/kit.ts";
import { runChecksOn, type CheckResult } from "../../chapters/_exercises/run-checks.ts";
import { shrinkFailures, stopChecksWhen } from "../../chapters/_exercises/property.ts";
import {
  applySolution,
  regionText,
  replaceRegions,
  startExercise,
} from "../../chapters/_exercises/workbench.ts";
import { tempDir } from "./helpers.ts";

const WORKBENCHES = path.join(REPO_ROOT, ".workspace", "exercise-tests");

/** A mutant's change: `from` replaced by `to` in the region (an error if `from` is not there,
 *  so a mutant cannot silently change nothing after the code moves). */
export const swap = (from: string, to: string) => (region: string) => {
  if (!region.includes(from)) throw new Error(`the mutant's text is not in the region: ${from}`);
  return region.replace(from, to);
};

/** Several changes to one region, in order. */
export const both =
  (...changes: ((region: string) => string)[]) =>
  (region: string) =>
    changes.reduce((text, change) => change(text), region);

/** A wrong answer: for each region it changes, the reference region → the mistaken one. */
export type Mutant = Record<string, (reference: string) => string>;

/** Every check's result for a copy of the exercise, after `edit` changed the started copy; with
 *  `untilFailed`, the results up to the first check that fails (a wrong answer needs no more);
 *  with `only`, the results of the checks with those ids, in the exercise's order (a test about
 *  what one check says need not run the others). */
export async function checkCopy(
  exercise: Exercise,
  edit: (file: string) => void,
  {
    untilFailed = false,
    only,
    signal,
    cheapestFirst,
  }: {
    /** Results up to the first check that fails, and that failure unshrunk: a wrong answer
     *  needs no more (which check finds it, and with which case, does not matter). */
    untilFailed?: boolean;
    only?: string[];
    /** How long each check took on the reference answer, by its index: the checks then run
     *  quickest first (a wrong answer needs one failed check; which one finds it does not matter). */
    cheapestFirst?: number[];
    /** The test's own (vitest's context.signal): when it times out, the checks stop at the next
     *  case instead of running on beside the next test of the worker. */
    signal?: AbortSignal;
  } = {},
): Promise<(CheckResult & { ms: number })[]> {
  const unknown = only?.filter((id) => !exercise.checks.some((c) => c.id === id)) ?? [];
  if (unknown.length) throw new Error(`${exercise.id} has no check ${unknown.join(", ")}`);
  if (only) exercise = { ...exercise, checks: exercise.checks.filter((c) => only.includes(c.id)) };
  if (cheapestFirst) {
    const took = (i: number) => cheapestFirst[i] ?? Infinity;
    const order = exercise.checks.map((_, i) => i).sort((a, b) => took(a) - took(b));
    exercise = { ...exercise, checks: order.map((i) => exercise.checks[i]) };
  }
  const chapter = findChapter(chapterOf(exercise.id))!;
  // Inside the repository (git-ignored .workspace/), where vitest's loader imports TypeScript.
  mkdirSync(WORKBENCHES, { recursive: true });
  const { file } = startExercise(exercise, chapter, tempDir("bench-", WORKBENCHES));
  edit(file);
  const module: unknown = await import(pathToFileURL(file).href);
  const results: (CheckResult & { ms: number })[] = [];
  stopChecksWhen(signal);
  shrinkFailures(!untilFailed);
  let started = performance.now();
  try {
    await runChecksOn(
      exercise,
      module,
      file,
      checkKit(() => tempDir("lah-ws-")),
      (r) => {
        results.push({ ...r, ms: performance.now() - started });
        started = performance.now();
        return (untilFailed && !r.ok) || signal?.aborted ? "enough" : undefined;
      },
    );
  } finally {
    shrinkFailures(true); // the worker's next file may be one that reads a shrunk case
  }
  return results;
}

const said = (r: CheckResult) => ("failure" in r ? r.failure.key : "thrown" in r ? r.thrown : "");

/** The suite for one chapter's exercises; `mutants` by exercise id, at least three per rebuild. */
export function exerciseSuite(chapterId: string, mutants: Record<string, Record<string, Mutant>>) {
  const chapter = findChapter(chapterId)!;
  for (const exercise of EXERCISES.filter((e) => chapterOf(e.id) === chapterId)) {
    describe(`exercise ${exercise.id} (${exercise.kind})`, () => {
      // What each check took on the reference answer: the wrong answers' runs try the quickest
      // first (run alone, a wrong answer's test keeps the exercise's order).
      let took: number[] | undefined;
      it("passes every check on the reference answer", async ({ signal }) => {
        const results = await checkCopy(
          exercise,
          (file) => applySolution(exercise, chapter, file),
          {
            signal,
          },
        );
        expect(results.filter((r) => !r.ok).map(said)).toEqual([]);
        expect(results).toHaveLength(exercise.checks.length);
        took = results.map((r) => r.ms);
      });

      if (exercise.kind === "rebuild")
        it("fails every check on the untouched stub, as not started", async ({ signal }) => {
          const results = await checkCopy(exercise, () => {}, { signal });
          expect(results.map((r) => r.ok || "notStarted" in r)).toEqual(
            exercise.checks.map(() => true),
          );
          expect(results.some((r) => r.ok)).toBe(false);
        });
      else
        it("fails a check on the chapter as it is, before the extension", async ({ signal }) => {
          const results = await checkCopy(exercise, () => {}, { signal });
          expect(results.some((r) => !r.ok)).toBe(true);
        });

      const wrong = Object.entries(mutants[exercise.id] ?? {});
      if (exercise.kind === "rebuild")
        it("has at least three mutants", () => expect(wrong.length).toBeGreaterThanOrEqual(3));
      for (const [name, mutant] of wrong)
        it(`catches a wrong answer: ${name}`, async ({ signal }) => {
          const results = await checkCopy(
            exercise,
            (file) => {
              applySolution(exercise, chapter, file);
              const answer = readFileSync(file, "utf8");
              const changed = replaceRegions(
                answer,
                Object.fromEntries(
                  Object.entries(mutant).map(([region, mutate]) => {
                    const before = regionText(answer, region);
                    const after = mutate(before);
                    if (after === before) throw new Error(`mutant "${name}" changes nothing`);
                    return [region, after];
                  }),
                ),
              );
              writeFileSync(file, changed);
            },
            { untilFailed: true, signal, cheapestFirst: took },
          );
          expect(results.filter((r) => !r.ok).length, "no check failed").toBeGreaterThan(0);
          expect(
            results.every((r) => r.ok || !("thrown" in r)),
            "a check crashed",
          ).toBe(true);
        });
    });
  }
}
