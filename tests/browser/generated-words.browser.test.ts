// Generated text in the reader's language, in chromium: on a chapter page in ja, zh and de, the
// tool table's descriptions are the translations (i18n/tools.<locale>.json) of what the chapter's
// TOOLS says, and the sequence diagram drawn from the recorded run says "claims task 1" and
// "spawn" in the page's language (sequence.* in i18n/ui.<locale>.json), while what the run itself
// wrote (a message's type) stays as it was.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findChapter, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import type { ChapterModule } from "../../chapters/_shared/types.ts";
import { hasChromium } from "../support/chromium.ts";
import { LOCALES, siteForSuite } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

const strings = (file: string) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, "i18n", file), "utf8")) as Record<string, string>;

describe.skipIf(!hasChromium)(
  "generated text in the reader's language",
  { timeout: budget({ page: 12 }) },
  () => {
    const site = siteForSuite();

    it("tool descriptions and the sequence diagram's words are the locale's, in ja, zh and de", async () => {
      const s13 = findChapter("s13")!;
      const { TOOLS } = (await import(path.join(s13.dir, "agent.ts"))) as ChapterModule;
      const page = await site.tab({ width: 1280, height: 720 });
      for (const locale of ["ja", "zh", "de"] as const) {
        const tools = strings(`tools.${locale}.json`);
        const ui = strings(`ui.${locale}.json`);
        await page.goto(`${site.server.url}${LOCALES[locale]}/${s13.name}/`, { waitUntil: "load" });
        const rows = await page
          .locator("table.lah-tools tbody tr")
          .evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll("td")[1].textContent!.trim()));
        // (a `code` span of the description is shown as code, without its backticks)
        expect(rows, locale).toEqual(
          TOOLS.map((tool) => tools[tool.description!].replace(/`/g, "")),
        );
        // the recorded run's diagram, on Run it
        await page.goto(`${site.server.url}${LOCALES[locale]}/${s13.name}/run/`, {
          waitUntil: "load",
        });
        const drawn = await page
          .locator(".lah-trace-sequence svg text")
          .evaluateAll((texts) => texts.map((t) => t.textContent ?? ""));
        const claims = ui["sequence.claims"].replace("{{task}}", "1");
        expect(drawn, locale).toContain(claims);
        expect(drawn, locale).toContain(ui["sequence.spawn"]);
        expect(
          drawn.some((text) => /claims task/.test(text)),
          locale,
        ).toBe(false);
        // a message's type is the run's own word
        expect(drawn, locale).toContain("result");
      }
      // the translation status counts the descriptions: every one translated, none left over
      await page.goto(`${site.server.url}/translation-status/`, { waitUntil: "load" });
      const counts = await page
        .locator("table.lah-status-tools tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.textContent))),
        );
      const descriptions = Object.keys(strings("tools.ja.json")).length;
      expect(counts).toEqual([
        [descriptions, 0, 0],
        [descriptions, 0, 0],
        [descriptions, 0, 0],
      ]);
    });
  },
);
