// The learner's copies: workbench/<exercise>-<slug>/ (git-ignored), one folder per exercise, so one
// exercise never depends on another. Starting an exercise copies the chapter's lesson file with
// the exercise's regions replaced by stubs (rebuild) or as it is (extend); its imports are pointed
// back at the chapters, so the copy uses the shared plumbing and the reference chapters it builds
// on. Nothing here ever overwrites a learner's work without being asked.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../_shared/paths.ts";
import { writeJsonAtomic } from "../_shared/fsutil.ts";
import { CHAPTERS_DIR, type ChapterInfo } from "../_runner/discovery.js";
import { cutBlanks, putBack } from "./blanks.ts";
import type { Exercise } from "./kit.ts";

/** workbench/ in the repository; LAH_WORKBENCH moves it (the command line's tests use their own). */
export const WORKBENCH = process.env.LAH_WORKBENCH ?? path.join(REPO_ROOT, "workbench");

const isInside = (dir: string) => !path.relative(REPO_ROOT, dir).startsWith("..");

/** Where a learner's copy lives: workbench/s03-todo-write/, workbench/s03.1-todo-write/ (the
 *  tests use a workbench of their own, `root`). */
export function exerciseDir(exercise: Exercise, chapter: ChapterInfo, root = WORKBENCH): string {
  return path.join(root, `${exercise.id}-${chapter.slug}`);
}

/** What the workbench remembers of an exercise (for --status and the next hint). */
export interface Progress {
  id: string;
  started: string;
  hintsShown: number;
  /** `typeErrors` absent: a check from before type errors were counted. */
  lastCheck?: { at: string; passed: number; total: number; typeErrors?: number };
  /** When --solution put the reference answer in (a pass after it is not the learner's alone). */
  solutionUsed?: string;
}

const progressFile = (dir: string) => path.join(dir, ".exercise.json");

export function readProgress(dir: string): Progress | undefined {
  try {
    return JSON.parse(readFileSync(progressFile(dir), "utf8")) as Progress;
  } catch {
    return undefined;
  }
}

export function writeProgress(dir: string, progress: Progress): void {
  writeJsonAtomic(progressFile(dir), progress);
}

/** The lines `// #region name` … `// #endregion name` (markers included), as a 0-based span. */
function regionSpan(lines: string[], name: string): [number, number] | undefined {
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  return start >= 0 && end > start ? [start, end] : undefined;
}

/** The source with each named region (markers included) replaced by `replacements[name]`. */
export function replaceRegions(source: string, replacements: Record<string, string>): string {
  let lines = source.split("\n");
  for (const [name, text] of Object.entries(replacements)) {
    const span = regionSpan(lines, name);
    if (!span)
      throw new Error(`no region "${name}" in the file (its // #region markers are gone?)`);
    lines = [...lines.slice(0, span[0]), ...text.split("\n"), ...lines.slice(span[1] + 1)];
  }
  return lines.join("\n");
}

/** The text of a region, markers included (what a rebuild's solution puts back). */
export function regionText(source: string, name: string): string {
  const lines = source.split("\n");
  const span = regionSpan(lines, name);
  if (!span) throw new Error(`no region "${name}"`);
  return lines.slice(span[0], span[1] + 1).join("\n");
}

/** `../s02-tool-use/agent.ts` → `../../chapters/s02-tool-use/agent.ts`: the lesson's imports of
 *  earlier chapters and the shared plumbing, seen from the copy's folder `dir`. With `chapterDir`,
 *  the lesson's other files in its own folder too (`./mailbox.ts` → `…/s13-agent-teams/mailbox.ts`):
 *  only the exercise's file is copied, the rest of the chapter stays the chapter's. */
