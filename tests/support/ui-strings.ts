// The site's translator outside Astro, for tests of code that is handed one (site/lib/player.ts):
// i18next set up as Starlight sets it up for Astro.locals.t (one instance, the "starlight"
// namespace, English as the fallback), over the same strings, i18n/ui.<locale>.json, keyed by the
// same language tags, behind the same wrapper the components use (uiStrings).
import { readFileSync } from "node:fs";
import path from "node:path";
import i18next from "i18next";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { LOCALE_INFO, LOCALES, type Locale } from "../../i18n/locales.ts";
import { uiStrings } from "../../site/lib/i18n.ts";

const strings = (locale: Locale) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, `i18n/ui.${locale}.json`), "utf8")) as Record<
    string,
    string
  >;

const i18n = i18next.createInstance();
await i18n.init({
  resources: Object.fromEntries(
    LOCALES.map((locale) => [LOCALE_INFO[locale].lang, { starlight: strings(locale) }]),
  ),
  fallbackLng: LOCALE_INFO.en.lang,
});

/** What `uiStrings(Astro)` gives a component on a page in `locale`. */
export const translatorFor = (locale: Locale) =>
  uiStrings({ locals: { t: i18n.getFixedT(LOCALE_INFO[locale].lang, "starlight") } });
