// Every page of every locale is served in its own language: for each source page
// (chapters/<name>/<locale>.mdx, site/docs/<locale>/**/*.mdx, English at the root) the built site has
// the page at its route, in that language, with that source's title, description and first heading.
// A translated page silently served from the English source (as the ja/zh/de home pages once were,
// routed as "ja/index" instead of "ja") fails here. Pages without a translation may fall back to
// English with a notice; they have no source file in the locale and are not checked.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { parseFrontmatter } from "../../chapters/_runner/frontmatter.ts";
import { LOCALE_INFO, LOCALES, TRANSLATED_LOCALES, type Locale } from "../../i18n/locales.ts";
import { ensureSiteBuilt } from "../support/site-build.ts";
import { decodeHtml, visibleText } from "../support/html.ts";
import { budget } from "../support/budgets.ts";

interface SourcePage {
  file: string;
  locale: Locale;
  route: string;
}

/** Every source page and the route Starlight serves it at. */
function sourcePages(): SourcePage[] {
  const pages: SourcePage[] = [];
  const prefix = (locale: Locale) => (locale === "en" ? "/" : `/${locale}/`);
  for (const dir of readdirSync(path.join(REPO_ROOT, "chapters")).sort()) {
    for (const locale of LOCALES) {
      const file = `chapters/${dir}/${locale}.mdx`;
      if (existsSync(path.join(REPO_ROOT, file)))
        pages.push({ file, locale, route: `${prefix(locale)}${dir}/` });
    }
  }
  const docs = (readdirSync(path.join(REPO_ROOT, "site/docs"), { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join("/"))
    .filter((f) => f.endsWith(".mdx"))
    .sort();
  for (const rel of docs) {
    const locale = (TRANSLATED_LOCALES as readonly string[]).find((l) =>
      rel.startsWith(`${l}/`),
    ) as Locale | undefined;
    const inLocale = locale ? rel.slice(locale.length + 1) : rel;
    const slug = inLocale.replace(/\.mdx$/, "").replace(/(^|\/)index$/, "");
    pages.push({
      file: `site/docs/${rel}`,
      locale: locale ?? "en",
      route: `${prefix(locale ?? "en")}${slug ? `${slug}/` : ""}`,
    });
  }
  return pages;
}

/** The first `## heading` of a page's source, as plain text (outside code fences). */
function firstHeading(source: string): string | undefined {
  let fenced = false;
  for (const line of source.replace(/^---\r?\n[\s\S]*?\r?\n---/, "").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) {
      return m[1]
        .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // links
        .replace(/`([^`]*)`/g, "$1") // code
        .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, "$2") // emphasis
        .replace(/\s+/g, " ")
        .trim();
    }
  }
  return undefined;
}

/** The built page's title, description, language and the h2 headings of its content. */
function served(html: string) {
  const title = visibleText(/<title>([\s\S]*?)<\/title>/.exec(html)?.[1] ?? "").replace(
    / \| Learn Agent Harness$/,
    "",
  );
  const description = decodeHtml(
    /<meta name="description" content="([^"]*)"/.exec(html)?.[1] ?? "",
  );
  const lang = /<html[^>]*\blang="([^"]*)"/.exec(html)?.[1];
  const main = html.slice(html.indexOf("<main"), html.lastIndexOf("</main>"));
  const headings = [...main.matchAll(/<h2\b[^>]*>([\s\S]*?)<\/h2>/g)].map((m) => visibleText(m[1]));
  return { title, description, lang, headings };
}

const pages = sourcePages();

describe("every page of every locale is served in its language", () => {
  let dist: string;
  beforeAll(async () => {
    dist = await ensureSiteBuilt();
  }, budget("siteBuild"));

  it("finds the source pages of every locale", () => {
    for (const locale of LOCALES) {
      expect(pages.filter((p) => p.locale === locale).length, locale).toBeGreaterThan(10);
    }
    // the home pages are among them
    for (const locale of LOCALES)
      expect(pages.map((p) => p.route)).toContain(locale === "en" ? "/" : `/${locale}/`);
  });

  it("serves each source page at its route with that source's title, description, language and first heading", () => {
    const failures: string[] = [];
    for (const page of pages) {
      const html = path.join(dist, page.route, "index.html");
      if (!existsSync(html)) {
        failures.push(`${page.file}: no page at ${page.route}`);
        continue;
      }
      const source = readFileSync(path.join(REPO_ROOT, page.file), "utf8");
      const data = parseFrontmatter(source) as {
        title?: string;
        description?: string;
        head?: { tag?: string; content?: string }[];
      };
      // A page may set its browser tab's title itself (the home pages: the site title alone twice
      // otherwise); then the tab shows that.
      const tabTitle = data.head?.find((h) => h.tag === "title")?.content ?? data.title;
      const got = served(readFileSync(html, "utf8"));
      const where = `${page.route} (from ${page.file})`;
      if (got.lang !== LOCALE_INFO[page.locale].lang)
        failures.push(
          `${where}: <html lang="${got.lang}">, expected "${LOCALE_INFO[page.locale].lang}"`,
        );
      if (tabTitle !== undefined && got.title !== String(tabTitle).trim()) {
        failures.push(
          `${where}: title ${JSON.stringify(got.title)}, the source says ${JSON.stringify(tabTitle)}`,
        );
      }
      if (data.description !== undefined && got.description !== String(data.description).trim()) {
        failures.push(
          `${where}: description ${JSON.stringify(got.description.slice(0, 60))}…, not this source's`,
        );
      }
      const heading = firstHeading(source);
      if (heading !== undefined && !got.headings.includes(heading)) {
        failures.push(
          `${where}: no <h2> ${JSON.stringify(heading)}; the page's are ${JSON.stringify(got.headings.slice(0, 4))}`,
        );
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("the learning path on every home page", () => {
  it("names the five layers from site/lib/timeline.ts and lists exactly each layer's chapters", async () => {
    const { LAYERS } = await import("../../site/lib/timeline.ts");
    for (const locale of LOCALES) {
      const file = `site/docs/${locale === "en" ? "" : `${locale}/`}index.mdx`;
      const text = readFileSync(path.join(REPO_ROOT, file), "utf8");
      const cards = [...text.matchAll(/<LayerCard layer="(\w+)">([\s\S]*?)<\/LayerCard>/g)];
      expect(
        cards.map((c) => c[1]),
        file,
      ).toEqual(LAYERS.map((l) => l.id));
      for (const [, layer, body] of cards) {
        const linked = [...body.matchAll(/\]\((?:\/\w\w)?\/(s\d\d)-/g)].map((m) => m[1]);
        expect(linked, `${file}: layer ${layer}`).toEqual([
          ...LAYERS.find((l) => l.id === layer)!.chapters,
        ]);
      }
      expect(text, file).not.toMatch(/<Card title="\d ·/); // no layer titled by hand
    }
  });
});
