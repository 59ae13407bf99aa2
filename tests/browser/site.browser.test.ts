// The built site in a real browser: every page loads cleanly, fits a phone, and the interactive
// parts (language picker, search, mermaid, dark mode) work. Screenshots go to artifacts/.
import { mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listChapters, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { ensureSiteBuilt } from "../site-build.ts";
import { hasChromium, launch } from "./chromium.ts";
import { serve } from "./serve.ts";

const SHOTS = path.join(REPO_ROOT, "artifacts/screenshots");
const LOCALES = { en: "", ja: "/ja", zh: "/zh", de: "/de" } as const;
const chapter = listChapters()[0].name;

let browser: Browser;
let server: Awaited<ReturnType<typeof serve>>;
let dist: string;

function htmlPages(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith("index.html"))
    .map((f) => `/${path.dirname(f)}/`.replace(/^\/\.\/$/, "/").replace(/\/\.?\/$/, "/"));
}

/** Opens a page and collects console errors and failed requests while it loads (and, on a page
 *  with mermaid diagrams, until they have rendered). */
async function visit(page: Page, url: string) {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  await page.goto(url, { waitUntil: "load" });
  const diagrams = page.locator("pre.mermaid-source:not([data-rendered])");
  if (await diagrams.count()) {
    await page
      .waitForFunction(
        () => !document.querySelector("pre.mermaid-source:not([data-rendered])"),
        null,
        { timeout: 30_000 },
      )
      .catch(() => problems.push("mermaid did not render"));
  }
  return problems;
}

describe.skipIf(!hasChromium)("the site in chromium", () => {
  beforeAll(async () => {
    dist = await ensureSiteBuilt();
    server = await serve(dist);
    browser = await launch();
    mkdirSync(SHOTS, { recursive: true });
  }, 660_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("every page of every locale loads without errors and fits a 390 px screen", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const failures: string[] = [];
    const pages = htmlPages(dist);
    expect(pages.length).toBeGreaterThan(8);
    const queue = [...pages];
    // Three tabs at a time: a 2-core machine renders while another tab waits on the network.
    await Promise.all(
      [1, 2, 3].map(async () => {
        for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
          const page = await context.newPage();
          const problems = await visit(page, server.url + url);
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          if (overflow > 0) problems.push(`overflows by ${overflow}px at 390px`);
          failures.push(...problems.map((p) => `${url}: ${p}`));
          await page.close();
        }
      }),
    );
    await context.close();
    expect(failures).toEqual([]);
  }, 600_000);

  it("the language picker switches between en, ja, zh and de on the same chapter", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/${chapter}/`);
    for (const [locale, prefix] of [
      ["ja", "/ja"],
      ["zh", "/zh"],
      ["de", "/de"],
      ["en", ""],
    ] as const) {
      await page
        .locator("starlight-lang-select select")
        .first()
        .selectOption({ value: `${prefix}/${chapter}/` });
      await page.waitForURL(`${server.url}${prefix}/${chapter}/`);
      expect(await page.getAttribute("html", "lang"), locale).toBe(
        locale === "zh" ? "zh-CN" : locale,
      );
    }
    await page.close();
  }, 120_000);

  it("search finds that locale's pages for a word in its language", async () => {
    const words = { en: "loop", ja: "ループ", zh: "循环", de: "Schleife" } as const;
    for (const [locale, word] of Object.entries(words)) {
      const page = await browser.newPage();
      const prefix = LOCALES[locale as keyof typeof LOCALES];
      await page.goto(`${server.url}${prefix}/${chapter}/`);
      await page.locator("button[data-open-modal]").first().click();
      await page.locator("dialog[open] #starlight__search input").waitFor({ timeout: 60_000 }); // Pagefind UI loads on first open
      await page.locator("#starlight__search input").fill(word);
      const link = page.locator(".pagefind-ui__result-link").first();
      await link.waitFor({ timeout: 15_000 });
      const href = (await link.getAttribute("href")) ?? "";
      expect(href.startsWith(`${prefix}/`), `${locale}: ${href}`).toBe(true);
      if (locale === "en") expect(href).not.toMatch(/^\/(ja|zh|de)\//);
      if (locale === "ja")
        await expect
          .poll(() => page.locator(".pagefind-ui__message").textContent(), { timeout: 5_000 })
          .toMatch(/^ループの\d+件の検索結果$/);
      await page.close();
    }
  }, 120_000);

  it("mermaid diagrams render to SVG in light and dark themes", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    for (const theme of ["light", "dark"] as const) {
      await page.addInitScript((t) => localStorage.setItem("starlight-theme", t), theme);
      await page.goto(`${server.url}/${chapter}/`);
      const block = page.locator("pre.mermaid-source").first();
      await expect.poll(() => block.getAttribute("data-rendered"), { timeout: 20_000 }).toBe(theme);
      expect(await block.locator("svg").count()).toBe(1);
    }
    await context.close();
  }, 120_000);

  it("dark mode persists across pages", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.locator("starlight-theme-select select").first().selectOption("dark");
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    await page.goto(`${server.url}/ja/${chapter}/`);
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    await page.close();
  }, 60_000);

  it("the step-through player steps forward and back, by button and by keyboard", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/${chapter}/`);
    const player = page.locator(".lah-player").first();
    const current = () =>
      player.locator('.lah-step[aria-current="step"]').getAttribute("data-index");
    await expect.poll(current).toBe("0");
    await player.locator("button[data-action=next]").click();
    await player.locator("button[data-action=next]").click();
    expect(await current()).toBe("2");
    expect(await player.locator(".lah-step[data-future]").count()).toBe(
      (await player.locator(".lah-step").count()) - 3,
    );
    await player.locator("button[data-action=back]").click();
    expect(await current()).toBe("1");
    await player.focus();
    await page.keyboard.press("ArrowRight");
    expect(await current()).toBe("2");
    await player.locator("button[data-action=last]").click();
    expect(Number(await current())).toBe((await player.locator(".lah-step").count()) - 1);
    await page.close();
  }, 60_000);

  it("saves a screenshot of one chapter per locale", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const [locale, prefix] of Object.entries(LOCALES)) {
      await page.goto(`${server.url}${prefix}/${chapter}/`, { waitUntil: "networkidle" });
      await page.screenshot({
        path: path.join(SHOTS, `${chapter}.${locale}.png`),
        fullPage: false,
      });
    }
    await page.close();
  }, 120_000);
});
