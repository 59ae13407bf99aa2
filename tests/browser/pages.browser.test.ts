// A page of every kind in every locale, in chromium at phone width: it loads without console
// errors or failed requests, its diagrams render, nothing overflows 390 px, and the language and
// theme pickers (the menu's, or the home page's own, which has no menu) show their labels whole. (Every link and
// image of every page is checked without a browser by tests/site.test.ts.)
import { describe, expect, it } from "vitest";
import { hasChromium } from "../support/chromium.ts";
import {
  appendices,
  chapter,
  chapters,
  cutPickerLabels,
  LOCALES,
  siteForSuite,
  visit,
} from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

/** English: a page of every kind (home, the first, largest and last chapter, the largest in all
 *  its parts, the case study, the appendices, the site pages with tables, the translators' guide);
 *  the other locales: the home page, the largest chapter in its parts, the appendices and the pages
 *  whose tables are widest. */
const SAMPLE = {
  en: [
    "",
    `${chapter}/`,
    `${chapter}/run/`,
    "s13-agent-teams/",
    "s13-agent-teams/run/",
    "s13-agent-teams/code/",
    "s13-agent-teams/exercises/",
    `${chapters.at(-1)}/`,
    `${chapters.at(-1)}/run/`,
    "case-study-hierarchy/",
    ...appendices.map((name) => `${name}/`),
    "compare/",
    "timeline/",
    "workshop/",
    "translation-status/",
    "translators/",
  ],
  other: [
    "",
    "s13-agent-teams/",
    "s13-agent-teams/run/",
    "s13-agent-teams/code/",
    "s13-agent-teams/exercises/",
    ...appendices.map((name) => `${name}/`),
    "compare/",
    "timeline/",
    "translation-status/",
  ],
};

const URLS = Object.entries(LOCALES).flatMap(([locale, prefix]) =>
  (locale === "en" ? SAMPLE.en : SAMPLE.other).map((p) => `${prefix}/${p}`),
);
const VISITS = budget({ page: URLS.length });

describe.skipIf(!hasChromium)("pages in chromium at 390 px", { timeout: VISITS }, () => {
  const site = siteForSuite();

  it("a page of every kind, in every locale, loads without errors and fits a 390 px screen", async () => {
    const { browser, server } = site;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const failures: string[] = [];
    const queue = [...URLS];
    // Three tabs at a time: a 2-core machine renders while another tab waits on the network. Each
    // tab goes on to its next page (a new tab per page costs three times the CPU).
    await Promise.all(
      [1, 2, 3].map(async () => {
        const page = await context.newPage();
        for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
          const problems = await visit(page, server.url + url);
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          if (overflow > 0) problems.push(`overflows by ${overflow}px at 390px`);
          if (url.endsWith("/s13-agent-teams/")) {
            // a page with a sidebar: its menu shows the language and theme pickers, labels whole
            await page.locator("starlight-menu-button button").click();
            problems.push(...(await cutPickerLabels(page)).map((cut) => `menu picker: ${cut}`));
          }
          if (Object.values(LOCALES).some((prefix) => url === `${prefix}/`)) {
            // the home page has no menu: its language and theme pickers are on the page, whole
            const shown = await page.evaluate(() =>
              ["starlight-lang-select select", "starlight-theme-select select"].map(
                (s) =>
                  [...document.querySelectorAll(s)].filter((el) => el.checkVisibility()).length,
              ),
            );
            if (shown.some((n) => n !== 1)) problems.push(`home page pickers shown: ${shown}`);
            problems.push(...(await cutPickerLabels(page)).map((cut) => `home picker: ${cut}`));
          }
          failures.push(...problems.map((p) => `${url}: ${p}`));
        }
        await page.close();
      }),
    );
    await context.close();
    expect(failures).toEqual([]);
  });
});
