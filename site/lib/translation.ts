// Which translations are missing, stale or fresh, and which pages explain code that has changed
// since they were written. No git history or network is needed: pages record hashes.
//
// - `sourceHash` (in a translation): the page hash of the English page it was made from. The page
//   hash is taken over normalised text (see normalizeText), so reflowing a paragraph or adding a
//   trailing newline does not turn translations stale; the `sourceHash`/`codeHash` lines of the
//   frontmatter are left out of it, so stamping them never does either.
// - `codeHash` (in every page, English included): the code hash of the code the page embeds when it
//   was written or last reviewed. The code hash covers, sorted and without duplicates, every
//   `<Excerpt chapter=".." region=".." />` (the region, cut out as <Excerpt> does) and every
//   `<Source chapter=".." />` (the chapter's whole lesson files: agent.ts, and any .ts beside it but
//   scenario.ts), each as normalised text. A region is cut out of whichever lesson file has it. Other
//   components (<Changes>, <Player>, …) are not counted: a chapter page shows its <Source>, which
//   covers them. A page that embeds no code has the code hash "" and needs no `codeHash` field.
//   Embeds inside code fences or `inline code` are examples, not embeds, and are not counted.
// Staleness and changed code are reported (npm run i18n:status, the translation status page) and
// never fail a check; only a missing translation does (repoProblems).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { frontmatter, parseFrontmatter } from "../../chapters/_runner/frontmatter.ts";

import {
  LOCALES,
  TRANSLATED_LOCALES,
  type Locale,
  type TranslatedLocale,
} from "../../i18n/locales.ts";
import { baseOfImports, importedNamesOfFiles } from "./imports.ts";
import { codeRefKey as refKey, codeRefs, isLessonFile, lessonOrder, region } from "./regions.ts";

export { TRANSLATED_LOCALES, type TranslatedLocale };
export { codeRefs, type CodeRef } from "./regions.ts";
export type Status = "missing" | "stale" | "fresh";

export interface PageStatus {
  /** Page id as the site uses it, e.g. "s03-todo-write" or "index". */
  page: string;
  locale: TranslatedLocale;
  status: Status;
  english: string;
  translation: string;
  /** The hash of the current English page, to paste into a refreshed translation. */
  currentHash: string;
  recordedHash?: string;
}

const hash12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);

/** Text with whitespace differences taken out: line endings unified, every run of whitespace
 *  inside a paragraph collapsed to one space (so lines are trimmed and reflowing does not count),
 *  paragraphs (split at blank lines) joined by one blank line, leading and trailing ones dropped. */
export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .join("\n\n");
}

const STAMP_LINE = /^(sourceHash|codeHash)[ \t]*:/;

/** A page's text without the `sourceHash` and `codeHash` lines of its frontmatter. */
function withoutStamps(text: string): string {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return text;
  const head = match[1].split(/\r?\n/).filter((line) => !STAMP_LINE.test(line));
  return `---\n${head.join("\n")}\n---${text.slice(match[0].length)}`;
}

/** The page hash: first 12 hex digits of the SHA-256 of the page's normalised text, its stamps
 *  (`sourceHash`, `codeHash`) left out. What a translation records as `sourceHash`. */
export function pageHash(text: string): string {
  return hash12(normalizeText(withoutStamps(text)));
}

/** The page hash of a file (see pageHash). */
export function sourceHash(file: string): string {
  return pageHash(readFileSync(file, "utf8"));
}

/** Reads a chapter's code by chapter id ("s03" or "s03-todo-write"): its lesson files, agent.ts
 *  first, one after the other (a region name is unique across them); undefined if none. */
export type CodeReader = (chapter: string) => string | undefined;

/** Reads the lesson files from root/chapters/<name>/, as the site's chapters.ts does at build time.
 *  A chapter of one file reads as its agent.ts exactly. */
export function fileCodeReader(root = process.cwd()): CodeReader {
  const dir = path.join(root, "chapters");
  const names = existsSync(dir) ? readdirSync(dir) : [];
  return (chapter) => {
    const name = names.find((n) => n === chapter || n.startsWith(`${chapter}-`));
    const folder = name && path.join(dir, name);
    if (!folder || !existsSync(path.join(folder, "agent.ts"))) return undefined;
    const files = lessonOrder(
      readdirSync(folder)
        .filter(isLessonFile)
        .map((file) => ({ file })),
    );
    return files.map(({ file }) => readFileSync(path.join(folder, file), "utf8")).join("\n");
  };
}

/** The chapters whose "What changed" a page shows (`<Changes chapter="s06" />`): such a page
 *  compares its chapter with the one it builds on, so that one's code is part of what it explains. */
function comparedChapters(text: string): string[] {
  return [...text.matchAll(/<Changes\b[^>]*\bchapter=["']([^"']+)["']/g)].map((m) => m[1]);
}

