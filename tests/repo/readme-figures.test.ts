// Figures the README states about the project are checked against the code (issue 33). The
// exercise table (tests/mutation/table.ts): which exercises each chapter has, how many checks, and
// the mutation score `npm run mutation` measured, with its date. A table typed by hand goes stale
// the day a check is added; this one fails instead, showing the rows to paste.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { exerciseTable, TABLE_HEADER } from "../mutation/table.ts";

describe("the README's figures", () => {
  it("the exercise table is the code's: exercises, checks and measured mutation scores", () => {
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    const at = readme.indexOf(TABLE_HEADER);
    expect(at, `README.md has no line ${TABLE_HEADER}`).toBeGreaterThan(-1);
    const lines = readme.slice(at).split("\n").slice(2);
    const table = lines.slice(
      0,
      lines.findIndex((l) => !l.startsWith("|")),
    );
    expect(table.join("\n")).toBe(exerciseTable().join("\n"));
  });
});
