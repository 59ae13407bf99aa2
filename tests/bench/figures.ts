// The README's performance table, generated: each row's figure is what `npm run bench -- --save`
// last measured (kept in docs/bench.json with the day and the machine's load), and the README
// holds exactly `performanceTable()`; tests/repo/readme-figures.test.ts checks that it does. A
// figure nobody re-measured keeps its old date, so the table says how old each number is.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";

export const FIGURES_FILE = path.join(REPO_ROOT, "docs", "bench.json");

/** One measured figure: the value as the table shows it, when, and how busy the machine was. */
export interface Figure {
  value: string;
  /** YYYY-MM-DD */
  measured: string;
  /** The 1-minute load average when the bench started (2 cores: above 2 means shared). */
  load?: number;
  /** The CPU-seconds of the reference loop on that machine when the bench started (bench.ts,
   *  `referenceLoop`): machines of one kind differ in speed (the same suite took 500 CPU-s on one
   *  and 990 on another, whose loop took 2.5 s), so a figure says how fast its machine was. */
  loop?: number;
}

/** The README's rows: what is measured, by which bench row (the id), and the target. */
export const PERFORMANCE_ROWS = [
  { id: "site-build", what: "clean site build (`astro build`)", target: "≤ 90 s" },
  {
    id: "page-html",
    what: "the largest chapter pages, HTML (checked for every page by `tests/site/site.test.ts`)",
    target: "≤ 400 KB (409,600 bytes)",
  },
  { id: "page-js", what: "chapter pages s01 and s13, JS once idle", target: "≤ 60 KB gzip" },
  { id: "tbt", what: "total blocking time on s13 (chromium, unthrottled)", target: "≤ 100 ms" },
  { id: "first-output", what: "first output of `npm run chapter s01` offline", target: "≤ 0.5 s" },
  { id: "scenarios", what: "full scripted scenario, each chapter", target: "≤ 3 s" },
  {
    id: "eval",
    what: "`npm run eval`: 12 tasks × 3 harnesses × 1 trial, offline (results file byte-identical twice)",
    target: "≤ 120 s",
  },
  {
    id: "snapshot",
    what: "a4's snapshot of a 10,000-file workspace (5,000 more ignored), after 10 files changed",
    target: "< 1 s after the first",
  },
  {
    id: "exercise-check",
    what: "`npm run exercise <id> -- --check` on every exercise's reference answer",
    target: "≤ 5 s each",
  },
  { id: "test-quick", what: "`npm run test:quick`", target: "≤ 60 s" },
  { id: "npm-test", what: "`npm test`", target: "≤ 150 s" },
  { id: "ci", what: "`CI=true bash .ci/run` on a fresh clone (`--ci`)", target: "green" },
  {
    id: "ci-busy",
    what: "the same beside two busy loops, both cores taken (`--ci-busy`)",
    target: "green",
  },
  {
    id: "recording",
    what: "a 50 MB recording opened on the site (chromium)",
    target: "the tab keeps answering",
  },
] as const;

export type FigureId = (typeof PERFORMANCE_ROWS)[number]["id"];
export type Figures = Partial<Record<FigureId, Figure>>;

export function readFigures(file = FIGURES_FILE): Figures {
  return JSON.parse(readFileSync(file, "utf8")) as Figures;
}

/** Keeps the figures just measured and every other as it was; stable key order, so the file's
 *  diff shows what changed. */
export function saveFigures(measured: Figures, file = FIGURES_FILE): Figures {
  const merged: Figures = { ...readFigures(file), ...measured };
  const ordered: Figures = {};
  for (const { id } of PERFORMANCE_ROWS) if (merged[id]) ordered[id] = merged[id];
  writeFileSync(file, `${JSON.stringify(ordered, null, 2)}\n`);
  return ordered;
}

const when = (f: Figure) =>
  [
    f.measured,
    f.load === undefined ? "" : `load ${f.load.toFixed(1)}`,
    f.loop === undefined ? "" : `loop ${f.loop.toFixed(2)} s`,
  ]
    .filter(Boolean)
    .join(", ");

/** The README's table: one row per measurement, "not measured yet" where the bench has none. */
export function performanceTable(figures: Figures): string {
  const lines = ["| measurement | figure | measured | target |", "|---|---|---|---|"];
  for (const { id, what, target } of PERFORMANCE_ROWS) {
    const figure = figures[id];
    lines.push(
      `| ${what} | ${figure ? figure.value : "not measured yet"} | ${figure ? when(figure) : ""} | ${target} |`,
    );
  }
  return lines.join("\n");
}
