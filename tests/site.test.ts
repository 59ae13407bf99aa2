// The site builds, and every chapter page exists in all four locales with its diagram,
// its tool table (from the chapter code) and its source.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listChapters, REPO_ROOT } from "../chapters/_runner/chapters.ts";
import { translationStatus } from "../site/lib/translation.ts";
import { ensureSiteBuilt } from "./site-build.ts";

const dist = path.join(REPO_ROOT, "dist");
const chapters = listChapters();
const prefixes = { en: "", ja: "ja/", zh: "zh/", de: "de/" } as const;
const page = (prefix: string, name: string) =>
  readFileSync(path.join(dist, prefix, name, "index.html"), "utf8");

// SKIP_SITE_BUILD=1 reuses an existing dist/ while iterating on these checks.
beforeAll(() => ensureSiteBuilt(), 660_000);

describe("documentation site", () => {
  it("has every page in every locale (no translation missing)", () => {
    const missing = translationStatus(REPO_ROOT).filter((s) => s.status === "missing");
    expect(missing.map((m) => m.translation)).toEqual([]);
  });

  for (const chapter of chapters) {
    it(`${chapter.id}: a page per locale with diagram, tools and source`, async () => {
      const { TOOLS } = await import(path.join(chapter.dir, "agent.ts"));
      for (const [locale, prefix] of Object.entries(prefixes)) {
        const html = page(prefix, chapter.name);
        expect(html, `${locale}/${chapter.name}`).toContain(
          `lang="${locale === "zh" ? "zh-CN" : locale}"`,
        );
        expect(html).toMatch(/class="lah-diagram"[\s\S]*?<img src="[^"]+\.svg"/);
        expect(html).toContain('class="lah-tools"');
        for (const tool of TOOLS) expect(html).toContain(`<code>${tool.name}</code>`);
        expect(html).toContain('class="lah-source"');
        expect(html).toContain("mermaid-source");
      }
    });
  }

  it("is a production build with search in every locale", () => {
    for (const prefix of Object.values(prefixes))
      expect(page(prefix, chapters[0].name)).toContain('id="starlight__search"');
    expect(existsSync(path.join(dist, "pagefind/pagefind.js"))).toBe(true);
  });

  it("loads mermaid only on pages that have a diagram", () => {
    expect(page("", "")).not.toMatch(/Mermaid\.astro_astro_type_script/);
    expect(page("", chapters[0].name)).toMatch(/Mermaid\.astro_astro_type_script/);
  });

  it("keeps mermaid sources out of the search index", () => {
    const html = page("", chapters[0].name);
    expect(html).toMatch(/<figure class="lah-mermaid[^"]*"[^>]*data-pagefind-ignore/);
  });
});
