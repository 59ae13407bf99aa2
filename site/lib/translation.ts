// Which translations are missing, stale or fresh. A translation records the hash of the English
// page it was made from (`sourceHash` in its frontmatter); no git history or network is needed.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { frontmatter } from "../../chapters/_runner/frontmatter.ts";

import { TRANSLATED_LOCALES, type TranslatedLocale } from "../../i18n/locales.ts";

export { TRANSLATED_LOCALES, type TranslatedLocale };
export type Status = "missing" | "stale" | "fresh";

export interface PageStatus {
  /** Page id as the site uses it, e.g. "s03-todo-write" or "index". */
  page: string;
  locale: TranslatedLocale;
  status: Status;
  english: string;
  translation: string;
  /** The hash of the current English page, to paste into a refreshed translation. */
  currentHash: string;
  recordedHash?: string;
}

/** First 12 hex digits of the SHA-256 of a file's bytes. */
export function sourceHash(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 12);
}

/** Every English page with the paths where its translations live (paths relative to root). */
export function englishPages(
  root = process.cwd(),
): { page: string; english: string; translation(l: TranslatedLocale): string }[] {
  const pages = [];
  const chaptersDir = path.join(root, "chapters");
  for (const dir of existsSync(chaptersDir) ? readdirSync(chaptersDir).sort() : []) {
    if (!existsSync(path.join(chaptersDir, dir, "en.mdx"))) continue;
    pages.push({
      page: dir,
      english: `chapters/${dir}/en.mdx`,
      translation: (l: TranslatedLocale) => `chapters/${dir}/${l}.mdx`,
    });
  }
  const docsDir = path.join(root, "site/docs");
  const docs = existsSync(docsDir) ? (readdirSync(docsDir, { recursive: true }) as string[]) : [];
  for (const file of docs.map((f) => f.split(path.sep).join("/")).sort()) {
    if (!file.endsWith(".mdx") || TRANSLATED_LOCALES.some((l) => file.startsWith(`${l}/`)))
      continue;
    pages.push({
      page: file.replace(/\.mdx$/, ""),
      english: `site/docs/${file}`,
      translation: (l: TranslatedLocale) => `site/docs/${l}/${file}`,
    });
  }
  return pages;
}

export function translationStatus(root = process.cwd()): PageStatus[] {
  return englishPages(root).flatMap(({ page, english, translation }) => {
    const currentHash = sourceHash(path.join(root, english));
    return TRANSLATED_LOCALES.map((locale): PageStatus => {
      const file = translation(locale);
      const full = path.join(root, file);
      if (!existsSync(full))
        return { page, locale, status: "missing", english, translation: file, currentHash };
      const recordedHash = frontmatter(full).sourceHash as string | undefined;
      const status = recordedHash === currentHash ? "fresh" : "stale";
      return { page, locale, status, english, translation: file, currentHash, recordedHash };
    });
  });
}

/** For a translated page's file (e.g. chapters/s03-x/ja.mdx), whether it is stale. */
export function isStale(
  filePath: string | undefined,
  recordedHash: string | undefined,
  root = process.cwd(),
): boolean {
  if (!filePath) return false;
  const locales = TRANSLATED_LOCALES.join("|");
  const english = filePath
    .replace(new RegExp(`/(${locales})\\.mdx$`), "/en.mdx")
    .replace(new RegExp(`^site/docs/(${locales})/`), "site/docs/");
  if (english === filePath || !existsSync(path.join(root, english))) return false;
  return recordedHash !== sourceHash(path.join(root, english));
}

/** How many pages are fresh, stale and missing, per locale. */
export function summarize(
  rows: readonly PageStatus[],
): Record<TranslatedLocale, Record<Status, number>> {
  const totals = Object.fromEntries(
    TRANSLATED_LOCALES.map((l) => [l, { fresh: 0, stale: 0, missing: 0 }]),
  ) as Record<TranslatedLocale, Record<Status, number>>;
  for (const row of rows) totals[row.locale][row.status]++;
  return totals;
}
