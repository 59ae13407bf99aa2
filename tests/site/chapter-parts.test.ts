// How a chapter page is cut into parts (site/lib/chapter-parts.ts), on the real pages: every
// runnable chapter has Learn, Run it, Code, Deep dive and Exercises in every locale, its translations cut the
// same way as its English page, and a part's URL says which part it is. The built pages are
// tests/browser/chapter-parts.browser.test.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { allRunnable, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { SEED } from "../../chapters/_exercises/property.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { LOCALES } from "../../i18n/locales.ts";
import {
  PARTS,
  partOfPath,
  partPath,
  partsOf,
  sectionParts,
  sectionsOf,
} from "../../site/lib/chapter-parts.ts";

const source = (name: string, locale: string) =>
  readFileSync(path.join(REPO_ROOT, "chapters", name, `${locale}.mdx`), "utf8");

describe("a chapter in parts", () => {
  const hasExercises = (id: string) => EXERCISES.some((e) => chapterOf(e.id) === id);

  it("every runnable chapter has its parts in every locale (four once it has exercises), cut as its English page is", () => {
    for (const chapter of allRunnable()) {
      const english = sectionParts(source(chapter.name, "en"));
      // Exercises is a part once the chapter has exercises.
      const parts = PARTS.filter((p) => p !== "exercises" || hasExercises(chapter.id));
      expect(partsOf(source(chapter.name, "en")), chapter.id).toEqual(parts);
      for (const locale of LOCALES)
        expect(sectionParts(source(chapter.name, locale)), `${chapter.id} ${locale}`).toEqual(
          english,
        );
      // the essay first: the problem and the mechanism are Learn's
      expect(english?.slice(0, 2), chapter.id).toEqual(["learn", "learn"]);
    }
  });

  it("a page without a player stays one page (the case study)", () => {
    const study = source("case-study-hierarchy", "en");
    expect(sectionsOf(study).length).toBeGreaterThan(5);
    expect(sectionParts(study)).toBeUndefined();
    expect(partsOf(study)).toEqual(["learn"]);
  });

  it("places a section by what it shows; headings in code and in a diagram's source are not sections", () => {
    const page = [
      "Intro.",
      "## The problem",
      "```md",
      "## not a section",
      "```",
      "## The mechanism",
      "<Mermaid code={`flowchart TD",
      "## not one either",
      "`} />",
      "## Scenario",
      "<Mermaid code={`sequenceDiagram",
      "  A->>B: hi`} />",
      "## How",
      '<Excerpt chapter="s01" region="loop" />',
      "## Design choices",
      "Prose about that code.",
      "## Try it",
      '<Player chapter="s01" />',
      "## Exercises",
      '<Exercises chapter="s01" />',
    ].join("\n");
    expect(sectionsOf(page).map((s) => s.heading)).toEqual([
      "The problem",
      "The mechanism",
      "Scenario",
      "How",
      "Design choices",
      "Try it",
      "Exercises",
    ]);
    expect(sectionParts(page)).toEqual([
      "learn",
      "learn",
      "run",
      "code",
      "deep-dive", // prose right after the code, last before the scenario: why the code is so
      "run",
      "exercises",
    ]);
  });

  it("keeps the prose that goes on explaining the code with it, and sends the last, the design choices, with what changed and the source", () => {
    const page = [
      "## The problem",
      "## How",
      '<Excerpt chapter="a6" region="verify" />',
      "## How to read the numbers",
      "Prose.",
      "## The results",
      '<EvalResults chapter="a6" />',
      "## Design choices",
      "Prose.",
      "## Try it",
      '<Player chapter="a6" />',
      "## What changed",
      '<Changes chapter="a6" />',
      "## The full source",
      '<Source chapter="a6" />',
    ].join("\n");
    expect(sectionParts(page)).toEqual([
      "learn",
      "code",
      "code",
      "code",
      "deep-dive",
      "run",
      "deep-dive",
      "deep-dive",
    ]);
  });

  test.prop(
    [
      fc.constantFrom("", "/learn-agent-harness"),
      fc.constantFrom("", "/ja", "/zh", "/de"),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      fc.constantFrom(...PARTS),
    ],
    { seed: SEED, numRuns: 100 },
  )("a part's URL names its chapter and its part", (base, locale, chapter, part) => {
    fc.pre(!(PARTS as readonly string[]).includes(chapter));
    const chapterPath = `${base}${locale}/${chapter}/`;
    expect(partOfPath(chapterPath + partPath(part))).toEqual({ chapterPath, part });
  });
});
