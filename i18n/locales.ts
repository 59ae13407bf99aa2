// The one list of the site's languages. The chapter runner, the site, the workshop kit and the
// translation tracker all read it; adding a language starts here.
export const LOCALES = ["en", "ja", "zh", "de"] as const;
export type Locale = (typeof LOCALES)[number];

/** English is the source; the others are translations of it. */
export const TRANSLATED_LOCALES = ["ja", "zh", "de"] as const satisfies readonly Locale[];
export type TranslatedLocale = (typeof TRANSLATED_LOCALES)[number];

/** How Starlight names each language: its label in the picker and its BCP 47 tag. */
export const LOCALE_INFO: Record<Locale, { label: string; lang: string }> = {
  en: { label: "English", lang: "en" },
  ja: { label: "日本語", lang: "ja" },
  zh: { label: "简体中文", lang: "zh-CN" },
  de: { label: "Deutsch", lang: "de" },
};
