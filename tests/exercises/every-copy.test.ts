// Every exercise as a learner gets it and as the reference answer leaves it, as TypeScript sees it
// (the checker's own typeErrors(), which --check runs beside the checks). The untouched starting
// copy must typecheck: a type error there is in code the learner never edits (s13's copy once had
// two, because the chapter's extension-points.ts typed its `Team` from the chapter's agent.ts, not
// the copy). The reference answer must typecheck too, or --check fails it whatever its checks say.
// That its checks pass is each chapter's suite (tests/exercises/<chapter>.test.ts: every check
// on the reference answer), and --check's whole path (check processes, verdict, exit code) is
// tests/exercises/cli.test.ts's; this file holds that every chapter has that suite.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { typeErrors, type ParsedFiles } from "../../chapters/_exercises/typecheck.js";
import { applySolution, startExercise } from "../../chapters/_exercises/workbench.ts";
import { budget } from "../support/budgets.ts";
import { tempDir } from "../support/helpers.ts";

const WORKBENCHES = path.join(REPO_ROOT, ".workspace", "exercise-tests");

function copyOf(id: string) {
  const exercise = EXERCISES.find((e) => e.id === id)!;
  const chapter = findChapter(chapterOf(id))!;
  mkdirSync(WORKBENCHES, { recursive: true });
  const { file } = startExercise(exercise, chapter, tempDir("every-", WORKBENCHES));
  return { exercise, chapter, file, lesson: path.join(chapter.dir, exercise.file) };
}

describe(
  "every exercise's starting copy and reference answer",
  { timeout: budget({ cli: 4 }) },
  () => {
    // The files every copy shares, parsed once for all of them, then let go of: the worker goes
    // on to other files, and a process that holds hundreds of megabytes starts children slowly.
    const parsed: ParsedFiles = new Map();
    afterAll(() => parsed.clear());

    for (const { id } of EXERCISES) {
      it(`${id}: the starting copy has no type error`, () => {
        const { file, lesson } = copyOf(id);
        expect(typeErrors(file, lesson, 20, parsed)).toEqual([]);
      });

      it(`${id}: the reference answer has no type error`, () => {
        const { exercise, chapter, file, lesson } = copyOf(id);
        applySolution(exercise, chapter, file);
        expect(typeErrors(file, lesson, 20, parsed)).toEqual([]);
      });
    }

    it("every chapter with exercises has its suite, which runs every check on the reference answer", () => {
      for (const chapter of new Set(EXERCISES.map((e) => chapterOf(e.id)))) {
        const suite = path.join(REPO_ROOT, "tests", "exercises", `${chapter}.test.ts`);
        expect(existsSync(suite), suite).toBe(true);
        expect(readFileSync(suite, "utf8")).toContain(`exerciseSuite("${chapter}"`);
      }
    });
  },
);
