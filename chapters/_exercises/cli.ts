// `npm run exercise`: start an exercise, check it, show the reference answer, and the learner's
// progress over all of them. Every message is in the learner's language (--lang, else LANG).
//
//   npm run exercise                        the exercises, a line each, with progress
//   npm run exercise s03                    start (or resume) s03 in workbench/s03-todo-write/
//   npm run exercise s03 -- --check         each check ✓ or ✗, with a hint on the first ✗
//   npm run exercise s03 -- --solution      the reference answer into your copy (asks; --yes)
//   npm run exercise -- --status [--json]   every exercise: not started / in progress / passing
import { existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import pc from "picocolors";
import { findChapter, type ChapterInfo } from "../_runner/discovery.js";
import { REPO_ROOT } from "../_shared/paths.ts";
import type { Locale } from "../../i18n/locales.ts";
import { chapterOf, EXERCISES, findExercise } from "./catalog.ts";
import { runChecks, typeCheck, type Outcome } from "./check.ts";
import type { Exercise } from "./kit.ts";
import { UI } from "./ui.ts";
import {
  applySolution,
  exerciseDir,
  readProgress,
  startExercise,
  writeProgress,
} from "./workbench.ts";
import { fill, learnerLocale, taskOf, word } from "./words.ts";

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    check: { type: "boolean" },
    solution: { type: "boolean" },
    yes: { type: "boolean" },
    status: { type: "boolean" },
    json: { type: "boolean" },
    lang: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
const locale: Locale = learnerLocale(flags.lang);
const ui = (key: keyof (typeof UI)["en"], values: Record<string, string | number> = {}) =>
  fill(UI[locale][key] ?? UI.en[key], values);
const relative = (p: string) => path.relative(REPO_ROOT, p);

function chapterFor(exercise: Exercise): ChapterInfo {
  const chapter = findChapter(chapterOf(exercise.id));
  if (!chapter) throw new Error(`exercise ${exercise.id} names no chapter`);
  return chapter;
}

type State = "not started" | "in progress" | "passing";
function stateOf(exercise: Exercise): { state: State; passed?: number; total: number } {
  const progress = readProgress(exerciseDir(exercise, chapterFor(exercise)));
  const total = exercise.checks.length;
  if (!progress) return { state: "not started", total };
  const last = progress.lastCheck;
  const state = last && last.passed === last.total ? "passing" : "in progress";
  return { state, passed: last?.passed, total };
}

const stateWord = (state: State) =>
  state === "passing"
    ? pc.green(ui("passing"))
    : state === "in progress"
      ? pc.yellow(ui("inProgress"))
      : pc.dim(ui("notStarted"));

function list(): void {
  for (const exercise of EXERCISES) {
    const chapter = chapterFor(exercise);
    const { state, passed, total } = stateOf(exercise);
    const task = taskOf(chapter, locale, exercise.id)?.task ?? "";
    const kind = exercise.kind === "rebuild" ? ui("rebuild") : ui("extend");
    const score = passed === undefined ? "" : ` ${passed}/${total}`;
    console.log(
      `${pc.bold(exercise.id.padEnd(6))} ${kind.padEnd(8)} ${stateWord(state)}${score}  ${task}`,
    );
  }
  console.log(pc.dim(ui("listFooter")));
}

function status(json: boolean): void {
  const rows = EXERCISES.map((exercise) => {
    const { state, passed, total } = stateOf(exercise);
    return {
      exercise: exercise.id,
      chapter: chapterOf(exercise.id),
      kind: exercise.kind,
      state,
      passed: passed ?? 0,
      total,
    };
  });
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  for (const r of rows)
    console.log(`${r.exercise.padEnd(6)} ${stateWord(r.state)} ${r.passed}/${r.total}`);
}

function start(exercise: Exercise): void {
  const chapter = chapterFor(exercise);
  const { file, existed } = startExercise(exercise, chapter);
  const task = taskOf(chapter, locale, exercise.id);
  console.log(pc.bold(`${exercise.id} · ${task?.task ?? ""}`));
  console.log(
    existed ? ui("resumed", { file: relative(file) }) : ui("started", { file: relative(file) }),
  );
  console.log(ui("checks"));
  for (const check of exercise.checks)
    console.log(`  • ${word(chapter, locale, "checks", check.id) ?? check.id}`);
  console.log(pc.dim(ui("next", { id: exercise.id, chapter: chapter.id })));
}

/** esbuild's "Transform failed with 1 error: /abs/agent.ts:116:28: ERROR: Unexpected "="" as
 *  "agent.ts:116:28: Unexpected "="". */
function compileMessage(message: string, file: string): string {
  return message
    .replace(/^Transform failed with \d+ errors?:\s*/, "")
    .split("\n")[0]
    .replaceAll(`${path.dirname(file)}/`, "")
    .replace(": ERROR: ", ": ");
}

/** A value a check gives as "@key" (or "@key|detail") is itself a message, in the learner's
 *  language ("@verdict-refused|deny rule" → "refused (deny rule)"), so no English word from the
 *  check's code lands in a sentence of another language. */
function inLocale(
  chapter: ChapterInfo,
  values: Record<string, string | number>,
): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      const ref = typeof value === "string" ? /^@([\w-]+)(?:\|([\s\S]*))?$/.exec(value) : null;
      const template = ref && word(chapter, locale, "messages", ref[1]);
      return [name, template ? fill(template, { detail: ref[2] ?? "" }) : value];
    }),
  );
}

