// `npm run mutation [s01 s07 …] [-- --no-typecheck]`: how many changes to a rebuild's reference
// answer its checks notice, measured by a tool nobody here tuned (Stryker). For each rebuild, Stryker
// mutates the bodies of the exercise's blanks in the chapter's own file and runs that exercise's
// checks (tests/mutation/checks.mutation.ts) against every mutant. A mutant that changes nothing a
// check could see is *equivalent*: listed, with why, in chapters/<chapter>/exercises/
// equivalent-mutants.yaml, and left out of the score. So is one that only rewords a message the
// checks do not judge by design (issue 31: checks judge what the code does, never its wording):
// listed there with `kind: wording`, counted apart as "wording" and also left out of the score. Writes reports/mutation/<id>.json (Stryker's
// own report) and tests/mutation/scores.json (the figures the README's table shows). Not part of
// npm test: a run takes minutes.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { blankLines } from "../../chapters/_exercises/blanks.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { exerciseTable, TABLE_HEADER } from "./table.ts";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "no-typecheck": { type: "boolean" }, help: { type: "boolean", short: "h" } },
});
if (values.help) {
  console.log(`Usage: npm run mutation [-- <exercise ids>] [--no-typecheck]

  <exercise ids>    rebuilds to measure (s01 s07 …); default: every rebuild
  --no-typecheck    skip Stryker's TypeScript checker (faster; type-invalid mutants then run,
                    and are killed or not by the checks like any other)

Writes reports/mutation/<id>.json and tests/mutation/scores.json.`);
  process.exit(0);
}

const rebuilds = EXERCISES.filter((e) => e.kind === "rebuild" && e.blanks?.length);
const unknown = positionals.filter((id) => !rebuilds.some((e) => e.id === id));
if (unknown.length) {
  console.error(
    `Not a rebuild exercise: ${unknown.join(", ")}. Rebuilds: ${rebuilds.map((e) => e.id).join(" ")}`,
  );
  process.exit(2);
}
const chosen = positionals.length ? rebuilds.filter((e) => positionals.includes(e.id)) : rebuilds;

/** A mutant someone read and found changes nothing a check could see. Matched by what the line
 *  said and what the mutant made of it, so it survives code moving up or down. */
interface Equivalent {
  exercise: string;
  /** "equivalent" (the default): no check could see it; "wording": it rewords a message only. */
  kind?: "equivalent" | "wording";
  mutator: string;
  code: string;
  replacement: string;
  why: string;
}

function equivalents(chapterDir: string): Equivalent[] {
  const file = path.join(chapterDir, "exercises", "equivalent-mutants.yaml");
  return existsSync(file) ? ((parseYaml(readFileSync(file, "utf8")) as Equivalent[]) ?? []) : [];
}

export interface Score {
  exercise: string;
  mutants: number;
  killed: number;
  survived: number;
  equivalent: number;
  /** Mutants that only reword a message, which the checks do not judge by design. */
  wording: number;
  /** Mutants that did not compile or could not run: not counted either way. */
  invalid: number;
  /** killed / (killed + survived), equivalents and wording left out. */
  score: number;
  survivors: { line: number; mutator: string; code: string; replacement: string }[];
}

const { Stryker } = await import("@stryker-mutator/core");
const scoresFile = path.join(REPO_ROOT, "tests", "mutation", "scores.json");
const scores: Record<string, Score & { measured: string }> = existsSync(scoresFile)
  ? JSON.parse(readFileSync(scoresFile, "utf8"))
  : {};

