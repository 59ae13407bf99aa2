// Staleness that sees code (issue 14): page hashes over normalised text, `codeHash` for the code a
// page embeds, `--stamp`, and what fails CI (only a missing translation). No build, no network.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { frontmatter } from "../../chapters/_runner/frontmatter.ts";
import {
  codeHash,
  codeRefs,
  codeStatus,
  isCodeChanged,
  normalizeText,
  pageHash,
  repoProblems,
  setFrontmatterField,
  sourceHash,
  stampCodeHash,
  translationStatus,
} from "../../site/lib/translation.ts";
import { tempDir } from "../support/helpers.ts";

const AGENT = `export const A = 1;
// #region loop
while (true) {
  step();
}
// #endregion loop
// #region other
const other = 2;
// #endregion other
`;

const PAGE = (body: string, head = "") =>
  `---\ntitle: One\n${head}---\n\nimport { Excerpt } from "x";\n\n${body}\n`;

/** A tiny repository: chapter s01-x with agent.ts, its page in four locales, all stamped. */
function fixture() {
  const root = tempDir("lah-i18n-code-");
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  const read = (file: string) => readFileSync(path.join(root, file), "utf8");
  write("chapters/s01-x/agent.ts", AGENT);
  const en = PAGE('The loop, explained\nin two lines.\n\n<Excerpt chapter="s01" region="loop" />');
  write("chapters/s01-x/en.mdx", en);
  const hash = sourceHash(path.join(root, "chapters/s01-x/en.mdx"));
  for (const l of ["ja", "zh", "de"])
    write(
      `chapters/s01-x/${l}.mdx`,
      PAGE(
        `Übersetzt (${l}).\n\n<Excerpt chapter="s01" region="loop" />`,
        `sourceHash: "${hash}"\n`,
      ),
    );
  write("site/docs/guide.mdx", "---\ntitle: Guide\n---\nNo code here, only `<Source>`.\n");
  for (const l of ["ja", "zh", "de"])
    write(
      `site/docs/${l}/guide.mdx`,
      `---\ntitle: G\nsourceHash: "${sourceHash(path.join(root, "site/docs/guide.mdx"))}"\n---\nG.\n`,
    );
  for (const l of ["en", "ja", "zh", "de"]) stampCodeHash(`chapters/s01-x/${l}.mdx`, root);
  const status = () =>
    Object.fromEntries(translationStatus(root).map((r) => [`${r.page}/${r.locale}`, r.status]));
  const changed = () =>
    codeStatus(root)
      .filter((c) => c.changed)
      .map((c) => c.file);
  return { root, write, read, status, changed };
}

describe("page hash over normalised text", () => {
  it("ignores whitespace: trailing newlines, trailing spaces, CRLF, reflowed paragraphs", () => {
    const base = "---\ntitle: T\n---\n\nOne two three\nfour.\n\nNext paragraph.\n";
    expect(pageHash(base + "\n\n")).toBe(pageHash(base));
    expect(pageHash(base.replace("three\n", "three   \n"))).toBe(pageHash(base));
    expect(pageHash(base.replace(/\n/g, "\r\n"))).toBe(pageHash(base));
    expect(pageHash(base.replace("three\nfour", "three four"))).toBe(pageHash(base));
    expect(normalizeText("  a\n  b \n\n\n c  ")).toBe("a b\n\nc");
  });

  it("sees a word change, a paragraph split and a title change", () => {
    const base = "---\ntitle: T\n---\n\nOne two three four.\n";
    expect(pageHash(base.replace("two", "too"))).not.toBe(pageHash(base));
    expect(pageHash(base.replace("two ", "two\n\n"))).not.toBe(pageHash(base));
    expect(pageHash(base.replace("title: T", "title: U"))).not.toBe(pageHash(base));
  });

  it("leaves the sourceHash and codeHash stamps out of the page hash", () => {
    const base = "---\ntitle: T\n---\nText.\n";
    const stamped = setFrontmatterField(
      setFrontmatterField(base, "codeHash", "0123456789ab"),
      "sourceHash",
      "ba9876543210",
    );
    expect(stamped).toBe(
      '---\ntitle: T\ncodeHash: "0123456789ab"\nsourceHash: "ba9876543210"\n---\nText.\n',
    );
    expect(pageHash(stamped)).toBe(pageHash(base));
  });
});

