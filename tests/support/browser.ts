// What the browser tests share: the built site served under its base, one chromium, and a visit
// that collects every console error and failed request of a page.
import type { Browser, ConsoleMessage, Frame, Page, Request, Response } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { allRunnable, listChapters } from "../../chapters/_runner/chapters.ts";
import { BASE, ensureSiteBuilt } from "./site-build.ts";
import { launch } from "./chromium.ts";
import { budget } from "./budgets.ts";
import { serve } from "./serve.ts";

export const LOCALES = { en: "", ja: "/ja", zh: "/zh", de: "/de" } as const;
/** A chapter's parts, each its own page: the part → the path after the chapter's. */
export const CHAPTER_PARTS = {
  learn: "",
  run: "run/",
  code: "code/",
  "deep-dive": "deep-dive/",
  exercises: "exercises/",
} as const;
export const chapters = listChapters().map((c) => c.name);
export const chapter = chapters[0];
/** The appendices' pages (a1-mcp-servers …). */
export const appendices = allRunnable()
  .filter((c) => c.id.startsWith("a"))
  .map((c) => c.name);

/** The site built for the suite, served under its base, and a browser: close both when done.
 *  `tab()` is the one tab a file's tests share, at the window size a test asks for: each test
 *  loads its own page in it (a new tab costs three times the CPU of the next page in the same
 *  one). A test that changes what a reader's browser remembers (the theme) opens its own. */
export async function openSite(): Promise<{
  browser: Browser;
  server: Awaited<ReturnType<typeof serve>>;
  tab(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}> {
  const server = await serve(await ensureSiteBuilt(), { base: BASE });
  const browser = await launch();
  let shared: Promise<Page> | undefined;
  return {
    browser,
    server,
    async tab(viewport = { width: 1280, height: 720 }) {
      const page = await (shared ??= browser.newPage());
      await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

export type Site = Awaited<ReturnType<typeof openSite>>;

/** The site opened once for the `describe` block (or file) this is called in, and closed after it:
 *  its tests read `site.tab()`, `site.browser`, `site.server` from what this returns. `when:
 *  false` (no chromium here) opens nothing; the tests that would use it are skipped. */
export function siteForSuite({ when = true } = {}): Site {
  let site: Site | undefined;
  beforeAll(
    async () => {
      if (when) site = await openSite();
    },
    budget({ siteBuild: 1, browser: 1 }),
  );
  afterAll(() => site?.close());
  const open = () => {
    if (!site) throw new Error("the site did not open (see the error of its beforeAll)");
    return site;
  };
  return {
    get browser() {
      return open().browser;
    },
    get server() {
      return open().server;
    },
    tab: (viewport) => open().tab(viewport),
    close: () => open().close(),
  };
}

/** A screenshot of what `page` shows, taken once a frame has been painted. Chromium now and then
 *  refuses a capture ("Unable to capture screenshot", most often just after the window size
 *  changed) and takes the same picture when asked after the next frame: so it is asked again,
 *  after a painted frame each time, at most three times; any other error goes up at once. */
export async function screenshot(page: Page, file: string): Promise<void> {
  const painted = () =>
    page.evaluate(
      () =>
        new Promise<void>((done) =>
          requestAnimationFrame(() => requestAnimationFrame(() => done())),
        ),
    );
  for (let attempt = 1; ; attempt++) {
    await painted();
    try {
      await page.screenshot({ path: file });
      return;
    } catch (err) {
      if (attempt >= 3 || !/Unable to capture screenshot/.test((err as Error).message)) throw err;
    }
  }
}

/** Opens `url` in `page` and collects console errors and failed requests while it loads (and, on a
 *  page with mermaid diagrams, until they have rendered). The page may be one a test opened before:
 *  loading the next URL in the same tab costs a third of the CPU of a new tab, and a request the
 *  previous document left pending (and the navigation aborts) is not this page's failure. */
export async function visit(page: Page, url: string) {
  const problems: string[] = [];
  // What happens before the new document commits belongs to the one the tab showed before.
  let committed = false;
  const onNavigated = (frame: Frame) => (committed ||= frame === page.mainFrame());
  const mine = new Set<Request>();
  const onRequest = (r: Request) => (committed || r.isNavigationRequest()) && mine.add(r);
  const onConsole = (m: ConsoleMessage) => {
    if (committed && m.type() === "error") problems.push(`console: ${m.text()}`);
  };
  const onPageError = (e: Error) => committed && problems.push(`page error: ${e.message}`);
  const onFailed = (r: Request) => {
    if (mine.has(r)) problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`);
  };
  const onResponse = (r: Response) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  };
  page.on("framenavigated", onNavigated);
  page.on("request", onRequest);
  page.on("console", onConsole);
  page.on("pageerror", onPageError);
  page.on("requestfailed", onFailed);
  page.on("response", onResponse);
  try {
    await page.goto(url, { waitUntil: "load" });
    await scriptsReady(page);
    const diagrams = page.locator("pre.mermaid-source:not([data-rendered])");
    if (await diagrams.count()) {
      await page
        .waitForFunction(
          () => !document.querySelector("pre.mermaid-source:not([data-rendered])"),
          null,
          { timeout: budget("page") },
        )
        .catch(() => problems.push("mermaid did not render"));
    }
  } finally {
    page.off("framenavigated", onNavigated);
    page.off("request", onRequest);
    page.off("console", onConsole);
    page.off("pageerror", onPageError);
    page.off("requestfailed", onFailed);
    page.off("response", onResponse);
  }
  return problems;
}

/** Waits until the page's custom elements (search, language and theme pickers) are defined, so a
 *  click reaches a handler: on a busy machine the button can be painted well before its script. */
export async function scriptsReady(page: Page) {
  await page.waitForFunction(() =>
    ["site-search", "starlight-lang-select", "starlight-theme-select"].every(
      (name) => !document.querySelector(name) || customElements.get(name),
    ),
  );
  // ...and its web fonts: text laid out in a fallback font moves everything below it once the
  // font arrives, which on a busy machine can be after a test has measured the page.
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
}

/** The header's language and theme pickers that are shown, and every option label that does not
 *  fit its picker (measured in the picker's own font against the room inside its padding). */
export async function cutPickerLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const context = document.createElement("canvas").getContext("2d")!;
    const cut: string[] = [];
    for (const select of document.querySelectorAll<HTMLSelectElement>(
      "starlight-lang-select select, starlight-theme-select select",
    )) {
      if (!select.checkVisibility()) continue;
      const style = getComputedStyle(select);
      context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room =
        select.clientWidth -
        parseFloat(style.paddingInlineStart) -
        parseFloat(style.paddingInlineEnd);
      for (const option of select.options) {
        const needs = context.measureText(option.text).width;
        if (needs > room + 0.5)
          cut.push(`"${option.text}" needs ${needs.toFixed(1)} px, has ${room.toFixed(1)} px`);
      }
    }
    return cut;
  });
}
