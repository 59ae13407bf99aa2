// Translations: every page exists in every locale, the status logic (missing / stale / fresh)
// is right, the UI strings and the glossary are complete. No build, no git, no network.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { allRunnable, frontmatterTitle, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { frontmatter } from "../../chapters/_runner/frontmatter.ts";
import {
  isStale,
  repoProblems,
  sourceHash,
  summarize,
  translationStatus,
} from "../../site/lib/translation.ts";
import { tempDir } from "../support/helpers.ts";

const json = (file: string) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, file), "utf8")) as Record<string, unknown>;

describe("translations in the repository", () => {
  const rows = translationStatus(REPO_ROOT);

  it("has every page in every locale (the only translation problem that fails CI)", () => {
    const problems = repoProblems(REPO_ROOT);
    expect(problems, `npm run i18n:status lists them: ${problems.join(", ")}`).toEqual([]);
  });

  it("lists every chapter and appendix page in the status, translated in every locale", () => {
    // (Stale is reported, never failed; a page the status does not know could go missing unseen.)
    for (const info of allRunnable()) {
      const listed = rows.filter((r) => r.page === info.name && r.status !== "missing");
      expect(listed.map((r) => r.locale).sort(), info.name).toEqual(["de", "ja", "zh"]);
    }
  });

  it("records sourceHash as a quoted string of 12 hex digits in every translation", () => {
    for (const row of rows.filter((r) => r.status !== "missing")) {
      const hash = frontmatter(path.join(REPO_ROOT, row.translation)).sourceHash;
      expect(
        typeof hash === "string" && /^[0-9a-f]{12}$/.test(hash),
        `${row.translation}: sourceHash ${JSON.stringify(hash)}`,
      ).toBe(true);
    }
  });

  it("has the same UI string keys in every ui.<locale>.json as in ui.en.json", () => {
    const english = Object.keys(json("i18n/ui.en.json")).sort();
    for (const locale of ["ja", "zh", "de"]) {
      const keys = Object.keys(json(`i18n/ui.${locale}.json`)).sort();
      expect(keys, `i18n/ui.${locale}.json`).toEqual(english);
      const empty = Object.entries(json(`i18n/ui.${locale}.json`)).filter(
        ([, v]) => typeof v !== "string" || !v.trim(),
      );
      expect(empty, `empty strings in i18n/ui.${locale}.json`).toEqual([]);
    }
  });

  it("keeps the {{placeholders}} of every UI string in its translations, in i18next's form", () => {
    const english = json("i18n/ui.en.json") as Record<string, string>;
    const holes = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const locale of ["en", "ja", "zh", "de"]) {
      const strings = json(`i18n/ui.${locale}.json`) as Record<string, string>;
      for (const [key, text] of Object.entries(english)) {
        if (strings[key] === undefined) continue;
        expect(holes(strings[key]), `${locale}: ${key}`).toEqual(holes(text));
        // A single-brace {name} is not a placeholder to i18next: it would be shown as it is.
        const bare = strings[key].replace(/\{\{\w+\}\}/g, "");
        expect(bare, `${locale}: ${key} has a {name} that is not {{name}}`).not.toMatch(/\{\w+\}/);
      }
    }
  });

  it("gives every glossary term a Japanese, Chinese and German word", () => {
    const terms = json("i18n/glossary.json").terms as Record<string, Record<string, string>>;
    expect(Object.keys(terms).length).toBeGreaterThan(0);
    for (const [term, words] of Object.entries(terms)) {
      for (const locale of ["ja", "zh", "de"]) {
        expect(
          typeof words[locale] === "string" && words[locale].trim() !== "",
          `glossary "${term}" has no ${locale}`,
        ).toBe(true);
      }
    }
  });
});