describe("staleness and changed code in a fixture repository", () => {
  it("keeps translations fresh after a whitespace-only change to the English page", () => {
    const { write, read, status, changed } = fixture();
    const en = read("chapters/s01-x/en.mdx");
    write(
      "chapters/s01-x/en.mdx",
      en.replace("explained\nin two lines.", "explained in two lines.  ") + "\n\n",
    );
    expect(Object.values(status())).toEqual(Array(6).fill("fresh"));
    expect(changed()).toEqual([]);
  });

  it("turns every translation stale after a word change to the English page, code unchanged", () => {
    const { write, read, status, changed } = fixture();
    write(
      "chapters/s01-x/en.mdx",
      read("chapters/s01-x/en.mdx").replace("two lines", "three lines"),
    );
    expect(status()).toMatchObject({
      "s01-x/ja": "stale",
      "s01-x/zh": "stale",
      "s01-x/de": "stale",
    });
    expect(status()["guide/ja"]).toBe("fresh");
    expect(changed()).toEqual([]);
  });

  it("reports code changed for the page in every locale when an excerpted region changes, and only then", () => {
    const { root, write, status, changed } = fixture();
    // Outside the region, or whitespace inside it: not a change.
    write(
      "chapters/s01-x/agent.ts",
      AGENT.replace("A = 1", "A = 2").replace("step();", "  step();  "),
    );
    expect(changed()).toEqual([]);
    // Inside the region: a change, for English and every translation, which stay fresh.
    write("chapters/s01-x/agent.ts", AGENT.replace("step();", "step(1);"));
    expect(changed().sort()).toEqual(
      ["de", "en", "ja", "zh"].map((l) => `chapters/s01-x/${l}.mdx`).sort(),
    );
    expect(Object.values(status())).toEqual(Array(6).fill("fresh"));
    expect(isCodeChanged("chapters/s01-x/ja.mdx", root)).toBe(true);
    expect(isCodeChanged("site/docs/guide.mdx", root)).toBe(false);
    // Stamping after review clears one page at a time.
    stampCodeHash("chapters/s01-x/en.mdx", root);
    expect(changed().sort()).toEqual(
      ["de", "ja", "zh"].map((l) => `chapters/s01-x/${l}.mdx`).sort(),
    );
    for (const l of ["ja", "zh", "de"]) stampCodeHash(`chapters/s01-x/${l}.mdx`, root);
    expect(changed()).toEqual([]);
    const en = frontmatter(path.join(root, "chapters/s01-x/en.mdx")).codeHash;
    expect(frontmatter(path.join(root, "chapters/s01-x/de.mdx")).codeHash).toBe(en);
  });

  it("counts <Source> as the whole agent.ts, and a page that gains an excerpt as changed", () => {
    const { root, write, read, changed } = fixture();
    const withSource = read("chapters/s01-x/en.mdx") + '\n<Source chapter="s01" />\n';
    write("chapters/s01-x/en.mdx", withSource);
    expect(changed()).toEqual(["chapters/s01-x/en.mdx"]);
    stampCodeHash("chapters/s01-x/en.mdx", root);
    write("chapters/s01-x/agent.ts", AGENT.replace("A = 1", "A = 2"));
    expect(changed()).toEqual(["chapters/s01-x/en.mdx"]);
    // A page with no code has no codeHash; stamping it adds none.
    expect(stampCodeHash("site/docs/guide.mdx", root)).toBe("");
    expect(frontmatter(path.join(root, "site/docs/guide.mdx")).codeHash).toBeUndefined();
  });

  it("fails the repository check on a missing translation, not on stale pages or changed code", () => {
    const { root, write, read } = fixture();
    expect(repoProblems(root)).toEqual([]);
    write("chapters/s01-x/en.mdx", read("chapters/s01-x/en.mdx").replace("two lines", "three"));
    write("chapters/s01-x/agent.ts", AGENT.replace("step();", "step(1);"));
    expect(repoProblems(root)).toEqual([]);
    write("site/docs/fresh.mdx", "---\ntitle: New\n---\nNew page.\n");
    expect(repoProblems(root)).toEqual([
      "missing translation site/docs/ja/fresh.mdx (of site/docs/fresh.mdx)",
      "missing translation site/docs/zh/fresh.mdx (of site/docs/fresh.mdx)",
      "missing translation site/docs/de/fresh.mdx (of site/docs/fresh.mdx)",
    ]);
  });
});

