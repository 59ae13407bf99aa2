// The site published under a sub-path, as GitHub Pages serves a project site
// (https://<owner>.github.io/<repo>/). The suite's one build is such a build (site-build.ts), so
// every site test runs under the base: tests/site.test.ts checks that every link and asset of
// every page stays under it, tests/browser/site.browser.test.ts that search, the player and the
// language picker work there. This file checks the helpers that move links under the base, the
// edit links, and where a page's diagram is loaded from.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listChapters, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { normalizeBase, rehypeBasePath, withBase } from "../../site/lib/base-path.ts";
import { BASE, ensureSiteBuilt, REPO_URL } from "../support/site-build.ts";
import { budget } from "../support/budgets.ts";
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

describe("the suite's build, made for a sub-path", () => {
  let dist: string;
  beforeAll(async () => {
    dist = await ensureSiteBuilt();
  }, budget("siteBuild"));

  it("every page's edit link opens its own source file", () => {
    const editLink = (page: string) =>
      /<a href="([^"]*\/edit\/[^"]+)"/.exec(
        readFileSync(path.join(dist, page, "index.html"), "utf8"),
      )?.[1] ?? "";
    const expected = {
      [chapter]: `chapters/${chapter}/en.mdx`,
      [`ja/${chapter}`]: `chapters/${chapter}/ja.mdx`,
      [`zh/${chapter}`]: `chapters/${chapter}/zh.mdx`,
      // a chapter's later parts are the same file (site/lib/chapter-parts.ts)
      [`${chapter}/run`]: `chapters/${chapter}/en.mdx`,
      [`de/${chapter}/exercises`]: `chapters/${chapter}/de.mdx`,
      compare: "site/docs/compare.mdx",
      "de/compare": "site/docs/de/compare.mdx",
      "ja/translators": "site/docs/ja/translators.mdx",
    };
    for (const [page, file] of Object.entries(expected)) {
      expect(editLink(page), page).toBe(`${REPO_URL}/edit/main/${file}`);
      expect(existsSync(path.join(REPO_ROOT, file)), file).toBe(true);
    }
  });

  it("loads a chapter's diagram, in the page's language, from under the base", () => {
    const html = readFileSync(path.join(dist, "ja", chapter, "index.html"), "utf8");
    const src = /<figure class="lah-diagram[^"]*"[\s\S]*?<img src="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(src).toMatch(new RegExp(`^${BASE}_astro/.+\\.ja\\..*svg$`));
    expect(existsSync(path.join(dist, src.slice(BASE.length)))).toBe(true);
  });
});
