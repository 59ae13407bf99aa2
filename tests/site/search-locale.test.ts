// The search dialog speaks the page's language. Starlight hands Pagefind UI its strings in
// <site-search data-translations="{...}">; Pagefind UI's own guess from <html lang> never runs
// (@pagefind/default-ui 1.5 ships a no-op onMount), so whatever is missing there is English:
// "6 results for メールボックス". The strings come from i18n/ui.<locale>.json (`pagefind.*`).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { LOCALE_INFO, LOCALES, type Locale } from "../../i18n/locales.ts";
import { ensureSiteBuilt } from "../support/site-build.ts";
import { decodeHtml } from "../support/html.ts";
import { budget } from "../support/budgets.ts";

/** The strings Pagefind UI's default interface shows (placeholder comes from Starlight's search.label). */
const SHOWN = [
  "clear_search",
  "load_more",
  "search_label",
  "filters_label",
  "zero_results",
  "many_results",
  "one_result",
  "searching",
];

const ui = (locale: Locale) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, `i18n/ui.${locale}.json`), "utf8")) as Record<
    string,
    string
  >;

describe("search speaks the page's language", () => {
  let dist: string;
  beforeAll(async () => {
    dist = await ensureSiteBuilt();
  }, budget("siteBuild"));

  it("i18n/ui.<locale>.json translates every string Pagefind UI shows", () => {
    const english = ui("en");
    for (const locale of LOCALES) {
      const strings = ui(locale);
      for (const key of SHOWN) {
        expect(strings[`pagefind.${key}`], `${locale}: pagefind.${key}`).toBeTruthy();
        if (locale !== "en")
          expect(
            strings[`pagefind.${key}`],
            `${locale}: pagefind.${key} is still English`,
          ).not.toBe(english[`pagefind.${key}`]);
        // Pagefind fills in [COUNT] and [SEARCH_TERM]; a translation must keep them.
        const holes = (s: string) => (s.match(/\[[A-Z_]+\]/g) ?? []).sort();
        expect(holes(strings[`pagefind.${key}`]), `${locale}: pagefind.${key}`).toEqual(
          holes(english[`pagefind.${key}`]),
        );
      }
    }
  });

  it("every built page of every locale hands Pagefind UI that locale's strings", () => {
    const failures: string[] = [];
    let checked = 0;
    for (const locale of LOCALES) {
      const root = locale === "en" ? dist : path.join(dist, locale);
      const files = (readdirSync(root, { recursive: true }) as string[]).filter(
        // the /code/ pages hold source code, not a page of the site (site/pages/code/)
        (f) => f.endsWith("index.html") && (locale !== "en" || !/^(ja|zh|de|code)[/\\]/.test(f)),
      );
      const strings = ui(locale);
      for (const file of files) {
        const html = readFileSync(path.join(root, file), "utf8");
        const where = `${locale === "en" ? "" : `${locale}/`}${file}`;
        const lang = /<html[^>]*\blang="([^"]*)"/.exec(html)?.[1];
        if (lang !== LOCALE_INFO[locale].lang) failures.push(`${where}: <html lang="${lang}">`);
        const attr = /<site-search\b[^>]*\bdata-translations="([^"]*)"/.exec(html)?.[1];
        if (attr === undefined) {
          failures.push(`${where}: no <site-search data-translations>`);
          continue;
        }
        const given = JSON.parse(decodeHtml(attr)) as Record<string, string>;
        for (const key of SHOWN) {
          // Nothing given means English, whatever the page's language.
          if (!given[key])
            failures.push(`${where}: no ${key}, so Pagefind UI shows its English one`);
          else if (given[key] !== strings[`pagefind.${key}`])
            failures.push(
              `${where}: ${key} = ${JSON.stringify(given[key])}, expected ${JSON.stringify(strings[`pagefind.${key}`])}`,
            );
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(failures.slice(0, 20)).toEqual([]);
  });

  it("the Japanese chapter page's result header would read 「メールボックスの6件の検索結果」", () => {
    const html = readFileSync(path.join(dist, "ja/s13-agent-teams/index.html"), "utf8");
    const given = JSON.parse(
      decodeHtml(/<site-search\b[^>]*\bdata-translations="([^"]*)"/.exec(html)?.[1] ?? "{}"),
    ) as Record<string, string>;
    expect(
      (given.many_results ?? "").replace("[COUNT]", "6").replace("[SEARCH_TERM]", "メールボックス"),
    ).toBe("メールボックスの6件の検索結果");
  });
});
