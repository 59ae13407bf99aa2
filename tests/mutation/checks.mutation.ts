// The test suite Stryker runs for one exercise (npm run mutation): that exercise's checks, against
// the chapter's own reference file, which Stryker has mutated inside the blanks' bodies. Named
// *.mutation.ts so `npm test` never collects it; tests/mutation/vitest.config.ts does.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { it } from "vitest";
import { chapterOf, findExercise } from "../../chapters/_exercises/catalog.ts";
import { checkKit } from "../../chapters/_exercises/kit.ts";
import { findChapter } from "../../chapters/_runner/discovery.js";

const id = process.env.MUTATION_EXERCISE ?? "";
const exercise = findExercise(id);
const chapter = findChapter(chapterOf(id));
if (!exercise || !chapter) throw new Error(`MUTATION_EXERCISE: no exercise "${id}"`);

const module: unknown = await import(pathToFileURL(path.join(chapter.dir, exercise.file)).href);

for (const check of exercise.checks)
  it(
    check.id,
    async () => {
      const kit = checkKit();
      try {
        await check.run(module as never, kit);
      } finally {
        kit.cleanUp();
      }
    },
    check.limitMs ?? 10_000,
  );