export function pointImportsAtChapters(source: string, dir: string, chapterDir?: string): string {
  const chapters = path.relative(dir, CHAPTERS_DIR).split(path.sep).join("/");
  const pointed = source.replace(/(from\s+|import\s*\(\s*)(["'])\.\.\//g, `$1$2${chapters}/`);
  if (!chapterDir) return pointed;
  const own = `${chapters}/${path.basename(chapterDir)}/`;
  return pointed.replace(
    /(from\s+|import\s*\(\s*)(["'])\.\/([\w.-]+\.ts)\2/g,
    (whole, keyword: string, quote: string, name: string) =>
      existsSync(path.join(chapterDir, name)) ? `${keyword}${quote}${own}${name}${quote}` : whole,
  );
}

/** The stub a rebuild starts from (an extend: the chapter's file as it is), imports pointed
 *  from the copy's folder `dir`. */
export function freshCopy(exercise: Exercise, chapter: ChapterInfo, dir: string): string {
  const reference = readFileSync(path.join(chapter.dir, exercise.file), "utf8");
  return pointImportsAtChapters(cutBlanks(reference, exercise.blanks ?? []), dir, chapter.dir);
}

/** workbench/package.json: the copies are ES modules wherever the workbench is, and, since this
 *  file is the first package.json npm finds from inside a copy, it carries `npm run exercise`
 *  (the command line then knows the exercise from the folder it was started in). The file is the
 *  checker's: whatever else is in it (a `preexercise` script npm would run first) is replaced by
 *  exactly this, every time the command line runs. */
export function ensureWorkbenchPackage(root = WORKBENCH): void {
  const marker = path.join(root, "package.json");
  const cli = path.relative(root, path.join(REPO_ROOT, "chapters/_exercises/cli.ts"));
  const ours = `${JSON.stringify(
    {
      private: true,
      type: "module",
      scripts: { exercise: `node --import tsx ${cli.split(path.sep).join("/")}` },
    },
    null,
    2,
  )}\n`;
  if (existsSync(marker) && readFileSync(marker, "utf8") === ours) return;
  mkdirSync(root, { recursive: true });
  writeFileSync(marker, ours);
}

/** The copy kept beside the exercise's file before --solution or --reset replaces it:
 *  `agent.mine-2026-12-04-183005.ts` (a second in the same second gets `-2`). Returns its path. */
export function keepMine(file: string, now = new Date()): string {
  const stamp = now.toISOString().slice(0, 19).replace("T", "-").replaceAll(":", "");
  const { dir, name, ext } = path.parse(file);
  let kept = path.join(dir, `${name}.mine-${stamp}${ext}`);
  for (let n = 2; existsSync(kept); n++) kept = path.join(dir, `${name}.mine-${stamp}-${n}${ext}`);
  copyFileSync(file, kept);
  return kept;
}

/** Starts an exercise: writes the copy, unless one is there already (then says where it is). */
export function startExercise(
  exercise: Exercise,
  chapter: ChapterInfo,
  root = WORKBENCH,
): { dir: string; file: string; existed: boolean } {
  const dir = exerciseDir(exercise, chapter, root);
  const file = path.join(dir, exercise.file);
  if (existsSync(file)) return { dir, file, existed: true };
  const copy = freshCopy(exercise, chapter, dir);
  mkdirSync(dir, { recursive: true });
  ensureWorkbenchPackage(root);
  writeFileSync(file, copy, { flag: "wx" }); // never over a file that appeared meanwhile
  // Data the lesson reads from its own folder (s07's starting permissions.json) goes with it.
  for (const name of readdirSync(chapter.dir))
    if (/\.json$/.test(name)) copyFileSync(path.join(chapter.dir, name), path.join(dir, name));
  // A workbench outside the repository still finds the packages the lesson imports by name.
  const modules = path.join(root, "node_modules");
  if (!isInside(root) && !existsSync(modules))
    symlinkSync(path.join(REPO_ROOT, "node_modules"), modules);
  writeProgress(dir, { id: exercise.id, started: new Date().toISOString(), hintsShown: 0 });
  return { dir, file, existed: false };
}

/** The reference answer, put into the learner's copy in place of the exercise's part (a
 *  rebuild's functions, an extend's regions); everything else stays as the learner left it.
 *  Returns the text before and after (the command line shows the difference). */
export function applySolution(
  exercise: Exercise,
  chapter: ChapterInfo,
  file: string,
): { before: string; after: string } {
  const reference = readFileSync(path.join(chapter.dir, exercise.file), "utf8");
  const before = readFileSync(file, "utf8");
  let mine = before;
  if (exercise.blanks?.length)
    mine = putBack(
      mine,
      reference,
      exercise.blanks.map((b) => b.name),
    );
  if (exercise.solution) {
    const answers = Object.entries(exercise.solution).map(([name, answer]) => [
      name,
      typeof answer === "string" ? answer : answer(regionText(reference, name)),
    ]);
    mine = replaceRegions(mine, Object.fromEntries(answers));
  }
  writeFileSync(file, mine);
  return { before, after: mine };
}

/** The learner's most recently changed copy of a chapter's lesson file (`npm run chapter s03 --
 *  --mine`): of workbench/s03-…/, s03.1-…/ …, the one whose agent.ts changed last. */
export function latestCopy(chapter: ChapterInfo, root = WORKBENCH): string | undefined {
  if (!existsSync(root)) return undefined;
  const mine = new RegExp(`^${chapter.id}(\\.\\d+)?-${chapter.slug}$`);
  return readdirSync(root)
    .filter((name) => mine.test(name))
    .map((name) => path.join(root, name, "agent.ts"))
    .filter((file) => existsSync(file))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}