/** One line for a failed check: what was expected and what happened. */
function explain(outcome: Outcome, chapter: ChapterInfo, file: string): string {
  if (outcome.ok) return "";
  if ("failure" in outcome)
    return fill(
      word(chapter, locale, "messages", outcome.failure.key) ?? outcome.failure.key,
      inLocale(chapter, outcome.failure.values),
    );
  if ("notStarted" in outcome) return ui("notStartedStub", { name: outcome.notStarted });
  if ("timedOut" in outcome) return ui("timedOut", { seconds: outcome.timedOut / 1000 });
  if ("compile" in outcome)
    return ui("compile", { message: compileMessage(outcome.compile, file) });
  return outcome.where
    ? ui("threwAt", { where: outcome.where, message: outcome.thrown })
    : ui("threw", { message: outcome.thrown, file: path.basename(file) });
}

async function check(exercise: Exercise): Promise<number> {
  const chapter = chapterFor(exercise);
  const dir = exerciseDir(exercise, chapter);
  const file = path.join(dir, exercise.file);
  if (!existsSync(file)) {
    console.error(ui("notYetStarted", { id: exercise.id }));
    return 1;
  }
  const [outcomes, typeErrors] = await Promise.all([runChecks(exercise, file), typeCheck(file)]);
  let firstFailure = true;
  const progress = readProgress(dir) ?? {
    id: exercise.id,
    started: new Date().toISOString(),
    hintsShown: 0,
  };
  const task = taskOf(chapter, locale, exercise.id);
  console.log(pc.bold(`${exercise.id} · ${task?.task ?? ""}`) + pc.dim(`  ${relative(file)}`));
  outcomes.forEach((outcome, i) => {
    const name = word(chapter, locale, "checks", exercise.checks[i].id) ?? exercise.checks[i].id;
    if (outcome.ok) {
      console.log(`  ${pc.green("✓")} ${name}`);
      return;
    }
    console.log(`  ${pc.red("✗")} ${name}`);
    console.log(`      ${explain(outcome, chapter, file)}`);
    if (!firstFailure) return;
    firstFailure = false;
    const hints = task?.hints ?? [];
    if (hints.length > 0) {
      const n = Math.min(progress.hintsShown, hints.length - 1);
      console.log(pc.cyan(`      ${ui("hint", { n: n + 1, of: hints.length })} ${hints[n]}`));
      progress.hintsShown = Math.min(progress.hintsShown + 1, hints.length);
    }
  });
  for (const line of typeErrors) console.log(`  ${pc.red("✗")} ${ui("typeError", { line })}`);
  const passed = outcomes.filter((o) => o.ok).length;
  progress.lastCheck = { at: new Date().toISOString(), passed, total: outcomes.length };
  writeProgress(dir, progress);
  console.log(
    passed === outcomes.length
      ? pc.green(ui("allPass"))
      : ui("somePass", { passed, total: outcomes.length }),
  );
  return passed === outcomes.length && typeErrors.length === 0 ? 0 : 1;
}

async function solution(exercise: Exercise): Promise<number> {
  const chapter = chapterFor(exercise);
  const { file } = startExercise(exercise, chapter);
  if (!flags.yes) {
    if (!process.stdin.isTTY) {
      console.error(ui("solutionNeedsYes"));
      return 1;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = (await rl.question(ui("solutionAsk", { file: relative(file) })))
      .trim()
      .toLowerCase();
    rl.close();
    if (!["y", "yes", "j", "ja", "はい", "是"].includes(answer)) {
      console.log(ui("solutionKept"));
      return 0;
    }
  }
  applySolution(exercise, chapter, file);
  console.log(ui("solutionDone", { file: relative(file), id: exercise.id }));
  return 0;
}

async function main(): Promise<number> {
  if (flags.help) {
    console.log(ui("help"));
    return 0;
  }
  if (flags.status) {
    status(Boolean(flags.json));
    return 0;
  }
  const [id] = positionals;
  if (!id) {
    list();
    return 0;
  }
  const exercise = findExercise(id);
  if (!exercise) {
    console.error(ui("unknown", { id, known: EXERCISES.map((e) => e.id).join(", ") }));
    return 2;
  }
  if (flags.check) return check(exercise);
  if (flags.solution) return solution(exercise);
  start(exercise);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(pc.red(err instanceof Error ? err.message : String(err)));
    process.exit(2);
  },
);
