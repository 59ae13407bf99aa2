// axe-core, the standard accessibility checker, over a page of every kind in the light and the
// dark theme: contrast, names, landmarks, keyboard reach of scrolling regions. Any violation fails
// with its rule, impact and the first elements it names.
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium } from "./chromium.ts";
import { chapter, openSite } from "./site.ts";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
// Every kind once (a chapter page has the player, diagrams and code; a translated chapter the
// other fonts), kept to small pages: axe takes ~5 s on the longest ones.
const PAGES = [
  "/",
  `/${chapter}/`,
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

describe.skipIf(!hasChromium)("accessibility (axe-core)", () => {
  let site: Awaited<ReturnType<typeof openSite>>;
  beforeAll(async () => {
    site = await openSite();
  }, 660_000);
  afterAll(() => site?.close());

  // Every rule in the light theme; in the dark theme only contrast changes, so only contrast is
  // checked there, on the pages with colours of their own (player, diff, status table).
  const RUNS = {
    light: { pages: PAGES, rules: undefined },
    dark: {
      pages: [`/${chapter}/`, "/compare/", "/de/translation-status/"],
      rules: ["color-contrast"],
    },
  } as const;
  for (const theme of ["light", "dark"] as const) {
    const { pages, rules } = RUNS[theme];
    it(`finds no violation on a page of every kind, ${theme} theme${rules ? ` (${rules.join(", ")})` : ""}`, async () => {
      const context = await site.browser.newContext();
      await context.addInitScript((t) => localStorage.setItem("starlight-theme", t), theme);
      const found: string[] = [];
      const page = await context.newPage(); // one tab for every page: a new tab costs more CPU
      for (const url of pages) {
        await page.goto(site.server.url + url, { waitUntil: "load" });
        await page.addScriptTag({ path: AXE });
        const violations = await page.evaluate(
          async (rules) => {
            type Axe = { run(c: Document, o: object): Promise<{ violations: unknown[] }> };
            const axe = (window as unknown as { axe: Axe }).axe;
            // violations only: collecting every pass as well doubles the time on a long page
            const only = rules ? { runOnly: { type: "rule", values: rules } } : {};
            return (await axe.run(document, { resultTypes: ["violations"], ...only })).violations;
          },
          rules as readonly string[] | undefined,
        );
        for (const v of violations as Violation[])
          found.push(
            `${url}: ${v.impact} ${v.id} (${v.nodes.length}×): ${v.nodes
              .slice(0, 2)
              .map((n) => `${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim()}`)
              .join(" | ")}`,
          );
      }
      await context.close();
      expect(found).toEqual([]);
    }, 180_000);
  }
});
