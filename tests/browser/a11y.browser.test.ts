// axe-core, the standard accessibility checker, over a page of every kind in the light and the
// dark theme: contrast, names, landmarks, keyboard reach of scrolling regions. Any violation fails
// with its rule, impact and the first elements it names.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { hasChromium } from "../support/chromium.ts";
import { chapter, siteForSuite } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
// Every kind once (a chapter's Learn part has the diagram and tool table, its Run it the player,
// its Code the code; a translated chapter the other fonts), kept to small pages: axe takes ~5 s
// on the longest ones.
const PAGES = [
  "/",
  `/${chapter}/`,
  `/${chapter}/run/`,
  `/${chapter}/code/`,
  "/ja/s10-task-system/",
  "/compare/",
  "/timeline/",
  "/workshop/",
  "/de/translation-status/",
  `/code/${chapter}/`,
];

interface Violation {
  id: string;
  impact: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

// axe takes about as long as loading the page it checks.
const CHECKS = budget({ page: 2 * PAGES.length + 3 });

describe.skipIf(!hasChromium)("accessibility (axe-core)", { timeout: CHECKS }, () => {
  const site = siteForSuite();

  // Every rule in the light theme; in the dark theme only contrast changes, so only contrast is
  // checked there, on the pages with colours of their own (player, diff, status table). The dark
  // run switches the loaded page the way the theme picker does (`data-theme` on the root, which
  // every colour of the site follows) rather than loading it again.
  const DARK = [`/${chapter}/run/`, `/${chapter}/code/`, "/compare/", "/de/translation-status/"];

  it("finds no violation on a page of every kind, light theme, nor in the dark theme (color-contrast)", async () => {
    const context = await site.browser.newContext();
    await context.addInitScript(() => localStorage.setItem("starlight-theme", "light"));
    const page = await context.newPage(); // one tab for every page: a new tab costs more CPU
    const found: string[] = [];
    const check = async (url: string, theme: string, rules?: string[]) => {
      const violations = await page.evaluate(async (rules) => {
        type Axe = { run(c: Document, o: object): Promise<{ violations: unknown[] }> };
        const axe = (window as unknown as { axe: Axe }).axe;
        // violations only: collecting every pass as well doubles the time on a long page
        const only = rules ? { runOnly: { type: "rule", values: rules } } : {};
        return (await axe.run(document, { resultTypes: ["violations"], ...only })).violations;
      }, rules);
      for (const v of violations as Violation[])
        found.push(
          `${url} (${theme}): ${v.impact} ${v.id} (${v.nodes.length}×): ${v.nodes
            .slice(0, 2)
            .map((n) => `${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim()}`)
            .join(" | ")}`,
        );
    };
    let dark = 0;
    for (const url of PAGES) {
      await page.goto(site.server.url + url, { waitUntil: "load" });
      await page.addScriptTag({ path: AXE });
      await check(url, "light");
      if (!DARK.includes(url)) continue;
      await page.evaluate(() => (document.documentElement.dataset.theme = "dark"));
      // colours fade to the new theme (the player's steps in 0.2 s): measure once they are there
      await page.waitForFunction(() =>
        document.getAnimations().every((a) => a.playState !== "running"),
      );
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe(
        "rgb(255, 255, 255)",
      );
      await check(url, "dark", ["color-contrast"]);
      dark++;
    }
    await context.close();
    expect(dark).toBe(DARK.length);
    expect(found).toEqual([]);
  });
});
