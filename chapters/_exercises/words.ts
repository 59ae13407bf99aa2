// The words of a chapter's exercises, in the learner's language: what each check means, what a
// failure says, the rebuild's task and hints (chapters/<chapter>/exercises/<locale>.yaml), and,
// both optional, a hint per check (`checkHints:`, shown when that check is the first to fail) and
// one line on why the mechanism is built this way (`why:`, shown after a pass).
// An extend exercise's task and hints are the workshop kit's (workshop.yaml), so a teacher's
// handout and the checker say the same thing. A missing translation falls back to English.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { ChapterInfo } from "../_runner/discovery.js";
import { LOCALES, type Locale } from "../../i18n/locales.ts";

export interface ExerciseWords {
  rebuild?: { task: string; hints: string[] };
  checks: Record<string, string>;
  messages: Record<string, string>;
  /** Optional: the hint for a check, by its id; a check without one falls back to the ordered
   *  hints. A hint points at the idea or the helper to use, never the answer's code. */
  checkHints?: Record<string, string>;
  /** Optional: one sentence on why the chapter's mechanism is built the way it is. */
  why?: string;
}

interface WorkshopKit {
  [locale: string]: { exercises?: { task: string; hints?: string[] }[] } | unknown;
}

const cache = new Map<string, ExerciseWords | undefined>();

function wordsFile(chapter: ChapterInfo, locale: Locale): ExerciseWords | undefined {
  const file = path.join(chapter.dir, "exercises", `${locale}.yaml`);
  if (!cache.has(file))
    cache.set(
      file,
      existsSync(file) ? (parse(readFileSync(file, "utf8")) as ExerciseWords) : undefined,
    );
  return cache.get(file);
}

/** The learner's language: --lang, else LANG ("ja_JP.UTF-8" → ja), else English. */
export function learnerLocale(lang?: string): Locale {
  const wanted = (lang ?? process.env.LANG ?? "en").slice(0, 2).toLowerCase();
  return (LOCALES as readonly string[]).includes(wanted) ? (wanted as Locale) : "en";
}

/** `{name}` in `template` filled in from `values`. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{?(\w+)\}?\}/g, (all, name: string) =>
    name in values ? String(values[name]) : all,
  );
}

/** One piece of a chapter's words, in `locale` or else in English; undefined if English lacks it. */
export function word(
  chapter: ChapterInfo,
  locale: Locale,
  kind: "checks" | "messages" | "checkHints",
  key: string,
): string | undefined {
  return wordsFile(chapter, locale)?.[kind]?.[key] ?? wordsFile(chapter, "en")?.[kind]?.[key];
}

/** Why the chapter's mechanism is built this way, in one line (undefined when no words file says). */
export function whyOf(chapter: ChapterInfo, locale: Locale): string | undefined {
  return wordsFile(chapter, locale)?.why ?? wordsFile(chapter, "en")?.why;
}

/** The task and hints of an exercise: the rebuild's from the words file, an extend's (`s03.2` is
 *  the kit's second) from workshop.yaml. */
export function taskOf(
  chapter: ChapterInfo,
  locale: Locale,
  id: string,
): { task: string; hints: string[] } | undefined {
  const extend = /\.(\d+)$/.exec(id);
  if (!extend) return wordsFile(chapter, locale)?.rebuild ?? wordsFile(chapter, "en")?.rebuild;
  const kitFile = path.join(chapter.dir, "workshop.yaml");
  if (!existsSync(kitFile)) return undefined;
  const kit = parse(readFileSync(kitFile, "utf8")) as WorkshopKit;
  const inLocale = (l: Locale) =>
    (kit[l] as { exercises?: { task: string; hints?: string[] }[] } | undefined)?.exercises?.[
      Number(extend[1]) - 1
    ];
  const found = inLocale(locale) ?? inLocale("en");
  return found && { task: found.task, hints: found.hints ?? [] };
}