for (const exercise of chosen) {
  const chapter = findChapter(chapterOf(exercise.id))!;
  const file = path.relative(REPO_ROOT, path.join(chapter.dir, exercise.file));
  const source = readFileSync(path.join(REPO_ROOT, file), "utf8");
  const lines = source.split("\n");
  const ranges = blankLines(
    source,
    exercise.blanks!.map((b) => b.name),
  );
  const report = path.join("reports", "mutation", `${exercise.id}.json`);
  mkdirSync(path.dirname(path.join(REPO_ROOT, report)), { recursive: true });
  process.env.MUTATION_EXERCISE = exercise.id;
  console.log(
    `\n${exercise.id}: mutating ${ranges.map((r) => `${r.name} (${file}:${r.from}-${r.to})`).join(", ")}`,
  );
  const started = Date.now();
  const results = await new Stryker({
    testRunner: "vitest",
    // The checks import the chapter by a path computed at run time: vitest cannot see the link.
    vitest: { configFile: "tests/mutation/vitest.config.ts", related: false },
    plugins: [
      "@stryker-mutator/vitest-runner",
      ...(values["no-typecheck"] ? [] : ["@stryker-mutator/typescript-checker"]),
    ],
    checkers: values["no-typecheck"] ? [] : ["typescript"],
    ...(values["no-typecheck"]
      ? {}
      : {
          tsconfigFile: "tsconfig.json",
          typescriptChecker: { prioritizePerformanceOverAccuracy: true },
        }),
    mutate: ranges.map((r) => `${file}:${r.from}-${r.to}`),
    coverageAnalysis: "perTest",
    // One mutant at a time: the checks start child processes of their own, and the machine is shared.
    concurrency: 1,
    reporters: ["json"],
    jsonReporter: { fileName: report },
    tempDirName: ".stryker-tmp",
    ignorePatterns: [".workspace", "workbench", "dist", "reports", ".astro", "site/traces"],
    logLevel: "warn" as never, // LogLevel.Warning (a const enum the import cannot reach)
    timeoutMS: 10_000,
  }).runMutationTest();

  const known = equivalents(chapter.dir).filter((e) => e.exercise === exercise.id);
  const codeAt = (line: number) => lines[line - 1]?.trim() ?? "";
  const listed = (m: (typeof results)[number]) =>
    known.find(
      (e) =>
        e.mutator === m.mutatorName &&
        e.replacement === m.replacement &&
        e.code === codeAt(m.location.start.line),
    );
  const isEquivalent = (m: (typeof results)[number]) => listed(m) !== undefined;
  const killed = results.filter((m) => m.status === "Killed" || m.status === "Timeout");
  const alive = results.filter((m) => m.status === "Survived" || m.status === "NoCoverage");
  const equivalent = alive.filter(isEquivalent);
  const survived = alive.filter((m) => !isEquivalent(m));
  const counted = killed.length + survived.length;
  const score: Score = {
    exercise: exercise.id,
    mutants: results.length,
    killed: killed.length,
    survived: survived.length,
    equivalent: equivalent.filter((m) => listed(m)!.kind !== "wording").length,
    wording: equivalent.filter((m) => listed(m)!.kind === "wording").length,
    invalid: results.length - killed.length - alive.length,
    score: counted ? Math.round((1000 * killed.length) / counted) / 10 : 100,
    survivors: survived.map((m) => ({
      line: m.location.start.line,
      mutator: m.mutatorName,
      code: codeAt(m.location.start.line),
      replacement: m.replacement ?? "",
    })),
  };
  scores[exercise.id] = { ...score, measured: new Date().toISOString().slice(0, 10) };
  console.log(
    `${exercise.id}: ${score.killed} killed, ${score.survived} survived, ${score.equivalent} equivalent, ${score.wording} wording, ${score.invalid} invalid → ${score.score}% (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  for (const s of score.survivors)
    console.log(`  survived: ${file}:${s.line} ${s.mutator}: ${s.code}  →  ${s.replacement}`);
  writeFileSync(scoresFile, `${JSON.stringify(scores, null, 2)}\n`);
}

console.log(
  `\nThe README's exercise table (tests/repo/readme-figures.test.ts holds it to this):\n`,
);
console.log([TABLE_HEADER, "|---|---|---|---|", ...exerciseTable()].join("\n"));
