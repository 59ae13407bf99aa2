// The site published under a sub-path, as GitHub Pages serves a project site
// (https://<owner>.github.io/<repo>/): every link and asset stays under the base, diagrams load,
// search, the player and the language picker work there.
//
// SLOW: the sub-path part builds the site a second time (BASE_PATH=/learn-agent-harness/, about
// 75 s alone, more while the suite's own build runs beside it), so it runs only when FULL=1 or
// CI is set: `FULL=1 npx vitest run tests/browser/base-path.test.ts`. The checks at the top (the
// link helpers, and the edit links of the suite's ordinary build) are quick and always run.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listChapters, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { normalizeBase, rehypeBasePath, withBase } from "../../site/lib/base-path.ts";
import { ensureSiteBuilt } from "../site-build.ts";
import { hasChromium, launch } from "./chromium.ts";
import { serve } from "./serve.ts";

const BASE = "/learn-agent-harness/";
const REPO_URL = "https://github.com/example-owner/learn-agent-harness";
const FULL = process.env.FULL === "1" || Boolean(process.env.CI);
// Inside the repository on purpose: Astro 5 builds an outDir outside the working directory by
// way of ./.astro/ and then deletes ./.astro/ altogether (other test runs' markers included).
const OUT = path.join(REPO_ROOT, "node_modules", ".cache", "lah-base-path-dist");
const chapter = listChapters()[0].name;

describe("links under a base path (helpers)", () => {
  it("normalizes BASE_PATH and moves only root-relative links under it", () => {
    expect(normalizeBase(undefined)).toBe("/");
    expect(normalizeBase("")).toBe("/");
    expect(normalizeBase("learn-agent-harness")).toBe(BASE);
    expect(normalizeBase("//learn-agent-harness//")).toBe(BASE);
    expect(withBase("/ja/s01-agent-loop/", BASE)).toBe("/learn-agent-harness/ja/s01-agent-loop/");
    expect(withBase("/", BASE)).toBe(BASE);
    expect(withBase("/learn-agent-harness/compare/", BASE)).toBe("/learn-agent-harness/compare/");
    for (const href of ["https://x.dev/a", "//cdn/x.js", "#top", "../s02/", "mailto:a@b"])
      expect(withBase(href, BASE)).toBe(href);
    expect(withBase("/s02-tool-use/", "/")).toBe("/s02-tool-use/");
  });

  it("rewrites Markdown links and MDX component props in a page's tree", () => {
    const tree = {
      type: "root",
      children: [
        { type: "element", tagName: "a", properties: { href: "/s02-tool-use/" }, children: [] },
        { type: "element", tagName: "a", properties: { href: "#the-loop" }, children: [] },
        {
          type: "mdxJsxFlowElement",
          attributes: [
            { type: "mdxJsxAttribute", name: "href", value: "/ja/s01-agent-loop/" },
            { type: "mdxJsxAttribute", name: "title", value: "/not-a-link" },
          ],
          children: [],
        },
      ],
    };
    rehypeBasePath({ base: BASE })()(tree);
    expect(JSON.stringify(tree)).toContain('"href":"/learn-agent-harness/s02-tool-use/"');
    expect(JSON.stringify(tree)).toContain('"href":"#the-loop"');
    expect(JSON.stringify(tree)).toContain('"value":"/learn-agent-harness/ja/s01-agent-loop/"');
    expect(JSON.stringify(tree)).toContain('"value":"/not-a-link"');
  });
});

describe("edit links (the suite's ordinary build)", () => {
  let dist: string;
  beforeAll(async () => {
    dist = await ensureSiteBuilt();
  }, 660_000);

  it("every page's edit link opens its own source file", () => {
    const editLink = (page: string) =>
      /<a href="([^"]*\/edit\/[^"]+)"/.exec(
        readFileSync(path.join(dist, page, "index.html"), "utf8"),
      )?.[1] ?? "";
    const expected = {
      [chapter]: `chapters/${chapter}/en.mdx`,
      [`ja/${chapter}`]: `chapters/${chapter}/ja.mdx`,
      [`zh/${chapter}`]: `chapters/${chapter}/zh.mdx`,
      compare: "site/docs/compare.mdx",
      "de/compare": "site/docs/de/compare.mdx",
      "ja/translators": "site/docs/ja/translators.mdx",
    };
    for (const [page, file] of Object.entries(expected)) {
      expect(editLink(page), page).toMatch(
        new RegExp(`/edit/[^/]+/${file.replace(/\./g, "\\.")}$`),
      );
      expect(existsSync(path.join(REPO_ROOT, file)), file).toBe(true);
    }
  });
});

/** The environment a user's shell has: vitest's NODE_ENV=test, MODE, DEV... would make the build
 *  a development build (no search). The same cleanup as tests/site-build.ts. */
function buildEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(VITEST.*|NODE_ENV|DEV|PROD|MODE|SSR|BASE_URL|TEST)$/.test(k),
    ),
  );
  return { ...env, ...extra };
}

