// The command line's own words (i18n/ui.<locale>.json, the keys under "exercise."), in the four
// languages the site speaks; the exercises' words are in each chapter's exercises/ folder.
import de from "../../i18n/ui.de.json" with { type: "json" };
import en from "../../i18n/ui.en.json" with { type: "json" };
import ja from "../../i18n/ui.ja.json" with { type: "json" };
import zh from "../../i18n/ui.zh.json" with { type: "json" };
import type { Locale } from "../../i18n/locales.ts";

type Key = keyof typeof en & `exercise.${string}`;
type Short = Key extends `exercise.${infer K}` ? K : never;

const strings = (all: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(all).flatMap(([k, v]) => (k.startsWith("exercise.") ? [[k.slice(9), v]] : [])),
  ) as Record<Short, string>;

export const UI: Record<Locale, Record<Short, string>> = {
  en: strings(en),
  ja: strings(ja),
  zh: strings(zh),
  de: strings(de),
};