/** The code hash of a page's text: "" when it embeds no code. A chapter or region that cannot be
 *  found counts as text of its own, so the page reads as changed rather than the check failing.
 *  A page with "What changed" also hashes the whole code of the chapter it compares with, so a
 *  sentence like "the loop is s02's" is flagged for review when s02 changes. */
export function codeHash(text: string, read: CodeReader): string {
  const refs = codeRefs(text);
  for (const chapter of comparedChapters(text)) {
    const own = read(chapter);
    const base = own === undefined ? undefined : baseOfImports(importedNamesOfFiles([own]));
    if (base && !refs.some((r) => r.chapter === base && r.region === undefined))
      refs.push({ chapter: base });
  }
  if (refs.length === 0) return "";
  const parts = refs.map((ref) => {
    const source = read(ref.chapter);
    let code: string;
    if (source === undefined) code = "(no such chapter)";
    else if (ref.region === undefined) code = source;
    else {
      try {
        code = region(source, ref.region);
      } catch {
        code = "(no such region)";
      }
    }
    return `${refKey(ref)}\n${normalizeText(code)}`;
  });
  return hash12(parts.join("\n\n"));
}

/** Whether the code a page (in any locale) embeds changed since its `codeHash` was stamped. */
export interface CodeStatus {
  page: string;
  locale: Locale;
  file: string;
  changed: boolean;
  /** The code hash to stamp as `codeHash` once the page has been reviewed against the code. */
  currentCodeHash: string;
  recordedCodeHash?: string;
}

function recordedCodeHash(text: string): string | undefined {
  const value = parseFrontmatter(text).codeHash;
  return value === undefined || value === null ? undefined : String(value);
}

/** The code status of one page file (repo-relative), or undefined if it does not exist. */
export function fileCodeStatus(
  file: string,
  root = process.cwd(),
  read: CodeReader = fileCodeReader(root),
): Omit<CodeStatus, "page" | "locale"> | undefined {
  const full = path.join(root, file);
  if (!existsSync(full)) return undefined;
  const text = readFileSync(full, "utf8");
  const currentCodeHash = codeHash(text, read);
  const recorded = recordedCodeHash(text);
  return {
    file,
    changed: (recorded ?? "") !== currentCodeHash,
    currentCodeHash,
    recordedCodeHash: recorded,
  };
}

/** For every page in every locale that exists (English first), whether its code changed. */
export function codeStatus(
  root = process.cwd(),
  read: CodeReader = fileCodeReader(root),
): CodeStatus[] {
  return englishPages(root).flatMap(({ page, english, translation }) =>
    LOCALES.flatMap((locale) => {
      const file = locale === "en" ? english : translation(locale as TranslatedLocale);
      const status = fileCodeStatus(file, root, read);
      return status ? [{ page, locale, ...status }] : [];
    }),
  );
}

/** Whether the page file (repo-relative, as Starlight's filePath) explains code that changed. */
export function isCodeChanged(filePath: string | undefined, root = process.cwd()): boolean {
  return filePath ? (fileCodeStatus(filePath, root)?.changed ?? false) : false;
}

/** A page's text with one frontmatter field set to a quoted string (added at the frontmatter's
 *  end if it is not there yet); nothing else in the page changes. */
export function setFrontmatterField(text: string, key: string, value: string): string {
  const match = /^---(\r?\n)([\s\S]*?)\r?\n---/.exec(text);
  if (!match) throw new Error("the page has no frontmatter");
  const [whole, eol, head] = match;
  const lines = head.split(/\r?\n/);
  const line = `${key}: ${JSON.stringify(value)}`;
  const at = lines.findIndex((l) => new RegExp(`^${key}[ \\t]*:`).test(l));
  if (at >= 0) lines[at] = line;
  else lines.push(line);
  return `---${eol}${lines.join(eol)}${eol}---${text.slice(whole.length)}`;
}

/** Stamps a page file's `codeHash` with its current code hash (after reviewing it against the
 *  code); returns the hash. A page that embeds no code gets no field (an existing one is set). */
export function stampCodeHash(
  file: string,
  root = process.cwd(),
  read = fileCodeReader(root),
): string {
  const full = path.join(root, file);
  const text = readFileSync(full, "utf8");
  const hash = codeHash(text, read);
  if (hash === "" && recordedCodeHash(text) === undefined) return hash;
  const next = setFrontmatterField(text, "codeHash", hash);
  if (next !== text) writeFileSync(full, next);
  return hash;
}

