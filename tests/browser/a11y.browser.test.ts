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

  for (const theme of ["light", "dark"] as const) {
    it(`finds no violation on a page of every kind, ${theme} theme`, async () => {
      const context = await site.browser.newContext();
      await context.addInitScript((t) => localStorage.setItem("starlight-theme", t), theme);
      const found: string[] = [];
      for (const url of PAGES) {
        const page = await context.newPage();
        await page.goto(site.server.url + url, { waitUntil: "load" });
        await page.addScriptTag({ path: AXE });
        const violations = await page.evaluate(async () => {
          type Axe = { run(c: Document, o: object): Promise<{ violations: unknown[] }> };
          const axe = (window as unknown as { axe: Axe }).axe;
          // violations only: collecting every pass as well doubles the time on a long page
          return (await axe.run(document, { resultTypes: ["violations"] })).violations;
        });
        for (const v of violations as Violation[])
          found.push(
            `${url}: ${v.impact} ${v.id} (${v.nodes.length}×): ${v.nodes
              .slice(0, 2)
              .map((n) => `${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim()}`)
              .join(" | ")}`,
          );
        await page.close();
      }
      await context.close();
      expect(found).toEqual([]);
    }, 180_000);
  }
});
