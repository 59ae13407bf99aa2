// Step notes on disk (notes.ts says what they are): a chapter's notes/<locale>.yaml read, and the
// locale the terminal asks for. Node only: the runner and the scripts use it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { LOCALES, type Locale } from "../../i18n/locales.ts";
import { EMPTY_NOTES, parseNotes, type StepNotes } from "./notes.ts";

export const notesFile = (chapterDir: string, locale: Locale) =>
  path.join(chapterDir, "notes", `${locale}.yaml`);

/** A chapter's notes in one locale; empty when there is no file. A malformed file is an error
 *  that names the file, so a translator sees which one to fix. */
export function readNotes(chapterDir: string, locale: Locale): StepNotes {
  const file = notesFile(chapterDir, locale);
  if (!existsSync(file)) return EMPTY_NOTES;
  return parseNotes(readFileSync(file, "utf8"), file);
}

/** The locale the terminal asks for: --lang, else LANG/LC_ALL when it names one of ours. */
export function terminalLocale(flag: string | undefined, env: NodeJS.ProcessEnv): Locale {
  if (flag) {
    if (!(LOCALES as readonly string[]).includes(flag))
      throw new Error(`--lang must be one of ${LOCALES.join(", ")} (got "${flag}")`);
    return flag as Locale;
  }
  const lang = (env.LC_ALL || env.LC_MESSAGES || env.LANG || "").slice(0, 2).toLowerCase();
  return (LOCALES as readonly string[]).includes(lang) ? (lang as Locale) : "en";
}

/** Notes for the terminal in one locale: the translation's notes over the English ones, so a
 *  note not translated yet is still shown (in English). */
export function notesFor(chapterDir: string, locale: Locale): StepNotes {
  const english = readNotes(chapterDir, "en");
  if (locale === "en") return english;
  const translated = readNotes(chapterDir, locale);
  return {
    phases: { ...english.phases, ...translated.phases },
    notes: { ...english.notes, ...translated.notes },
  };
}
