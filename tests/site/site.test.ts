// The site builds, and every chapter and appendix page exists in all four locales with its
// diagram, its tool table (from the chapter code; an appendix's MCP server tools from its recorded
// run) and its source.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { allRunnable, listChapters, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { partPath, partsOf } from "../../site/lib/chapter-parts.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { translationStatus } from "../../site/lib/translation.ts";
import { BASE, DIST, ensureSiteBuilt } from "../support/site-build.ts";
import { decodeHtml } from "../support/html.ts";
import { budget } from "../support/budgets.ts";

const dist = DIST;
const chapters = allRunnable();
const appendices = chapters.filter((c) => c.id.startsWith("a"));
const prefixes = { en: "", ja: "ja/", zh: "zh/", de: "de/" } as const;
const page = (prefix: string, name: string) =>
  readFileSync(path.join(dist, prefix, name, "index.html"), "utf8");
/** A chapter is read in parts (site/lib/chapter-parts.ts): Learn at its URL, then Run it, Code, Deep dive and,
 *  once it has exercises, Exercises; the parts are the ones its English page's sections make. */
const partsOfChapter = (name: string) =>
  partsOf(readFileSync(path.join(REPO_ROOT, "chapters", name, "en.mdx"), "utf8")).map(partPath);
/** A chapter's page, all its parts: what the one long page held. */
const chapterPages = (prefix: string, name: string) =>
  partsOfChapter(name)
    .map((part) => page(prefix, `${name}/${part}`))
    .join("\n");

// SKIP_SITE_BUILD=1 reuses an existing build (.workspace/site-build/) while iterating on these checks.
beforeAll(() => ensureSiteBuilt(), budget("siteBuild"));

