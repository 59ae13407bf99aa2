// A chapter read in parts (site/lib/chapter-parts.ts), in chromium: Learn at the chapter's URL,
// then Run it, Code, Deep dive and Exercises, each its own page in every locale, reachable by tabs and the
// sidebar, readable without JavaScript, each shorter than the page it was cut from; and "Full size"
// diagrams, a layer above everything that gives the page back as it was.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { allRunnable, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { hasChromium } from "../support/chromium.ts";
import { CHAPTER_PARTS, LOCALES, siteForSuite, scriptsReady, visit } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

const CHAPTER = "s13-agent-teams";
const PARTS = CHAPTER_PARTS;
/** A laptop's screen, and how many of them a part may take (the whole page took about 40). */
const LAPTOP = { width: 1366, height: 768 };
/** A projector's screen: the shortest a teacher shows a part on. */
const PROJECTOR = { width: 1280, height: 720 };
const MOST_SCREENS = 8;

describe.skipIf(!hasChromium)("a chapter in parts", { timeout: budget({ page: 20 }) }, () => {
  const site = siteForSuite();

  it("each part has its own URL in every locale, with tabs and the sidebar leading to the others, and is at most eight laptop screens long (the whole page was forty, the Code part alone thirty)", async () => {
    const page = await site.tab(LAPTOP);
    const problems: string[] = [];
    const screens: Record<string, number> = {};
    for (const prefix of Object.values(LOCALES)) {
      for (const [part, suffix] of Object.entries(PARTS)) {
        const url = `${site.server.url}${prefix}/${CHAPTER}/${suffix}`;
        problems.push(...(await visit(page, url)).map((p) => `${prefix}/${part}: ${p}`));
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        screens[`${prefix || "en"} ${part}`] = Math.round((height / LAPTOP.height) * 10) / 10;
        const tabs = await page
          .locator("nav.lah-parts a")
          .evaluateAll((links) =>
            links.map((a) => [a.getAttribute("data-part"), a.getAttribute("aria-current")]),
          );
        expect(tabs, `${prefix} ${part}`).toEqual(
          Object.keys(PARTS).map((p) => [p, p === part ? "page" : null]),
        );
        // the sidebar opens this chapter into its parts, the current one marked
        const current = await page
          .locator('nav[aria-label] a[aria-current="page"]')
          .evaluateAll((links) =>
            links.map((a) => new URL((a as HTMLAnchorElement).href).pathname),
          );
        expect(
          current.every((href) => href.endsWith(`/${CHAPTER}/${suffix}`)),
          `${current}`,
        ).toBe(true);
        expect(current.length, `${prefix} ${part}: sidebar and tab`).toBeGreaterThanOrEqual(2);
      }
    }
    expect(problems).toEqual([]);
    console.log(`s13's parts, in laptop screens: ${JSON.stringify(screens)}`);
    expect(Object.entries(screens).filter(([, n]) => n > MOST_SCREENS)).toEqual([]);
  });

  it("each part shows its own sections: the player only in Run it, the excerpts in Code, the source in Deep dive, the checks only in Exercises", async () => {
    const page = await site.tab(LAPTOP);
    const count = (selector: string) => page.locator(selector).count();
    const seen: Record<string, number[]> = {};
    for (const [part, suffix] of Object.entries(PARTS)) {
      await page.goto(`${site.server.url}/de/${CHAPTER}/${suffix}`, { waitUntil: "load" });
      seen[part] = [
        await count("figure.lah-diagram, .lah-diagram"),
        await count(".lah-player"),
        await count("details.lah-source"),
        await count(".lah-exercises"),
        await count(".lah-excerpt"),
      ];
      // the table of contents lists this part's sections, and they are on this page
      const toc = await page
        .locator("starlight-toc nav a")
        .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).hash).filter(Boolean));
      const missing = await page.evaluate(
        (hashes) =>
          hashes.filter(
            (h) => h !== "#_top" && !document.getElementById(decodeURIComponent(h.slice(1))),
          ),
        toc,
      );
      expect(missing, `${part}: table of contents entries not on the page`).toEqual([]);
      // Run it has none: the player takes the room
      if (part === "run") expect(toc, "run: table of contents").toEqual([]);
      else expect(toc.length, `${part}: table of contents`).toBeGreaterThan(1);
    }
    const excerpts = seen.code[4];
    expect(excerpts).toBeGreaterThan(10);
    expect(seen).toEqual({
      learn: [1, 0, 0, 0, 0],
      run: [0, 1, 0, 0, 0],
      code: [0, 0, 0, 0, excerpts],
      "deep-dive": [0, 0, 1, 0, 0],
      exercises: [0, 0, 0, 1, 0],
    });
  });

  it("a link to a section that moved to another part leads there", async () => {
    const page = await site.tab(LAPTOP);
    await page.goto(`${site.server.url}/${CHAPTER}/code/`, { waitUntil: "load" });
    // "step through [the recorded run](#try-it) in the player"
    const link = page.locator('.sl-markdown-content a[href$="#try-it"]').first();
    await link.click();
    await page.waitForURL(`${site.server.url}/${CHAPTER}/run/#try-it`);
    expect(await page.locator("#try-it").isVisible()).toBe(true);
  });

  it("every part reads without JavaScript, tabs included", async () => {
    const context = await site.browser.newContext({ javaScriptEnabled: false, viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(`${site.server.url}/ja/${CHAPTER}/`, { waitUntil: "load" });
    await page.locator('nav.lah-parts a[data-part="run"]').click();
    await page.waitForURL(`${site.server.url}/ja/${CHAPTER}/run/`);
    // the run reads as a list of steps; the sequence diagram is drawn
    expect(await page.locator(".lah-step").count()).toBeGreaterThan(10);
    expect(await page.locator("figure.lah-mermaid svg").count()).toBeGreaterThan(0);
    await page.locator('nav.lah-parts a[data-part="exercises"]').click();
    await page.waitForURL(`${site.server.url}/ja/${CHAPTER}/exercises/`);
    expect(await page.locator(".lah-exercise").count()).toBeGreaterThan(0);
    await context.close();
  });

  it("the Code part of the longest chapter is at most eight screens of a 1280×720 projector when first opened, its long excerpts folded under a line that says where they stand", async () => {
    const page = await site.tab(PROJECTOR);
    const screensOf = async (url: string) => {
      await page.goto(url, { waitUntil: "load" });
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      return Math.round((height / PROJECTOR.height) * 100) / 100;
    };
    // the longest Code part in English, then that chapter's in every locale
    const english: Record<string, number> = {};
    for (const c of allRunnable())
      english[c.name] = await screensOf(`${site.server.url}/${c.name}/code/`);
    const [longest] = Object.entries(english).sort((a, b) => b[1] - a[1])[0];
    const screens: Record<string, number> = {};
    for (const [locale, prefix] of Object.entries(LOCALES))
      screens[locale] = await screensOf(`${site.server.url}${prefix}/${longest}/code/`);
    console.log(
      `The longest Code part, ${longest}'s, in 1280×720 screens: ${JSON.stringify(screens)}`,
    );
    expect(Object.entries(screens).filter(([, n]) => n > MOST_SCREENS)).toEqual([]);
    // A folded excerpt opens by its line and shows the region numbered as its file does.
    await page.goto(`${site.server.url}/${CHAPTER}/code/`, { waitUntil: "load" });
    const id = (await page.locator("details.lah-excerpt:not([open])").first().getAttribute("id"))!;
    const folded = page.locator(`[id="${id}"]`); // (once open, the first folded one is another)
    const region = id.replace(/^code-s13-/, "");
    const where = await folded.locator("summary").textContent();
    const [, first, last] = /(\d+)[–-](\d+)/.exec(where!)!;
    await folded.locator("summary").click();
    const numbers = await folded
      .locator(".expressive-code .ln")
      .evaluateAll((lines) => lines.map((l) => Number(l.textContent)));
    expect(numbers[0], region).toBe(Number(first));
    expect(numbers.at(-1), region).toBe(Number(last));
    const file = readFileSync(path.join(REPO_ROOT, "chapters", CHAPTER, "agent.ts"), "utf8");
    const lines = file.split("\n");
    if (lines[Number(first) - 2]?.includes(`#region ${region}`))
      expect(lines[Number(first) - 2].trim()).toBe(`// #region ${region}`);
  });

  it("a link to a folded excerpt from a later chapter's What changed opens it", async () => {
    const page = await site.tab(PROJECTOR);
    await page.goto(`${site.server.url}/s14-error-recovery/deep-dive/`, { waitUntil: "load" });
    const link = page.locator(`.lah-changes a[href*="/${CHAPTER}/code/#code-s13-"]`).first();
    const hash = new URL((await link.getAttribute("href"))!, page.url()).hash;
    await link.click();
    await page.waitForURL(`**/${CHAPTER}/code/${hash}`);
    const target = page.locator(decodeURIComponent(hash));
    await expect.poll(() => target.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await target.locator(".expressive-code").isVisible()).toBe(true);
  });
});