describe.skipIf(!hasChromium || !FULL)(`the site built for a sub-path (${BASE})`, () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    rmSync(OUT, { recursive: true, force: true });
    const started = Date.now();
    await new Promise<void>((resolve, reject) =>
      execFile(
        "npx",
        ["astro", "build", "--outDir", OUT],
        {
          cwd: REPO_ROOT,
          env: buildEnv({ BASE_PATH: BASE, SITE: "https://example-owner.github.io", REPO_URL }),
          timeout: 600_000,
          maxBuffer: 64 * 1024 * 1024,
        },
        (err, stdout, stderr) =>
          err
            ? reject(new Error(`build failed:\n${stderr || stdout}`.slice(0, 20_000)))
            : resolve(),
      ),
    );
    console.log(`base-path build: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    server = await serve(OUT, { base: BASE });
    browser = await launch();
  }, 660_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("no link or asset on the sample pages leaves the base, and none is missing", async () => {
    const pages = ["", `${chapter}/`, `ja/${chapter}/`, "compare/", "workshop/", "ja/translators/"];
    const targets = new Map<string, string>(); // url → first page that links to it
    const problems: string[] = [];
    const page = await browser.newPage();
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()} while loading: ${r.url()}`);
    });
    for (const p of pages) {
      await page.goto(`${server.url}/${p}`, { waitUntil: "load" });
      const urls = await page.evaluate(() =>
        [...document.querySelectorAll("[href], [src]")].flatMap((el) =>
          ["href", "src"]
            .map((a) => el.getAttribute(a))
            .filter((v): v is string => v !== null && v !== "")
            .map((v) => new URL(v, location.href).href),
        ),
      );
      for (const u of urls) {
        const url = new URL(u);
        if (url.origin !== server.origin) continue; // GitHub, the canonical site URL, ...
        url.hash = "";
        if (!url.pathname.startsWith(BASE)) problems.push(`/${p}: outside the base: ${u}`);
        if (!targets.has(url.href)) targets.set(url.href, `/${p}`);
      }
    }
    await page.close();
    let notFound = 0;
    await Promise.all(
      [...targets].map(async ([url, from]) => {
        const res = await fetch(url);
        if (res.status >= 400) {
          notFound++;
          problems.push(`${from}: HTTP ${res.status}: ${url}`);
        }
      }),
    );
    console.log(
      `base-path links: ${targets.size} distinct URLs on ${pages.length} pages, ${notFound} not found`,
    );
    expect(targets.size).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  }, 120_000);

  it("shows a chapter's diagram", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/ja/${chapter}/`);
    const img = page.locator("figure.lah-diagram img").first();
    await img.scrollIntoViewIfNeeded();
    expect(await img.getAttribute("src")).toMatch(new RegExp(`^${BASE}_astro/.+\\.ja\\..*svg$`));
    await expect
      .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0))
      .toBe(true);
    await page.close();
  }, 60_000);

  it("search finds pages and links to them under the base", async () => {
    for (const [prefix, word] of [
      ["", "loop"],
      ["ja/", "ループ"],
    ] as const) {
      const page = await browser.newPage();
      await page.goto(`${server.url}/${prefix}${chapter}/`);
      await page.locator("button[data-open-modal]").first().click();
      await page.locator("dialog[open] #starlight__search input").waitFor({ timeout: 60_000 });
      await page.locator("#starlight__search input").fill(word);
      const link = page.locator(".pagefind-ui__result-link").first();
      await link.waitFor({ timeout: 15_000 });
      const href = (await link.getAttribute("href")) ?? "";
      expect(href.startsWith(`${BASE}${prefix}`), href).toBe(true);
      expect((await fetch(new URL(href, server.origin))).status, href).toBe(200);
      await page.close();
    }
  }, 120_000);

  it("the player steps through the recorded run", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/${chapter}/`);
    const player = page.locator(".lah-player").first();
    const current = () =>
      player.locator('.lah-step[aria-current="step"]').getAttribute("data-index");
    await expect.poll(current).toBe("0");
    await player.locator("button[data-action=next]").click();
    await player.locator("button[data-action=next]").click();
    expect(await current()).toBe("2");
    await player.locator("button[data-action=back]").click();
    expect(await current()).toBe("1");
    await page.close();
  }, 60_000);

  it("the language picker, the home page's start button and the edit link stay in place", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/${chapter}/`);
    await page
      .locator("starlight-lang-select select")
      .first()
      .selectOption({ value: `${BASE}ja/${chapter}/` });
    await page.waitForURL(`${server.url}/ja/${chapter}/`);
    expect(await page.getAttribute("html", "lang")).toBe("ja");
    expect(
      await page.locator(`a[href="${REPO_URL}/edit/main/chapters/${chapter}/ja.mdx"]`).count(),
    ).toBe(1);
    await page.goto(`${server.url}/`);
    await page.locator(".hero .sl-link-button").first().click();
    await page.waitForURL(`${server.url}/${chapter}/`);
    await page.close();
  }, 60_000);
});
