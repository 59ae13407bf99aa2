// The chapters' tool descriptions in the reader's language. A tool's description is written for
// the model, in English, in the chapter's code (TOOLS); the site shows it translated from
// i18n/tools.<locale>.json, which maps each English description, word for word as the code has
// it, to its translation. A description the code changed is no longer a key there: the table
// shows the English text, marked, until a translator adds the new one, and `npm run i18n:status`
// lists it as missing (and the old entry as unused). Pure, with the files passed in.
import type { Locale } from "../../i18n/locales.ts";

export type ToolWords = Partial<Record<Exclude<Locale, "en">, Record<string, string>>>;

/** A description in `locale`: its translation, or the English text and that it is English. */
export function describeIn(
  words: ToolWords,
  locale: Locale,
  english: string,
): { text: string; english: boolean } {
  if (locale === "en" || !english) return { text: english, english: false };
  const own = words[locale] ?? {};
  const text = Object.hasOwn(own, english) ? own[english] : undefined;
  return text ? { text, english: false } : { text: english, english: true };
}

/** Per locale: how many of the descriptions have a translation, which have none, and which
 *  translations translate no description the code has any more. */
export function toolWordsStatus(
  words: ToolWords,
  descriptions: readonly string[],
): Record<Exclude<Locale, "en">, { fresh: number; missing: string[]; unused: string[] }> {
  const wanted = new Set(descriptions.filter(Boolean));
  const status = (locale: Exclude<Locale, "en">) => {
    const have = words[locale] ?? {};
    const missing = [...wanted].filter((d) => !Object.hasOwn(have, d) || !have[d]);
    return {
      fresh: wanted.size - missing.length,
      missing,
      unused: Object.keys(have).filter((d) => !wanted.has(d)),
    };
  };
  return { ja: status("ja"), zh: status("zh"), de: status("de") };
}
