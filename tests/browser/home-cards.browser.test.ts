// The home page's learning path, in chromium at a phone's 390 px and a projector's 1280 px, in
// every locale: the harness growing chapter by chapter (the chart), and under each chapter's
// sentence its tools and lines, which must be what the chapter code says: the TOOLS its agent.ts
// sends to the model, the lines of its lesson files. Nothing typed by hand, nothing cut off.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listChapters } from "../../chapters/_runner/chapters.ts";
import type { ChapterModule } from "../../chapters/_shared/types.ts";
import { hasChromium } from "../support/chromium.ts";
import { LOCALES, siteForSuite } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

/** What the code says of a chapter: its tools' names, in order, and its lesson files' lines. */
async function fromCode(dir: string) {
  const { TOOLS } = (await import(path.join(dir, "agent.ts"))) as ChapterModule;
  const lines = readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && f !== "scenario.ts")
    .reduce((n, f) => n + readFileSync(path.join(dir, f), "utf8").trimEnd().split("\n").length, 0);
  return { tools: TOOLS.map((t) => t.name), lines };
}

describe.skipIf(!hasChromium)(
  "the home page's chapter cards",
  { timeout: budget({ page: 16 }) },
  () => {
    const site = siteForSuite();

    it("show each chapter's tools and lines as its code has them, and the harness growing, at 390 and 1280 px in every locale", async () => {
      const chapters = listChapters();
      const expected = Object.fromEntries(
        await Promise.all(chapters.map(async (c) => [c.id, await fromCode(c.dir)] as const)),
      );
      for (const width of [390, 1280]) {
        const page = await site.tab({ width, height: 844 });
        for (const [locale, prefix] of Object.entries(LOCALES)) {
          await page.goto(`${site.server.url}${prefix}/`, { waitUntil: "load" });
          const cards = await page.locator(".lah-card-facts").evaluateAll((facts) =>
            facts.map((f) => {
              const item = f.closest("li")!;
              const href = item.querySelector("a")!.getAttribute("href")!;
              const card = f.closest("article, .card") ?? item;
              return {
                id: /\/(s\d\d)-/.exec(href)?.[1],
                count: Number(f.querySelector(".lah-card-tools")!.getAttribute("data-count")),
                tools: [...f.querySelectorAll(".lah-card-tools code")].map((c) => c.textContent),
                added: [...f.querySelectorAll(".lah-card-tools strong code")].map(
                  (c) => c.textContent,
                ),
                lines: Number(f.querySelector(".lah-card-lines")!.getAttribute("data-lines")),
                linesText: f.querySelector(".lah-card-lines")!.textContent,
                // nothing wider than the card it is in
                fits:
                  f.scrollWidth <= f.clientWidth + 1 && card.scrollWidth <= card.clientWidth + 1,
                visible: f.checkVisibility(),
              };
            }),
          );
          const where = `${locale} at ${width} px`;
          expect(
            cards.map((c) => c.id),
            where,
          ).toEqual(chapters.map((c) => c.id));
          for (const card of cards) {
            const code = expected[card.id!];
            expect(card.tools, `${where} ${card.id}`).toEqual(code.tools);
            expect(card.count, `${where} ${card.id}`).toBe(code.tools.length);
            expect(card.lines, `${where} ${card.id}`).toBe(code.lines);
            expect(card.linesText, `${where} ${card.id}`).toContain(String(code.lines));
            expect(card.fits && card.visible, `${where} ${card.id}`).toBe(true);
            // a chapter adds at least one tool or none; what it adds is among its tools
            expect(card.added.every((name) => code.tools.includes(name!))).toBe(true);
          }
          // s01 brings the first tool; s03 adds todo
          expect(cards[0].added).toEqual(["bash"]);
          expect(cards.find((c) => c.id === "s03")!.added).toEqual(["todo"]);
          // the chart: one bar per chapter, inside the screen
          const chart = page.locator("figure.lah-timeline-chart svg");
          expect(await chart.locator("rect.lah-chart-bar title").count(), where).toBe(
            chapters.length,
          );
          const box = (await chart.boundingBox())!;
          expect(box.x >= 0 && box.x + box.width <= width, where).toBe(true);
          expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBe(
            width,
          );
        }
      }
    });
  },
);
