// How the exercises' checks are shown to be worth trusting (tests/exercises/): for every exercise
// of a chapter, its checks pass on the reference answer, fail on what the learner starts from (the
// stub of a rebuild, the unextended chapter of an extend) and fail on each plausible wrong answer
// (a mutant: the reference region with one mistake a learner could make). Each copy is made in a
// workbench of the test's own and imported in-process; `npm run exercise -- --check` runs the same
// checks in a child process (tests/exercises/cli.test.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
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

/** Which check catches each wrong answer, as `npm run catchers` last found it: the check that
 *  failed on it soonest, out of every check run to its end. A wrong answer's test tries that check
 *  first, then the rest quickest first. Only the order comes from here: an entry missing or out of
 *  date costs time, never a verdict (the test still asks that some check fails). */
const CATCHERS = path.join(REPO_ROOT, "tests", "exercises", "catchers");
/** exercise id → wrong answer → the id of the check that catches it. */
type Catchers = Record<string, Record<string, string>>;
const catchersFile = (chapterId: string) => path.join(CATCHERS, `${chapterId}.json`);
const catchersOf = (chapterId: string): Catchers =>
  existsSync(catchersFile(chapterId))
    ? (JSON.parse(readFileSync(catchersFile(chapterId), "utf8")) as Catchers)
    : {};
/** Set by `npm run catchers` (tests/exercises/record-catchers.ts): every wrong answer runs every
 *  check, and each chapter's file above is written anew. */
const RECORDING_CATCHERS = process.env.LAH_RECORD_CATCHERS === "1";

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

/** The order a wrong answer's checks run in: the one with the id `first` (its recorded catcher),
 *  then the rest by what each took on the reference answer (`took`, by index; one not timed
 *  last), checks that took the same keeping the exercise's order. */
export function checkOrder<C extends { id: string }>(
  checks: readonly C[],
  took: readonly number[] = [],
  first?: string,
): C[] {
  const key = (i: number) => (checks[i].id === first ? -Infinity : (took[i] ?? Infinity));
  return checks
    .map((_, i) => i)
    .sort((a, b) => key(a) - key(b) || a - b)
    .map((i) => checks[i]);
}

/** Every check's result for a copy of the exercise, after `edit` changed the started copy; with
 *  `untilFailed`, the results up to the first check that fails (a wrong answer needs no more);
 *  with `only`, the results of the checks with those ids, in the exercise's order (a test about
 *  what one check says need not run the others). */
export async function checkCopy(
  exercise: Exercise,
  edit: (file: string) => void,
  {
    untilFailed = false,
    everyCheck = false,
    only,
    signal,
    cheapestFirst,
    tryFirst,
  }: {
    /** Results up to the first check that fails, and that failure unshrunk: a wrong answer
     *  needs no more (which check finds it, and with which case, does not matter). */
    untilFailed?: boolean;
    /** With untilFailed, every check to its end all the same, failures unshrunk (`npm run
     *  catchers` asks which fails soonest). */
    everyCheck?: boolean;
    only?: string[];
    /** How long each check took on the reference answer, by its index: the checks then run
     *  quickest first (a wrong answer needs one failed check; which one finds it does not matter). */
    cheapestFirst?: number[];
    /** The id of a check to run before all the others (the wrong answer's recorded catcher). */
    tryFirst?: string;
    /** The test's own (vitest's context.signal): when it times out, the checks stop at the next
     *  case instead of running on beside the next test of the worker. */
    signal?: AbortSignal;
  } = {},
): Promise<(CheckResult & { id: string; ms: number })[]> {
  const unknown = only?.filter((id) => !exercise.checks.some((c) => c.id === id)) ?? [];
  if (unknown.length) throw new Error(`${exercise.id} has no check ${unknown.join(", ")}`);
  if (only) exercise = { ...exercise, checks: exercise.checks.filter((c) => only.includes(c.id)) };
  if (cheapestFirst || tryFirst)
    exercise = { ...exercise, checks: checkOrder(exercise.checks, cheapestFirst, tryFirst) };
  const chapter = findChapter(chapterOf(exercise.id))!;
  // Inside the repository (git-ignored .workspace/), where vitest's loader imports TypeScript.
  mkdirSync(WORKBENCHES, { recursive: true });
  const { file } = startExercise(exercise, chapter, tempDir("bench-", WORKBENCHES));
  edit(file);
  const module: unknown = await import(pathToFileURL(file).href);
  const results: (CheckResult & { id: string; ms: number })[] = [];
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
        results.push({ ...r, id: exercise.checks[r.index].id, ms: performance.now() - started });
        started = performance.now();
        return (untilFailed && !everyCheck && !r.ok) || signal?.aborted ? "enough" : undefined;
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
  const catchers = catchersOf(chapterId);
  const found: Catchers = {};
  if (RECORDING_CATCHERS)
    afterAll(() => {
      mkdirSync(CATCHERS, { recursive: true });
      writeFileSync(catchersFile(chapterId), JSON.stringify(found, null, 2) + "\n");
    });
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
      it("its recorded catchers name its own wrong answers and checks", () => {
        const recorded = Object.entries(catchers[exercise.id] ?? {});
        const gone = recorded.filter(([name]) => !wrong.some(([w]) => w === name));
        const noCheck = recorded.filter(([, id]) => !exercise.checks.some((c) => c.id === id));
        expect(
          gone.map(([name]) => name),
          "wrong answers no longer here (npm run catchers writes the file anew)",
        ).toEqual([]);
        expect(
          noCheck.map(([, id]) => id),
          "checks no longer here (npm run catchers writes the file anew)",
        ).toEqual([]);
      });
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
            {
              untilFailed: true,
              everyCheck: RECORDING_CATCHERS,
              signal,
              cheapestFirst: took,
              tryFirst: catchers[exercise.id]?.[name],
            },
          );
          if (RECORDING_CATCHERS) {
            const soonest = results.filter((r) => !r.ok).sort((a, b) => a.ms - b.ms)[0];
            if (soonest) (found[exercise.id] ??= {})[name] = soonest.id;
          }
          expect(results.filter((r) => !r.ok).length, "no check failed").toBeGreaterThan(0);
          expect(
            results.every((r) => r.ok || !("thrown" in r)),
            "a check crashed",
          ).toBe(true);
        });
    });
  }
}