describe.skipIf(!hasChromium)("Full size", { timeout: budget({ page: 6 }) }, () => {
  const site = siteForSuite();

  /** Opens s06's scenario, scrolled to its sequence diagram, and that diagram full size. */
  async function openFullSize(viewport: { width: number; height: number }) {
    const page = await site.tab(viewport);
    await page.goto(`${site.server.url}/s06-subagent/run/`, { waitUntil: "load" });
    await scriptsReady(page);
    const figure = page.locator("figure.lah-mermaid").first();
    await figure.scrollIntoViewIfNeeded();
    const scroll = await page.evaluate(() => window.scrollY);
    await figure.locator(".lah-mermaid-zoom").click();
    const close = page.locator("dialog[open] .lah-mermaid-close");
    await close.waitFor();
    return { page, close, scroll };
  }

  /** What is drawn on top at the middle of an element: that element, or what covers it. */
  const onTop = (locator: import("playwright-core").Locator) =>
    locator.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return top === el || el.contains(top);
    });

  it("lies above header, sidebar and table of contents, and its close button takes the click (laptop and phone)", async () => {
    for (const viewport of [
      { width: 1280, height: 720 },
      { width: 390, height: 844 },
    ]) {
      const { page, close, scroll } = await openFullSize(viewport);
      const dialog = page.locator("dialog[open]");
      // the whole window is the diagram's, and the drawing is in it at its own width
      const box = (await dialog.boundingBox())!;
      expect([box.x, box.y, box.width, box.height]).toEqual([
        0,
        0,
        viewport.width,
        viewport.height,
      ]);
      expect(await onTop(close), `${viewport.width}: the close button is covered`).toBe(true);
      expect(await dialog.locator("svg").count()).toBe(1);
      await close.click();
      await expect.poll(() => page.locator("dialog[open]").count()).toBe(0);
      // the page is back where it was, and scrolls (the dialog's close event, which restores the
      // scroll and the drawing, is a task after the dialog closes: waited for)
      await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(scroll);
      await page.mouse.wheel(0, 300);
      await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(scroll);
      await expect
        .poll(() => page.locator("figure.lah-mermaid").first().locator("svg").count())
        .toBe(1);
    }
  });

  it("closes by a click beside the drawing, by Escape and by the back button", async () => {
    const viewport = { width: 1280, height: 720 };
    for (const how of ["click outside", "Escape", "back"] as const) {
      const { page, scroll } = await openFullSize(viewport);
      const url = page.url();
      // beside the drawing: the strip above it, left of the close button
      if (how === "click outside") await page.mouse.click(20, 20);
      if (how === "Escape") await page.keyboard.press("Escape");
      if (how === "back") await page.goBack();
      await expect.poll(() => page.locator("dialog[open]").count(), { message: how }).toBe(0);
      expect(page.url(), how).toBe(url);
      await expect.poll(() => page.evaluate(() => window.scrollY), { message: how }).toBe(scroll);
      // The page scrolls again (waited for: the history step the close takes back is async).
      await expect
        .poll(() => page.evaluate(() => getComputedStyle(document.documentElement).overflow), {
          message: how,
        })
        .not.toBe("hidden");
    }
  });
});
