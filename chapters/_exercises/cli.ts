// `npm run exercise`: start an exercise, check it, show the reference answer, and the learner's
// progress over all of them. Every message is in the learner's language (--lang, else LANG).
//
//   npm run exercise                        the exercises, a line each, with progress
//   npm run exercise s03                    start (or resume) s03 in workbench/s03-todo-write/
//   npm run exercise s03 -- --check         each check ✓ or ✗, with the failing check's hint
//                  [--time-limit <s>]       each check's time limit (default 10 s)
//   npm run exercise s03 -- --solution      the reference answer into your copy (asks; --yes),
//                                           yours kept beside it, and the difference shown
//   npm run exercise s03 -- --reset         a fresh stub (asks; --yes), yours kept beside it
//   npm run exercise -- --status [--json]   every exercise's state, the totals, what to do next
//
// Inside a copy's folder (workbench/s03-todo-write/), `npm run exercise -- --check` needs no id.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { createTwoFilesPatch } from "diff";
import pc from "picocolors";
import { findChapter, type ChapterInfo } from "../_runner/discovery.js";
import { REPO_ROOT } from "../_shared/paths.ts";
// What a check saw comes from the learner's code and the commands it ran: shown, never obeyed.
import { visible } from "../_shared/visible.js";
import type { Locale } from "../../i18n/locales.ts";
import { chapterOf, EXERCISES, findExercise } from "./catalog.ts";
import { verdictOf, type Outcome } from "./check.ts";
import type { Exercise } from "./kit.ts";
import { UI } from "./ui.ts";
import {
  applySolution,
  ensureWorkbenchPackage,
  exerciseDir,
  freshCopy,
  keepMine,
  readProgress,
  startExercise,
  WORKBENCH,
  writeProgress,
  type Progress,
} from "./workbench.ts";
import { fill, learnerLocale, taskOf, whyOf, word } from "./words.ts";

