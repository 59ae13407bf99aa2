// UI strings for the site's own components, from i18n/ui.<locale>.json.
import de from "../../i18n/ui.de.json";
import en from "../../i18n/ui.en.json";
import ja from "../../i18n/ui.ja.json";
import zh from "../../i18n/ui.zh.json";

import { LOCALES, type Locale } from "../../i18n/locales.ts";

export { LOCALES, type Locale };
export type UIKey = keyof typeof en;

const dictionaries: Record<Locale, Partial<Record<UIKey, string>>> = { en, ja, zh, de };

/** Starlight's language tag (en, ja, zh-CN, de) → our locale key. */
export function localeFromLang(lang: string | undefined): Locale {
  const short = (lang ?? "en").toLowerCase().split("-")[0];
  return (LOCALES as readonly string[]).includes(short) ? (short as Locale) : "en";
}

/** The locale of the page being rendered. */
export function pageLocale(astro: { locals: unknown }): Locale {
  const route = (astro.locals as { starlightRoute?: { lang?: string } }).starlightRoute;
  return localeFromLang(route?.lang);
}

/** A key with plural forms (`player.messages_one`, `player.messages_other`), used without the
 *  suffix and a `count`: the same convention as i18next, which Starlight's own strings use. */
type PluralKey = UIKey extends infer K ? (K extends `${infer B}_other` ? B : never) : never;

/** A translator for one locale; `{name}` placeholders are filled from `vars`. A plural key picks
 *  its form by `vars.count` with the locale's plural rules ("1 message", "2 messages"). */
export function useTranslations(locale: Locale) {
  const plural = new Intl.PluralRules(locale);
  const lookup = (key: string) =>
    (dictionaries[locale] as Record<string, string | undefined>)[key] ??
    (en as Record<string, string | undefined>)[key];
  return (key: UIKey | PluralKey, vars: Record<string, string | number> = {}) => {
    const count = vars.count;
    const text =
      (typeof count === "number" &&
        (lookup(`${key}_${plural.select(count)}`) ?? lookup(`${key}_other`))) ||
      lookup(key) ||
      key;
    return text.replace(/\{(\w+)\}/g, (_, k) => String(vars[k] ?? `{${k}}`));
  };
}

/** The site's base path without its trailing slash: "" at the root of a host, "/sub" under one. */
const BASE = (import.meta.env?.BASE_URL ?? "/").replace(/\/+$/, "");

/** Link prefix of a locale, base path included: "" for English at the root of a host, "/ja" ...;
 *  "/sub" and "/sub/ja" when the site is built with BASE_PATH=/sub/. Links are
 *  `${localePrefix(locale)}/page/`. */
export const localePrefix = (locale: Locale) => (locale === "en" ? BASE : `${BASE}/${locale}`);