describe("translation status logic", () => {
  /** A tiny repository: one chapter page and one site page, translated in various states. */
  function fixture() {
    const root = tempDir("lah-i18n-");
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    write("chapters/s01-x/en.mdx", "---\ntitle: One\n---\nHello.\n");
    write("site/docs/guide.mdx", "---\ntitle: Guide\n---\nRead me.\n");
    const chapterHash = sourceHash(path.join(root, "chapters/s01-x/en.mdx"));
    const guideHash = sourceHash(path.join(root, "site/docs/guide.mdx"));
    write(
      "chapters/s01-x/ja.mdx",
      `---\ntitle: 一\nsourceHash: "${chapterHash}"\n---\nこんにちは。\n`,
    );
    write("chapters/s01-x/zh.mdx", `---\ntitle: 一\nsourceHash: "000000000000"\n---\n你好。\n`);
    write(
      "site/docs/de/guide.mdx",
      `---\ntitle: Leitfaden\nsourceHash: "${guideHash}"\n---\nLies mich.\n`,
    );
    write("site/docs/ja/guide.mdx", "---\ntitle: ガイド\n---\n読んでください。\n"); // no hash at all
    write("chapters/_shared/readme.txt", "not a page");
    return { root, write, chapterHash, guideHash };
  }

  it("tells fresh, stale and missing apart, for chapter pages and site pages", () => {
    const { root, chapterHash } = fixture();
    const status = Object.fromEntries(
      translationStatus(root).map((r) => [`${r.page}/${r.locale}`, r]),
    );
    expect(Object.keys(status).sort()).toEqual([
      "guide/de",
      "guide/ja",
      "guide/zh",
      "s01-x/de",
      "s01-x/ja",
      "s01-x/zh",
    ]);
    expect(status["s01-x/ja"].status).toBe("fresh");
    expect(status["s01-x/zh"]).toMatchObject({
      status: "stale",
      recordedHash: "000000000000",
      currentHash: chapterHash,
    });
    expect(status["s01-x/de"]).toMatchObject({
      status: "missing",
      translation: "chapters/s01-x/de.mdx",
    });
    expect(status["guide/de"].status).toBe("fresh");
    expect(status["guide/ja"].status).toBe("stale");
    expect(status["guide/zh"]).toMatchObject({
      status: "missing",
      translation: "site/docs/zh/guide.mdx",
    });
    expect(summarize(translationStatus(root))).toEqual({
      ja: { fresh: 1, stale: 1, missing: 0 },
      zh: { fresh: 0, stale: 1, missing: 1 },
      de: { fresh: 1, stale: 0, missing: 1 },
    });
  });

  it("turns a fresh translation stale when its English page changes, and fresh again with the new hash", () => {
    const { root, write } = fixture();
    write("chapters/s01-x/en.mdx", "---\ntitle: One\n---\nHello, changed.\n");
    const stale = translationStatus(root).find((r) => r.translation === "chapters/s01-x/ja.mdx")!;
    expect(stale.status).toBe("stale");
    expect(isStale("chapters/s01-x/ja.mdx", stale.recordedHash, root)).toBe(true);
    write(
      "chapters/s01-x/ja.mdx",
      `---\ntitle: 一\nsourceHash: "${stale.currentHash}"\n---\nこんにちは。\n`,
    );
    expect(
      translationStatus(root).find((r) => r.translation === "chapters/s01-x/ja.mdx")!.status,
    ).toBe("fresh");
    expect(isStale("chapters/s01-x/ja.mdx", stale.currentHash, root)).toBe(false);
  });

  it("never calls an English page stale", () => {
    const { root, chapterHash } = fixture();
    expect(isStale("chapters/s01-x/en.mdx", undefined, root)).toBe(false);
    expect(isStale("site/docs/guide.mdx", chapterHash, root)).toBe(false);
  });
});

describe("page titles for the CLI", () => {
  it("frontmatterTitle (no YAML parser, for a fast start) reads every chapter page's title as YAML does", () => {
    const pages = readdirSync(path.join(REPO_ROOT, "chapters"), { recursive: true })
      .map(String)
      .filter((f) => /\.mdx$/.test(f))
      .map((f) => path.join(REPO_ROOT, "chapters", f));
    expect(pages.length).toBeGreaterThan(60);
    for (const page of pages) expect(frontmatterTitle(page), page).toBe(frontmatter(page).title);
  });

  it("gives up (undefined) on a title it cannot read exactly, instead of guessing", () => {
    const dir = tempDir();
    const cases = [
      "title: 'single quoted'",
      "title: >\n  folded",
      'title: "unterminated',
      "title: &anchor x",
    ];
    for (const head of cases) {
      const file = path.join(dir, "p.mdx");
      writeFileSync(file, `---\n${head}\n---\n`);
      expect(frontmatterTitle(file), head).toBeUndefined();
    }
  });
});
