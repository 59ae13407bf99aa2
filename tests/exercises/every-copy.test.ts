// SLOW (minutes: it checks all 39 exercises twice): every exercise as a learner gets it and as the
// reference answer leaves it, through the checker's own verdict (what `--check` prints and exits
// by). The untouched starting copy must typecheck: a type error there is in code the learner never
// edits (s13's copy once had two, because the chapter's extension-points.ts typed its `Team` from
// the chapter's agent.ts, not the copy). The reference answer must pass: every check, no type
// error, so `--check` exits 0. Run alone: npx vitest run tests/exercises/every-copy.test.ts
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { verdictOf } from "../../chapters/_exercises/check.ts";
import { typeErrors } from "../../chapters/_exercises/typecheck.ts";
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
  "[slow] every exercise's starting copy and reference answer",
  { timeout: budget({ cli: 20 }) },
  () => {
    for (const { id } of EXERCISES) {
      it(`${id}: the starting copy has no type error`, () => {
        const { file, lesson } = copyOf(id);
        expect(typeErrors(file, lesson, 20)).toEqual([]);
      });

      it(`${id}: the reference answer passes --check (every check, no type error)`, async () => {
        const { exercise, chapter, file, lesson } = copyOf(id);
        applySolution(exercise, chapter, file);
        // The checker's verdict, with its type check run here rather than in a child: the same
        // typeErrors() the child runs, keeping the files every copy shares parsed between copies.
        // It runs before the checks start, so it never holds up their time limits.
        const types = typeErrors(file, lesson, 5);
        const verdict = await verdictOf(exercise, file, lesson, () => Promise.resolve(types));
        expect(verdict.typeErrors).toEqual([]);
        expect(verdict.outcomes.filter((o) => !o.ok)).toEqual([]);
        expect(verdict.pass).toBe(true);
      });
    }
  },
);