/** Every English page with the paths where its translations live (paths relative to root). */
export function englishPages(
  root = process.cwd(),
): { page: string; english: string; translation(l: TranslatedLocale): string }[] {
  const pages = [];
  const chaptersDir = path.join(root, "chapters");
  // Chapters and the case study first, then the appendices (chapters/aN-slug/), as the sidebar has them.
  const appendix = (dir: string) => (/^a\d+-/.test(dir) ? 1 : 0);
  const dirs = existsSync(chaptersDir) ? readdirSync(chaptersDir).sort() : [];
  for (const dir of dirs.sort((a, b) => appendix(a) - appendix(b))) {
    if (!existsSync(path.join(chaptersDir, dir, "en.mdx"))) continue;
    pages.push({
      page: dir,
      english: `chapters/${dir}/en.mdx`,
      translation: (l: TranslatedLocale) => `chapters/${dir}/${l}.mdx`,
    });
  }
  const docsDir = path.join(root, "site/docs");
  const docs = existsSync(docsDir) ? (readdirSync(docsDir, { recursive: true }) as string[]) : [];
  for (const file of docs.map((f) => f.split(path.sep).join("/")).sort()) {
    if (!file.endsWith(".mdx") || TRANSLATED_LOCALES.some((l) => file.startsWith(`${l}/`)))
      continue;
    pages.push({
      page: file.replace(/\.mdx$/, ""),
      english: `site/docs/${file}`,
      translation: (l: TranslatedLocale) => `site/docs/${l}/${file}`,
    });
  }
  return pages;
}

export function translationStatus(root = process.cwd()): PageStatus[] {
  return englishPages(root).flatMap(({ page, english, translation }) => {
    const currentHash = sourceHash(path.join(root, english));
    return TRANSLATED_LOCALES.map((locale): PageStatus => {
      const file = translation(locale);
      const full = path.join(root, file);
      if (!existsSync(full))
        return { page, locale, status: "missing", english, translation: file, currentHash };
      const recordedHash = frontmatter(full).sourceHash as string | undefined;
      const status = recordedHash === currentHash ? "fresh" : "stale";
      return { page, locale, status, english, translation: file, currentHash, recordedHash };
    });
  });
}

/** For a translated page's file (e.g. chapters/s03-x/ja.mdx), whether it is stale. */
export function isStale(
  filePath: string | undefined,
  recordedHash: string | undefined,
  root = process.cwd(),
): boolean {
  if (!filePath) return false;
  const locales = TRANSLATED_LOCALES.join("|");
  const english = filePath
    .replace(new RegExp(`/(${locales})\\.mdx$`), "/en.mdx")
    .replace(new RegExp(`^site/docs/(${locales})/`), "site/docs/");
  if (english === filePath || !existsSync(path.join(root, english))) return false;
  return recordedHash !== sourceHash(path.join(root, english));
}

/** What fails the repository check: only missing translations. Stale translations and changed
 *  code are reported, never failures. */
export function repoProblems(root = process.cwd()): string[] {
  return translationStatus(root)
    .filter((r) => r.status === "missing")
    .map((r) => `missing translation ${r.translation} (of ${r.english})`);
}

/** How many pages are fresh, stale and missing, per locale. */
export function summarize(
  rows: readonly PageStatus[],
): Record<TranslatedLocale, Record<Status, number>> {
  const totals = Object.fromEntries(
    TRANSLATED_LOCALES.map((l) => [l, { fresh: 0, stale: 0, missing: 0 }]),
  ) as Record<TranslatedLocale, Record<Status, number>>;
  for (const row of rows) totals[row.locale][row.status]++;
  return totals;
}

/** Step notes (chapters/<chapter>/notes/<locale>.yaml, see chapters/_runner/notes.ts), and the
 *  same for the exercises' words (`folder` "exercises", chapters/_exercises/words.ts): the same
 *  three states as pages. A translation records the hash of the English file it was made from in
 *  its `sourceHash` field (the hash skips that line, as a page's skips its stamps). A missing
 *  translation is reported, not a failure: the player (or the checker) shows English instead. */
export function notesStatus(
  root = process.cwd(),
  folder: "notes" | "exercises" = "notes",
): PageStatus[] {
  const chaptersDir = path.join(root, "chapters");
  const dirs = existsSync(chaptersDir) ? readdirSync(chaptersDir).sort() : [];
  return dirs.flatMap((dir) => {
    const english = `chapters/${dir}/${folder}/en.yaml`;
    if (!existsSync(path.join(root, english))) return [];
    const currentHash = notesHash(readFileSync(path.join(root, english), "utf8"));
    return TRANSLATED_LOCALES.map((locale): PageStatus => {
      const translation = `chapters/${dir}/${folder}/${locale}.yaml`;
      const base = { page: `${dir}/${folder}`, locale, english, translation, currentHash };
      const full = path.join(root, translation);
      if (!existsSync(full)) return { ...base, status: "missing" };
      const recordedHash = /^sourceHash:\s*["']?([0-9a-f]+)/m.exec(readFileSync(full, "utf8"))?.[1];
      return { ...base, status: recordedHash === currentHash ? "fresh" : "stale", recordedHash };
    });
  });
}

/** The hash a translation of a notes file records: its normalised text without a sourceHash line. */
export const notesHash = (text: string) =>
  hash12(normalizeText(text.replace(/^sourceHash:.*$/m, "")));
