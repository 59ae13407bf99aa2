// The README's exercise table, from the code: which exercises each chapter has, how many checks,
// and the mutation score `npm run mutation` measured for its rebuild (tests/mutation/scores.json).
// tests/repo/readme-figures.test.ts holds the README to it; `npm run mutation` prints it to paste.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";

export const TABLE_HEADER = "| chapter | exercises | checks | mutation score of the rebuild |";

interface Score {
  killed: number;
  survived: number;
  equivalent: number;
  wording?: number;
  score: number;
  measured: string;
}

export const SCORES_FILE = path.join(REPO_ROOT, "tests", "mutation", "scores.json");

export function readScores(): Record<string, Score> {
  return existsSync(SCORES_FILE) ? JSON.parse(readFileSync(SCORES_FILE, "utf8")) : {};
}

/** The table's rows (without its header): one per chapter, then the totals. */
export function exerciseTable(scores = readScores()): string[] {
  const chapters = [...new Set(EXERCISES.map((e) => chapterOf(e.id)))];
  const rebuilds = EXERCISES.filter((e) => e.kind === "rebuild");
  const mutation = (id: string) => {
    const s = scores[id];
    if (!s) return "not measured yet";
    const equivalent = s.equivalent ? `, ${s.equivalent} equivalent` : "";
    const wording = s.wording ? `, ${s.wording} rewording a message` : "";
    return `${s.score}% (${s.killed} of ${s.killed + s.survived} killed${equivalent}${wording}; ${s.measured})`;
  };
  const rows = chapters.map((chapter) => {
    const own = EXERCISES.filter((e) => chapterOf(e.id) === chapter);
    const checks = own.reduce((n, e) => n + e.checks.length, 0);
    const rebuild = own.find((e) => e.kind === "rebuild");
    return `| ${chapter} | ${own.map((e) => e.id).join(", ")} | ${checks} | ${rebuild ? mutation(rebuild.id) : "—"} |`;
  });
  const measured = rebuilds.filter((e) => scores[e.id]).length;
  const checks = EXERCISES.reduce((n, e) => n + e.checks.length, 0);
  return [
    ...rows,
    `| all | ${EXERCISES.length} exercises | ${checks} | ${measured} of ${rebuilds.length} rebuilds measured |`,
  ];
}
