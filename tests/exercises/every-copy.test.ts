// Every exercise as a learner gets it and as the reference answer leaves it, as TypeScript sees it
// (the checker's own type check: typeErrorsOf, whose case of one copy is the typeErrors() that
// --check runs beside the checks). The untouched starting
// copy must typecheck: a type error there is in code the learner never edits (s13's copy once had
// two, because the chapter's extension-points.ts typed its `Team` from the chapter's agent.ts, not
// the copy). The reference answer must typecheck too, or --check fails it whatever its checks say.
// That its checks pass is each chapter's suite (tests/exercises/<chapter>.test.ts: every check
// on the reference answer), and --check's whole path (check processes, verdict, exit code) is
// tests/exercises/cli.test.ts's; this file holds that every chapter has that suite.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { applySolution, startExercise } from "../../chapters/_exercises/workbench.ts";
import * as inLine from "../../chapters/_exercises/typecheck.js";
import { budget } from "../support/budgets.ts";
import { typeCheckThread } from "../support/typecheck-thread.ts";
import { tempDir } from "../support/helpers.ts";

const WORKBENCHES = path.join(REPO_ROOT, ".workspace", "exercise-tests");

// The checker's typeErrorsOf (chapters/_exercises/typecheck.js; typeErrors is its case of one
// copy), in a thread of its own with one parse cache for the file: tens of seconds of type
// checking in-line would keep the worker from answering vitest (tests/support/typecheck-thread.ts).
const { typeErrors, typeErrorsOf, close } = typeCheckThread();
afterAll(close);

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
    // All 98 copies are made first and checked together (typeErrorsOf): the files they share are
    // parsed once, and bound and typed once per program rather than once per copy. In a thread
    // of its own (tests/support/typecheck-thread.ts): it is the longest piece of work of the
    // suite, and the worker must go on answering vitest meanwhile.
    const found = new Map<string, string[]>();
    beforeAll(
      async () => {
        const copies = EXERCISES.flatMap(({ id }) => {
          const start = copyOf(id);
          const answer = copyOf(id);
          applySolution(answer.exercise, answer.chapter, answer.file);
          return [
            { key: `${id} start`, ...start },
            { key: `${id} answer`, ...answer },
          ];
        });
        const errors = await typeErrorsOf(copies, 20);
        copies.forEach(({ key }, i) => found.set(key, errors[i]));
      },
      budget({ cli: 8 }),
    );

    for (const { id } of EXERCISES) {
      it(`${id}: the starting copy has no type error`, () => {
        expect(found.get(`${id} start`)).toEqual([]);
      });

      it(`${id}: the reference answer has no type error`, () => {
        expect(found.get(`${id} answer`)).toEqual([]);
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

describe("copies checked together", { timeout: budget({ cli: 4 }) }, () => {
  it("each gets the errors it gets alone, though one reads the lesson another stands in for", async () => {
    // s03's agent imports normalizeMessages from s02's: checked alone, s03's copy reads s02's
    // lesson, so a copy of s02 that renamed it must not be what s03's copy sees.
    const s02 = copyOf("s02");
    writeFileSync(
      s02.file,
      readFileSync(s02.file, "utf8").replace(
        "export function normalizeMessages(",
        "export function normalizeMessagesRenamed(",
      ),
    );
    const s03 = copyOf("s03");
    const apart = [
      await typeErrors(s02.file, s02.lesson, 20),
      await typeErrors(s03.file, s03.lesson, 20),
    ];
    expect(apart[0].join("\n")).toMatch(/normalizeMessages/); // the renamed copy's own uses
    expect(apart[1]).toEqual([]);
    expect(await typeErrorsOf([s02, s03], 20)).toEqual(apart);
    expect(await typeErrorsOf([s03, s02], 20)).toEqual([apart[1], apart[0]]);
  });

  it("a copy that declares a global, or is no module, changes nothing another copy gets", async () => {
    // Alone, s04's copy does not know `leaked`; a program shared with s03's copy, whose
    // `declare global` adds it, would know it.
    const declares = copyOf("s03");
    writeFileSync(
      declares.file,
      `${readFileSync(declares.file, "utf8")}\ndeclare global {\n  var leaked: number;\n}\n`,
    );
    const script = copyOf("s05");
    writeFileSync(script.file, "const shared = 1;\n"); // a script: its names are global
    const uses = copyOf("s04");
    writeFileSync(
      uses.file,
      `${readFileSync(uses.file, "utf8")}\nexport const seen: number = leaked + shared;\n`,
    );
    const apart = await Promise.all(
      [declares, script, uses].map((c) => typeErrors(c.file, c.lesson, 20)),
    );
    expect(apart[2].join("\n")).toMatch(/Cannot find name 'leaked'/);
    expect(await typeErrorsOf([declares, script, uses], 20)).toEqual(apart);
  });

  it("the rule, on generated cases: copies checked together get what each gets alone", async () => {
    // Which copies (chapters that import one another: s01 ← s02 ← s03 and a2, s13 ← s13's own
    // files), each the start or the answer, each changed in a way that could leak: its exported
    // functions renamed, a global declared, a script, a type error, or a use of that global.
    const ids = ["s01", "s02", "s03", "s13", "s13.1", "a2"];
    const change = fc.oneof(
      { arbitrary: fc.constantFrom("none", "wrong", "script"), weight: 1 },
      { arbitrary: fc.constantFrom("rename", "global", "uses"), weight: 2 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ id: fc.constantFrom(...ids), answer: fc.boolean(), change }), {
          minLength: 2,
          maxLength: 5,
        }),
        async (picked) => {
          const copies = picked.map(({ id, answer, change }) => {
            const copy = copyOf(id);
            if (answer) applySolution(copy.exercise, copy.chapter, copy.file);
            const text = readFileSync(copy.file, "utf8");
            const changed = {
              none: text,
              rename: text.replace(/export function (\w+)\(/g, "export function $1Renamed("),
              global: `${text}\ndeclare global {\n  var leaked: number;\n}\n`,
              script: "const leaked = 1;\n",
              wrong: `${text}\nconst wrong: number = "text";\n`,
              uses: `${text}\nexport const seen: number = leaked;\n`,
            }[change];
            writeFileSync(copy.file, changed);
            return copy;
          });
          const apart = await Promise.all(copies.map((c) => typeErrors(c.file, c.lesson, 20)));
          expect(await typeErrorsOf(copies, 20)).toEqual(apart);
        },
      ),
      { seed: 7, numRuns: 10 },
    );
  });

  it("two copies of one lesson are checked apart, each standing in for it", async () => {
    // s13's extension-points.ts imports the lesson, so the two cannot share a program.
    const start = copyOf("s13");
    const broken = copyOf("s13");
    writeFileSync(
      broken.file,
      `${readFileSync(broken.file, "utf8")}\nconst wrong: number = "text";\n`,
    );
    const [clean, wrong] = await typeErrorsOf([start, broken], 20);
    expect(clean).toEqual([]);
    expect(wrong).toEqual(await typeErrors(broken.file, broken.lesson, 20));
    expect(wrong.join("\n")).toMatch(/not assignable to type 'number'/);
    expect(wrong).toHaveLength(1);
    // The thread answers what the checker's own function answers in-line (the tests above compare
    // the thread with itself).
    expect([clean, wrong]).toEqual(inLine.typeErrorsOf([start, broken], 20));
  });
});