describe("documentation site", () => {
  it("has every page in every locale (no translation missing)", () => {
    const missing = translationStatus(REPO_ROOT).filter((s) => s.status === "missing");
    expect(missing.map((m) => m.translation)).toEqual([]);
  });

  for (const chapter of chapters) {
    it(`${chapter.id}: a page per locale with diagram, tools and source`, async () => {
      const { TOOLS } = await import(path.join(chapter.dir, "agent.ts"));
      for (const [locale, prefix] of Object.entries(prefixes)) {
        const html = chapterPages(prefix, chapter.name);
        expect(html, `${locale}/${chapter.name}`).toContain(
          `lang="${locale === "zh" ? "zh-CN" : locale}"`,
        );
        expect(html).toMatch(/class="lah-diagram"[\s\S]*?<img src="[^"]+\.svg"/);
        expect(html).toContain('class="lah-tools"');
        for (const tool of TOOLS) expect(html).toContain(`<code>${tool.name}</code>`);
        const table = /<table class="lah-tools[\s\S]*?<\/table>/.exec(html)?.[0] ?? "";
        // "1 tool", never "1 tools"
        if (locale === "en") expect(table).not.toMatch(/\b1 tools\b/);
        expect(
          table,
          `${locale}/${chapter.name}: a description's \`code\` shown raw`,
        ).not.toContain("`");
        // Every tool of the recorded run's first request is in the table: a server's too.
        const first = readTrace(chapter.id)?.steps.find((s) => s.kind === "request");
        for (const name of first?.kind === "request" ? first.tools : [])
          expect(html, `${locale}: ${name}`).toContain(`<code>${name}</code>`);
        expect(html).toMatch(
          new RegExp(
            `class="lah-on-demand lah-source" data-src="${BASE}code/${chapter.name}/#source"`,
          ),
        );
        expect(html).toContain('<figure class="lah-mermaid');
      }
    });
  }

  for (const appendix of appendices) {
    it(`${appendix.id}: sidebar, tool table, "What changed" and its recorded run, as an appendix`, () => {
      const trace = readTrace(appendix.id);
      expect(trace, `site/traces/${appendix.id}.json`).toBeDefined();
      const served = (trace?.offered ?? []).map((t) => t.name);
      // Appendix A's MCP server offers tools at run time; appendix B has none beyond its TOOLS.
      if (appendix.id === "a1")
        expect(served.length, "the tools its servers offered").toBeGreaterThan(0);
      const base = readFileSync(path.join(appendix.dir, "agent.ts"), "utf8");
      // The latest chapter it imports (s01 … s15, then a1 …), but an appendix it runs whole
      // (`import * as a2`, a6's eval) is not built on.
      const whole = new Set(
        [...base.matchAll(/^import \* as \w+ from "\.\.\/(a\d+)-/gm)].map((m) => m[1]),
      );
      const rank = (id: string) => (id.startsWith("a") ? 100 : 0) + Number(id.slice(1));
      const builtOn = [...base.matchAll(/from "\.\.\/(s\d\d|a\d+)-[\w-]+\/agent\.ts"/g)]
        .map((m) => m[1])
        .filter((id) => !whole.has(id))
        .sort((a, b) => rank(a) - rank(b))
        .at(-1);
      const group = {
        en: "From a toy to a tool",
        ja: "おもちゃから道具へ",
        zh: "从玩具到工具",
        de: "Vom Spielzeug zum Werkzeug",
      } as const;
      for (const [locale, prefix] of Object.entries(prefixes)) {
        const html = page(prefix, appendix.name);
        // The sidebar has a group of its own for the appendices, after the case study's, and the
        // page is in it.
        // (the page's own entry is a group too: its parts, site/lib/chapter-parts.ts)
        const title = /<h1 id="_top"[^>]*>([^<]+)<\/h1>/.exec(html)?.[1];
        const groups = [...html.matchAll(/<span class="large[^"]*">([^<]+)<\/span>/g)]
          .map((m) => m[1])
          .filter((label) => label !== title);
        const label = group[locale as keyof typeof group];
        expect(groups.indexOf(label), `${locale}: sidebar groups ${groups.join(", ")}`).toBe(
          groups.length - 2, // then "Tools for learners & teachers"
        );
        const inGroup = html.slice(html.search(new RegExp(`<span class="large[^"]*">${label}<`)));
        expect(inGroup.slice(0, inGroup.indexOf("</details>"))).toContain(
          `href="${BASE}${prefix}${appendix.name}/"`,
        );
        // A server's tools are marked as the server's, one row each.
        for (const name of served)
          expect(chapterPages(prefix, appendix.name), `${locale}: ${name}`).toMatch(
            new RegExp(`<tr data-server="[^"]+"[^>]*>\\s*<td><code>${name}</code>`),
          );
        // "What changed" compares it with the chapter it builds on, not with the last chapter.
        const parts = chapterPages(prefix, appendix.name);
        expect(decodeHtml(parts), `${locale}: compare link`).toContain(
          `compare/?from=${builtOn}&to=${appendix.id}"`,
        );
        expect(parts).toContain(`data-src="${BASE}code/${appendix.name}/#changes"`);
        expect(parts).toContain(`id="lah-player-${appendix.id}"`);
      }
    });
  }

  it("lists the appendices after the chapters on the home page, the timeline, the compare page and the workshop page", () => {
    for (const prefix of Object.values(prefixes)) {
      const home = page(prefix, "");
      for (const appendix of appendices)
        expect(home, `${prefix}: home`).toContain(`href="${BASE}${prefix}${appendix.name}/"`);
      const timeline = page(prefix, "timeline");
      const compare = page(prefix, "compare");
      const workshop = page(prefix, "workshop");
      for (const appendix of appendices) {
        expect(timeline).toMatch(new RegExp(`${appendix.name}/"[^>]*>${appendix.id}</a>`));
        expect(compare).toContain(`<option value="${appendix.id}"`);
        expect(workshop).toContain(`id="workshop-${appendix.id}"`);
        expect(workshop.indexOf(`id="workshop-${appendix.id}"`)).toBeGreaterThan(
          workshop.indexOf('id="workshop-s15"'),
        );
      }
    }
    // The chart is the fifteen chapters' growth: one bar each.
    expect(page("", "timeline").match(/class="lah-chart-bar"/g)).toHaveLength(
      listChapters().length + 1, // + the legend's
    );
  });

  it("the home page of every locale leads to the timeline, the compare page, the workshop handout and the exercises", () => {
    for (const prefix of Object.values(prefixes)) {
      const home = page(prefix, "");
      for (const target of ["timeline/", "compare/", "workshop/", `${chapters[0].name}/exercises/`])
        expect(home, `${prefix || "en"}: ${target}`).toContain(`href="${BASE}${prefix}${target}"`);
    }
  });

  it("every page of every locale: links and assets stay under the base and exist, images have alt text, one h1", () => {
    const pages = (readdirSync(dist, { recursive: true }) as string[])
      .map((f) => f.split(path.sep).join("/"))
      .filter((f) => f.endsWith(".html"));
    const exists = (urlPath: string) => {
      const file = path.join(dist, decodeURIComponent(urlPath.slice(BASE.length)));
      return (
        existsSync(file) && (!statSync(file).isDirectory() || existsSync(`${file}/index.html`))
      );
    };
    const problems: string[] = [];
    let checked = 0;
    for (const file of pages) {
      const html = readFileSync(path.join(dist, file), "utf8");
      const pageUrl = new URL(BASE + file.replace(/(^|\/)index\.html$/, "$1"), "http://site");
      for (const [, attr, raw] of html.matchAll(/\s(href|src)="([^"]*)"/g)) {
        const value = decodeHtml(raw);
        if (value === "" || /^([a-z][a-z+.-]*:|\/\/|#)/i.test(value)) continue; // other hosts, anchors
        const url = new URL(value, pageUrl);
        checked++;
        if (!url.pathname.startsWith(BASE))
          problems.push(`${file}: ${attr} outside the base: ${value}`);
        else if (!exists(url.pathname)) problems.push(`${file}: ${attr} not found: ${value}`);
      }
      for (const [img] of html.matchAll(/<img\b(?:[^>"]|"[^"]*")*>/g))
        if (!/\salt="[^"]+"/.test(img) && !/aria-hidden="true"|role="presentation"/.test(img))
          problems.push(`${file}: image without alt text: ${img.slice(0, 120)}`);
      const h1 = html.match(/<h1\b/g)?.length ?? 0;
      if (file !== "404.html" && h1 !== 1) problems.push(`${file}: ${h1} h1 headings`);
    }
    expect(pages.length).toBeGreaterThan(80);
    expect(checked).toBeGreaterThan(pages.length * 20);
    expect(problems).toEqual([]);
  });

  it("every chapter's Exercises part in every locale shows its checkable exercises; the handout marks them", () => {
    const missing: string[] = [];
    for (const c of chapters) {
      // A chapter without an Exercises part has no exercise in the catalog either (a6, so far).
      if (!partsOfChapter(c.name).includes("exercises/")) {
        expect(
          EXERCISES.some((e) => chapterOf(e.id) === c.id),
          c.id,
        ).toBe(false);
        continue;
      }
      for (const prefix of ["", "ja/", "zh/", "de/"]) {
        const html = page(prefix, `${c.name}/exercises`);
        if (!html.includes(`npm run exercise ${c.id} -- --check`))
          missing.push(`${prefix}${c.name}`);
      }
    }
    expect(missing).toEqual([]);
    const handout = readFileSync(path.join(dist, "workshop/index.html"), "utf8");
    expect(handout).toContain("npm run exercise s03.1");
  });

  it("every page of every locale: a link to #fragment lands on an id of its target page", () => {
    const pages = (readdirSync(dist, { recursive: true }) as string[])
      .map((f) => f.split(path.sep).join("/"))
      .filter((f) => f.endsWith(".html"));
    const ids = new Map<string, Set<string>>();
    const idsOf = (file: string) => {
      if (!ids.has(file)) {
        const html = readFileSync(path.join(dist, file), "utf8");
        ids.set(file, new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((m) => decodeHtml(m[1]))));
      }
      return ids.get(file)!;
    };
    const problems: string[] = [];
    let checked = 0;
    for (const file of pages) {
      const html = readFileSync(path.join(dist, file), "utf8");
      const pageUrl = new URL(BASE + file.replace(/(^|\/)index\.html$/, "$1"), "http://site");
      for (const [, raw] of html.matchAll(/\shref="([^"]*)"/g)) {
        const value = decodeHtml(raw);
        if (/^([a-z][a-z+.-]*:|\/\/)/i.test(value)) continue; // other hosts
        const url = new URL(value, pageUrl);
        if (url.hash.length < 2) continue; // no fragment (or a bare "#")
        if (!url.pathname.startsWith(BASE)) continue; // the link check above reports it
        const target = decodeURIComponent(url.pathname.slice(BASE.length));
        const targetFile = target === "" || target.endsWith("/") ? `${target}index.html` : target;
        if (!existsSync(path.join(dist, targetFile))) continue; // reported by the link check
        checked++;
        const fragment = decodeURIComponent(url.hash.slice(1));
        if (!idsOf(targetFile).has(fragment))
          problems.push(`${file}: ${value} — no id "${fragment}" on ${targetFile}`);
      }
    }
    expect(checked).toBeGreaterThan(pages.length);
    expect(problems).toEqual([]);
  });

  it("every page of every locale: UI strings filled in once — no {{placeholder}} left, no value escaped twice", () => {
    // Astro.locals.t is i18next, whose placeholders are {{name}} and which escapes values unless told
    // not to; Astro escapes again, so a "/" would show as "&#x2F;" (site/lib/i18n.ts).
    const problems: string[] = [];
    for (const file of readdirSync(dist, { recursive: true }) as string[]) {
      if (!file.endsWith(".html")) continue;
      // Code spans may show the syntax on purpose (the translators' guide: `{{placeholders}}`).
      const html = readFileSync(path.join(dist, file), "utf8").replace(
        /<code\b[^>]*>[\s\S]*?<\/code>/g,
        "",
      );
      for (const [found] of html.matchAll(/\{\{\s*-?\s*\w+\s*\}\}|&amp;#x[0-9a-f]+;|&#x2F;/gi))
        problems.push(`${file}: ${found}`);
    }
    expect(problems).toEqual([]);
  });

  it("every code block's copy button speaks its page's language (under the base path too)", () => {
    const problems: string[] = [];
    let buttons = 0;
    for (const [locale, prefix] of Object.entries(prefixes)) {
      const ui = JSON.parse(readFileSync(path.join(REPO_ROOT, `i18n/ui.${locale}.json`), "utf8"));
      const want = `${ui["expressiveCode.copyButtonTooltip"]} / ${ui["expressiveCode.copyButtonCopied"]}`;
      for (const name of [...chapters.map((c) => `${c.name}/code`), "translators"]) {
        const file = path.join(prefix, name, "index.html");
        if (!existsSync(path.join(dist, file))) continue;
        const html = readFileSync(path.join(dist, file), "utf8");
        for (const [, title, copied] of html.matchAll(
          /<button title="([^"]*)" data-copied="([^"]*)"/g,
        )) {
          buttons++;
          if (`${decodeHtml(title)} / ${decodeHtml(copied)}` !== want)
            problems.push(`${file}: "${title}" / "${copied}", not ${want}`);
        }
      }
    }
    expect(buttons).toBeGreaterThan(100);
    expect([...new Set(problems)].slice(0, 8)).toEqual([]);
  });

  it("builds each chapter's full source and diff once, on its /code/ page, out of the search index", () => {
    for (const [i, chapter] of chapters.entries()) {
      const html = page("code", chapter.name);
      const source = readFileSync(path.join(chapter.dir, "agent.ts"), "utf8");
      const titleLine = source.split("\n")[1].trim(); // " * s01 · The agent loop"
      expect(decodeHtml(html.replace(/<[^>]+>/g, "")), chapter.id).toContain(titleLine);
      expect(html).toContain('<section id="source">');
      expect(html.includes('<section id="changes">'), chapter.id).toBe(i > 0);
      // An appendix's diff is against the chapter it builds on (a1 against s07).
      if (chapter.id === "a1") expect(html).toContain("s07-permission-system/agent.ts →");
      if (chapter.id === "a2") expect(html).toContain("s15-team-protocols/agent.ts →");
      expect(html).not.toContain("data-pagefind-body");
    }
    // The index holds the 22 pages of each locale, none of the /code/ pages (they are English).
    const entry = JSON.parse(
      readFileSync(path.join(dist, "pagefind", "pagefind-entry.json"), "utf8"),
    );
    const counts = Object.values(entry.languages as Record<string, { page_count: number }>);
    expect(counts.map((l) => l.page_count)).toEqual(counts.map(() => counts[0].page_count));
  });

  it("keeps every chapter part's HTML at 400 KB or less in every locale, its code highlighted in compact markup", () => {
    const heavy: string[] = [];
    const sizes: Record<string, number> = {};
    for (const chapter of chapters)
      for (const prefix of Object.values(prefixes))
        for (const part of partsOfChapter(chapter.name)) {
          const bytes = statSync(path.join(dist, prefix, chapter.name, part, "index.html")).size;
          sizes[`${prefix}${chapter.name}/${part}`] = Math.round(bytes / 1024);
          if (bytes > 400 * 1024)
            heavy.push(`${prefix}${chapter.name}/${part}: ${(bytes / 1024).toFixed(0)} KB`);
        }
    const largest = Object.entries(sizes).sort((a, b) => b[1] - a[1]);
    console.log(`largest chapter parts (KB): ${JSON.stringify(largest.slice(0, 6))}`);
    expect(heavy).toEqual([]);
    // Tokens carry palette classes (site/lib/ec-plugins.mjs), not Expressive Code's inline styles.
    const html = page("", "s13-agent-teams/code");
    expect(html.match(/<span class="a\d+ b\d+">/g)?.length).toBeGreaterThan(1000);
    expect(html.match(/<span style="--0:/g)?.length ?? 0).toBe(0);
  });

  it("is a production build with search in every locale", () => {
    for (const prefix of Object.values(prefixes))
      expect(page(prefix, chapters[0].name)).toContain('id="starlight__search"');
    expect(existsSync(path.join(dist, "pagefind/pagefind.js"))).toBe(true);
  });

  it("keeps mermaid sources out of the search index", () => {
    const html = page("", `${chapters[0].name}/run`);
    expect(html).toMatch(/<figure class="lah-mermaid[^"]*"[^>]*data-pagefind-ignore/);
  });
});
