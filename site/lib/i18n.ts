// The site's UI strings go through Starlight's own translator, Astro.locals.t: i18next over the
// `i18n` collection, which site/content.config.ts fills from i18n/ui.<locale>.json. This module
// adds the locale of the page, the links under a locale, and one rule for inserted values.
import type { TFunction } from "i18next";
import type en from "../../i18n/ui.en.json";
import { LOCALES, type Locale } from "../../i18n/locales.ts";

export { LOCALES, type Locale };
export type UIKey = keyof typeof en;

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
 *  suffix and a `count`: i18next picks the form by the locale's plural rules. */
type PluralKey = UIKey extends infer K ? (K extends `${infer B}_other` ? B : never) : never;

/** The page's translator: `t("player.next")`, `t("compare.summary", { from: "s01", … })`, filling
 *  the strings' `{{name}}` placeholders. Values go in as they are: Astro escapes what it renders,
 *  and i18next escaping them first would show a "/" as "&#x2F;". */
export function uiStrings(astro: { locals: { t: TFunction<"starlight"> } }) {
  const t = astro.locals.t;
  return (key: UIKey | PluralKey, vars: Record<string, string | number> = {}): string =>
    t(key, { ...vars, interpolation: { escapeValue: false } });
}

/** The site's base path without its trailing slash: "" at the root of a host, "/sub" under one. */
const BASE = (import.meta.env?.BASE_URL ?? "/").replace(/\/+$/, "");

/** Link prefix of a locale, base path included: "" for English at the root of a host, "/ja" ...;
 *  "/sub" and "/sub/ja" when the site is built with BASE_PATH=/sub/. Links are
 *  `${localePrefix(locale)}/page/`. */
export const localePrefix = (locale: Locale) => (locale === "en" ? BASE : `${BASE}/${locale}`);