describe("code references and code hashes", () => {
  it("finds Excerpt and Source embeds, sorted and without duplicates, but not examples in code", () => {
    const text = [
      "---\ntitle: T\n---",
      '<Excerpt chapter="s02" region="b" />',
      "<Excerpt region='a' chapter='s02'/>",
      '<Source chapter="s02" />',
      '<Excerpt chapter="s02" region="b" />',
      'Inline `<Excerpt chapter="s09" region="x" />` is an example.',
      '```mdx\n<Source chapter="s09" />\n```',
    ].join("\n\n");
    expect(codeRefs(text)).toEqual([
      { chapter: "s02" },
      { chapter: "s02", region: "a" },
      { chapter: "s02", region: "b" },
    ]);
  });

  it("reads code through an injected reader; a missing region reads as a change, not a crash", () => {
    const page = '<Excerpt chapter="s07" region="loop" />';
    const before = codeHash(page, () => AGENT);
    expect(before).toMatch(/^[0-9a-f]{12}$/);
    expect(codeHash(page, () => AGENT.replace("step()", "step(2)"))).not.toBe(before);
    expect(codeHash(page, () => AGENT.replace("region loop", "region lop"))).not.toBe(before);
    expect(codeHash(page, () => undefined)).not.toBe(before);
    expect(codeHash("no code", () => AGENT)).toBe("");
  });

  it("a page with What changed hashes the chapter it compares with too: a change there flags the page", () => {
    const sources: Record<string, string> = {
      s06: 'import { agentLoop } from "../s02-tool-use/agent.ts";\nexport const TASK = 1;\n',
      s02: "export function agentLoop() {}\n",
    };
    const read = (id: string) => sources[id];
    const page = '<Excerpt chapter="s06" region="x" />\n\n<Changes chapter="s06" />';
    const before = codeHash(page, read);
    sources.s02 = "export function agentLoop(parts: object) {}\n";
    expect(codeHash(page, read)).not.toBe(before);
    // Without What changed, the page explains only its own code.
    const plain = '<Excerpt chapter="s06" region="x" />';
    expect(codeHash(plain, read)).toBe(codeHash(plain, (id) => (id === "s02" ? "" : read(id))));
  });
});

describe("code hashes in the repository", () => {
  const rows = codeStatus(REPO_ROOT);

  it("records codeHash as a quoted string of 12 hex digits wherever a page has one", () => {
    // Only the format: a page without a codeHash, or with an old one, is reported, never failed.
    for (const row of rows.filter((r) => r.recordedCodeHash !== undefined)) {
      const hash = frontmatter(path.join(REPO_ROOT, row.file)).codeHash;
      expect(typeof hash === "string" && /^[0-9a-f]{12}$/.test(hash), row.file).toBe(true);
    }
    expect(rows.filter((r) => r.recordedCodeHash !== undefined).length).toBeGreaterThanOrEqual(60);
  });
});
