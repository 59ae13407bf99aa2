// Figures the README states about the project are checked against the code (issue 33). The
// exercise table (tests/mutation/table.ts): which exercises each chapter has, how many checks, and
// the mutation score `npm run mutation` measured, with its date. A table typed by hand goes stale
// the day a check is added; this one fails instead, showing the rows to paste.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { performanceTable, readFigures } from "../bench/figures.ts";
import { exerciseTable, TABLE_HEADER } from "../mutation/table.ts";
import { SECRET_VARIABLES } from "../support/attack-sets.ts";
import { allRunnable } from "../../chapters/_runner/chapters.ts";

const readme = () => readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

describe("the README's figures", () => {
  it("the exercise table is the code's: exercises, checks and measured mutation scores", () => {
    const text = readme();
    const at = text.indexOf(TABLE_HEADER);
    expect(at, `README.md has no line ${TABLE_HEADER}`).toBeGreaterThan(-1);
    const lines = text.slice(at).split("\n").slice(2);
    const table = lines.slice(
      0,
      lines.findIndex((l) => !l.startsWith("|")),
    );
    expect(table.join("\n")).toBe(exerciseTable().join("\n"));
  });

  // The performance table is docs/bench.json's, as `npm run bench -- --save` last wrote it: every
  // figure with the day it was measured (tests/bench/figures.ts). A figure typed into the README
  // instead fails here.
  it("the performance table is the bench's saved figures, each with its date", () => {
    expect(readme()).toContain(performanceTable(readFigures()));
  });

  it("the chapters it counts are the runnable ones: the fifteen, then those after them", () => {
    const stated = readme().match(/\*\*(\d+) runnable chapters\*\*[^*]*\*\*(\d+) more\*\*/);
    expect(stated, "README.md names no count of chapters").not.toBeNull();
    const ids = allRunnable().map((c) => c.id);
    expect(Number(stated![1])).toBe(ids.filter((id) => id.startsWith("s")).length);
    expect(Number(stated![2])).toBe(ids.filter((id) => id.startsWith("a")).length);
  });

  it("the secret-bearing variables it counts are the ones the sandbox test tries", () => {
    const stated = readme().match(/(\d+) secret-bearing variables/);
    expect(stated, "README.md names no count of secret-bearing variables").not.toBeNull();
    expect(Number(stated![1])).toBe(Object.keys(SECRET_VARIABLES).length);
  });
});