/** The command line, or the one sentence that says what is wrong with it (never a stack). */
function readArgs() {
  try {
    return parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, " ");
    const words = UI[learnerLocale(process.argv.find((_, i, all) => all[i - 1] === "--lang"))];
    const unknown = (err as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION";
    const option = /'([^']+)'/.exec(message)?.[1] ?? "";
    console.error(
      unknown
        ? fill(words.unknownOption ?? UI.en.unknownOption, { option })
        : fill(words.badOption ?? UI.en.badOption, { message }),
    );
    process.exit(2);
  }
}
const OPTIONS = {
  check: { type: "boolean" },
  solution: { type: "boolean" },
  reset: { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  status: { type: "boolean" },
  json: { type: "boolean" },
  lang: { type: "string" },
  "time-limit": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;
const { values: flags, positionals } = readArgs();
const locale: Locale = learnerLocale(flags.lang);
const ui = (key: keyof (typeof UI)["en"], values: Record<string, string | number> = {}) =>
  fill(UI[locale][key] ?? UI.en[key], values);
const relative = (p: string) => path.relative(REPO_ROOT, p);

function chapterFor(exercise: Exercise): ChapterInfo {
  const chapter = findChapter(chapterOf(exercise.id));
  if (!chapter) throw new Error(`exercise ${exercise.id} names no chapter`);
  return chapter;
}

const lessonOf = (exercise: Exercise) => path.join(chapterFor(exercise).dir, exercise.file);

/** "missing": the exercise was started (its folder remembers it) but its file is gone. */
type State = "not started" | "in progress" | "passing" | "missing";
interface Row {
  state: State;
  passed?: number;
  total: number;
  typeErrors?: number;
  solutionUsed: boolean;
}

function stateOf(exercise: Exercise): Row {
  const dir = exerciseDir(exercise, chapterFor(exercise));
  const progress = readProgress(dir);
  const total = exercise.checks.length;
  if (!progress) return { state: "not started", total, solutionUsed: false };
  const solutionUsed = Boolean(progress.solutionUsed);
  if (!existsSync(path.join(dir, exercise.file))) return { state: "missing", total, solutionUsed };
  const last = progress.lastCheck;
  // Passing is every check and no type error (a check recorded before type errors were counted
  // says nothing about them, and counts as its checks say).
  const passing = last && last.passed === last.total && !last.typeErrors;
  return {
    state: passing ? "passing" : "in progress",
    passed: last?.passed,
    total,
    typeErrors: last?.typeErrors,
    solutionUsed,
  };
}

const stateWord = (state: State) =>
  state === "passing"
    ? pc.green(ui("passing"))
    : state === "in progress"
      ? pc.yellow(ui("inProgress"))
      : state === "missing"
        ? pc.red(ui("missing"))
        : pc.dim(ui("notStarted"));

/** The suggested order is the course's: chapter by chapter (each builds on the ones before), a
 *  chapter's rebuild before its extensions. The next exercise is the first not yet passing after
 *  `after` (the one just passed), else the first not passing at all. */
function nextExercise(after?: Exercise): Exercise | undefined {
  const open = (e: Exercise) => stateOf(e).state !== "passing" && e !== after;
  const from = after ? EXERCISES.indexOf(after) + 1 : 0;
  return EXERCISES.slice(from).find(open) ?? EXERCISES.find(open);
}

function list(): void {
  for (const exercise of EXERCISES) {
    const chapter = chapterFor(exercise);
    const { state, passed, total, solutionUsed } = stateOf(exercise);
    const task = taskOf(chapter, locale, exercise.id)?.task ?? "";
    const kind = exercise.kind === "rebuild" ? ui("rebuild") : ui("extend");
    const score = passed === undefined ? "" : ` ${passed}/${total}`;
    const used = solutionUsed ? pc.dim(` (${ui("solutionUsedMark")})`) : "";
    console.log(
      `${pc.bold(exercise.id.padEnd(6))} ${kind.padEnd(8)} ${stateWord(state)}${score}${used}  ${task}`,
    );
  }
  console.log(pc.dim(ui("listFooter")));
}

function status(json: boolean): void {
  const rows = EXERCISES.map((exercise) => {
    const row = stateOf(exercise);
    return {
      exercise: exercise.id,
      chapter: chapterOf(exercise.id),
      kind: exercise.kind,
      state: row.state,
      passed: row.passed ?? 0,
      total: row.total,
      typeErrors: row.typeErrors ?? 0,
      solutionUsed: row.solutionUsed,
    };
  });
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  for (const r of rows) {
    const types = r.typeErrors ? `, ${ui("typeErrorCount", { count: r.typeErrors })}` : "";
    const used = r.solutionUsed ? pc.dim(` (${ui("solutionUsedMark")})`) : "";
    console.log(
      `${r.exercise.padEnd(6)} ${stateWord(r.state)} ${r.passed}/${r.total}${types}${used}`,
    );
  }
  const count = (state: State) => rows.filter((r) => r.state === state).length;
  console.log(
    ui("totals", {
      passing: count("passing"),
      all: rows.length,
      inProgress: count("in progress") + count("missing"),
      notStarted: count("not started"),
      solutionUsed: rows.filter((r) => r.solutionUsed).length,
    }),
  );
  const next = nextExercise();
  console.log(next ? ui("nextUp", { id: next.id }) : pc.green(ui("allDone")));
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
  // --mine runs a copy of the lesson's agent.ts; a copy of another file (a6's stats.ts) is run by
  // its checks only.
  console.log(
    pc.dim(
      exercise.file === "agent.ts"
        ? ui("next", { id: exercise.id, chapter: chapter.id })
        : ui("nextCheckOnly", { id: exercise.id, file: exercise.file }),
    ),
  );
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

/** One line for a failed check: what was expected and what was observed. */
function explain(outcome: Outcome, chapter: ChapterInfo, file: string): string {
  if (outcome.ok) return "";
  if ("failure" in outcome)
    return fill(
      word(chapter, locale, "messages", outcome.failure.key) ?? outcome.failure.key,
      inLocale(chapter, outcome.failure.values),
    );
  if ("notStarted" in outcome) return ui("notStartedStub", { name: outcome.notStarted });
  if ("timedOut" in outcome)
    return ui(outcome.waiting ? "timedOutWaiting" : "timedOut", {
      seconds: outcome.timedOut / 1000,
    });
  if ("unsettled" in outcome) return ui("unsettled");
  if ("killed" in outcome) return ui("killed", { signal: outcome.killed });
  if ("exited" in outcome) return ui("exited", { code: outcome.exited });
  if ("compile" in outcome)
    return ui("compile", { message: compileMessage(outcome.compile, file) });
  return outcome.where
    ? ui("threwAt", { where: outcome.where, message: outcome.thrown })
    : ui("threw", { message: outcome.thrown, file: path.basename(file) });
}

/** The hint for the first failed check: its own (`checkHints:`) when the words have one, else
 *  the ordered hints, one more each time (a stub not started yet gets those: it is the start). */
function hintFor(
  exercise: Exercise,
  chapter: ChapterInfo,
  outcome: Outcome,
  progress: Progress,
): string | undefined {
  const own = "notStarted" in outcome ? undefined : exercise.checks[outcome.index]?.id;
  const specific = own && word(chapter, locale, "checkHints", own);
  if (specific) return `${ui("hintFor")} ${specific}`;
  const hints = taskOf(chapter, locale, exercise.id)?.hints ?? [];
  if (hints.length === 0) return undefined;
  const n = Math.min(progress.hintsShown, hints.length - 1);
  progress.hintsShown = Math.min(progress.hintsShown + 1, hints.length);
  return `${ui("hint", { n: n + 1, of: hints.length })} ${hints[n]}`;
}

async function check(exercise: Exercise): Promise<number> {
  const chapter = chapterFor(exercise);
  const dir = exerciseDir(exercise, chapter);
  const file = path.join(dir, exercise.file);
  if (!existsSync(file)) {
    // Started and then lost is not the same as never started: say which.
    const started = readProgress(dir);
    console.error(
      started
        ? ui("fileMissing", { file: relative(file), id: exercise.id })
        : ui("notYetStarted", { id: exercise.id }),
    );
    return 1;
  }
  const verdict = await verdictOf(exercise, file, lessonOf(exercise), { limitMs: timeLimitMs });
  const progress = readProgress(dir) ?? {
    id: exercise.id,
    started: new Date().toISOString(),
    hintsShown: 0,
  };
  const task = taskOf(chapter, locale, exercise.id);
  console.log(pc.bold(`${exercise.id} · ${task?.task ?? ""}`) + pc.dim(`  ${relative(file)}`));
  let hinted = false;
  verdict.outcomes.forEach((outcome, i) => {
    const name = word(chapter, locale, "checks", exercise.checks[i].id) ?? exercise.checks[i].id;
    if (outcome.ok) {
      console.log(`  ${pc.green("✓")} ${name}`);
      return;
    }
    console.log(`  ${pc.red("✗")} ${name}`);
    console.log(`      ${visible(explain(outcome, chapter, file))}`);
    if (hinted) return;
    hinted = true;
    const hint = hintFor(exercise, chapter, outcome, progress);
    if (hint) console.log(pc.cyan(`      ${hint}`));
  });
  for (const line of verdict.typeErrors)
    console.log(`  ${pc.red("✗")} ${visible(ui("typeError", { line }))}`);
  const { passed, total, typeErrors } = { ...verdict, typeErrors: verdict.typeErrors.length };
  progress.lastCheck = { at: new Date().toISOString(), passed, total, typeErrors };
  writeProgress(dir, progress);
  if (!verdict.pass) {
    console.log(
      passed === total
        ? ui("passButTypes", { count: typeErrors })
        : typeErrors > 0
          ? `${ui("somePass", { passed, total })} ${ui("typeErrorCount", { count: typeErrors })}`
          : ui("somePass", { passed, total }),
    );
    return 1;
  }
  console.log(pc.green(ui("allPass")));
  const why = whyOf(chapter, locale);
  if (why) console.log(`${ui("why")} ${why}`);
  const next = nextExercise(exercise);
  console.log(next ? ui("nextUp", { id: next.id }) : pc.green(ui("allDone")));
  return 0;
}

/** Asks a yes/no question; only an explicit yes (in any of the four languages) is yes. Without a
 *  terminal to ask on, the answer is no, and `needsYes` says how to say yes in a script. */
async function confirm(question: string, needsYes: string): Promise<boolean | undefined> {
  if (flags.yes) return true;
  if (!process.stdin.isTTY) {
    console.error(needsYes);
    return undefined;
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const answer = (await rl.question(question)).trim().toLowerCase();
  rl.close();
  return ["y", "yes", "j", "ja", "はい", "是"].includes(answer);
}

/** The difference between two versions of the copy, as a unified diff, coloured. */
function showDiff(fromName: string, toName: string, from: string, to: string): void {
  const patch = createTwoFilesPatch(fromName, toName, from, to, "", "", { context: 2 });
  for (const line of patch.split("\n").slice(2)) {
    if (line.startsWith("+")) console.log(pc.green(line));
    else if (line.startsWith("-")) console.log(pc.red(line));
    else if (line.startsWith("@@")) console.log(pc.cyan(line));
    else console.log(line);
  }
}

async function solution(exercise: Exercise): Promise<number> {
  const chapter = chapterFor(exercise);
  const { dir, file } = startExercise(exercise, chapter);
  const yes = await confirm(ui("solutionAsk", { file: relative(file) }), ui("solutionNeedsYes"));
  if (yes === undefined) return 1;
  if (!yes) {
    console.log(ui("solutionKept"));
    return 0;
  }
  // Yours first, beside it, so nothing the learner wrote is lost to the answer.
  const kept = keepMine(file);
  const { before, after } = applySolution(exercise, chapter, file);
  const progress = readProgress(dir) ?? {
    id: exercise.id,
    started: new Date().toISOString(),
    hintsShown: 0,
  };
  writeProgress(dir, { ...progress, solutionUsed: new Date().toISOString() });
  showDiff(path.basename(kept), path.basename(file), before, after);
  console.log(ui("solutionDone", { file: relative(file), id: exercise.id, kept: relative(kept) }));
  return 0;
}

async function reset(exercise: Exercise): Promise<number> {
  const chapter = chapterFor(exercise);
  const dir = exerciseDir(exercise, chapter);
  const file = path.join(dir, exercise.file);
  if (!existsSync(file) && !readProgress(dir)) {
    start(exercise); // nothing to reset: a fresh start is what was asked for
    return 0;
  }
  const yes = await confirm(ui("resetAsk", { file: relative(file) }), ui("resetNeedsYes"));
  if (yes === undefined) return 1;
  if (!yes) {
    console.log(ui("solutionKept"));
    return 0;
  }
  const kept = existsSync(file) ? keepMine(file) : undefined;
  writeFileSync(file, freshCopy(exercise, chapter, dir));
  writeProgress(dir, { id: exercise.id, started: new Date().toISOString(), hintsShown: 0 });
  console.log(
    kept
      ? ui("resetDone", { file: relative(file), kept: relative(kept) })
      : ui("resetDoneNothingKept", { file: relative(file) }),
  );
  return 0;
}

/** The exercise whose copy the command was started in (npm gives the folder as INIT_CWD), so
 *  `npm run exercise -- --check` in workbench/s03-todo-write/ checks s03. */
function exerciseHere(): Exercise | undefined {
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const [folder] = path.relative(WORKBENCH, cwd).split(path.sep);
  if (!folder || folder.startsWith("..") || path.isAbsolute(folder)) return undefined;
  return EXERCISES.find((e) => folder === path.basename(exerciseDir(e, chapterFor(e))));
}

/** `--time-limit`, in seconds, for the checks that name no limit of their own. */
let timeLimitMs: number | undefined;

async function main(): Promise<number> {
  if (flags.help) {
    console.log(ui("help"));
    return 0;
  }
  if (flags["time-limit"] !== undefined) {
    const seconds = Number(flags["time-limit"]);
    if (!(seconds > 0) || !Number.isFinite(seconds)) {
      console.error(ui("badTimeLimit", { value: flags["time-limit"] }));
      return 2;
    }
    timeLimitMs = seconds * 1000;
  }
  // A workbench made before its package.json carried `npm run exercise` gets it now.
  if (existsSync(WORKBENCH)) ensureWorkbenchPackage();
  if (flags.status) {
    status(Boolean(flags.json));
    return 0;
  }
  const [id] = positionals;
  const exercise = id ? findExercise(id) : exerciseHere();
  if (id && !exercise) {
    console.error(ui("unknown", { id, known: EXERCISES.map((e) => e.id).join(", ") }));
    return 2;
  }
  if (!exercise) {
    if (flags.check || flags.solution || flags.reset) {
      console.error(ui("whichExercise"));
      return 2;
    }
    list();
    return 0;
  }
  if (flags.check) return check(exercise);
  if (flags.solution) return solution(exercise);
  if (flags.reset) return reset(exercise);
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
