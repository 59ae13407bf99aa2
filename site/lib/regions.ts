// Marked regions of a chapter's lesson files (`// #region name` … `// #endregion name`), and which
// of them a page embeds. A chapter's lesson files are the .ts files in its folder but scenario.ts,
// agent.ts first (s13 has mailbox.ts beside it); a region name is unique across them. Plain code with no Vite imports, so the site's <Excerpt> and "What changed"
// (through chapters.ts) and the Node-run translation check (translation.ts, `npm run i18n:status`)
// read regions and pages the same way.

/** The lines between `// #region name` and `// #endregion name`, de-indented. */
export function region(source: string, name: string): string {
  const lines = source.split("\n");
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  if (start < 0 || end < 0) throw new Error(`region "${name}" not found`);
  const body = lines.slice(start + 1, end).filter((l) => !/^\s*\/\/ #(end)?region /.test(l));
  const indent = Math.min(...body.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length));
  return body.map((l) => l.slice(indent)).join("\n");
}

/** One lesson file of a chapter: its name in the folder ("agent.ts", "mailbox.ts") and its text. */
export interface LessonFile {
  file: string;
  source: string;
}

/** A chapter's lesson files in the order the site shows them: agent.ts, then the others by name. */
export function lessonOrder<T extends { file: string }>(files: readonly T[]): T[] {
  const rank = (f: T) => (f.file === "agent.ts" ? "" : f.file);
  return [...files].sort((a, b) => rank(a).localeCompare(rank(b), "en"));
}

/** Whether a file name in a chapter's folder is a lesson file (a .ts file other than scenario.ts). */
export const isLessonFile = (file: string) => file.endsWith(".ts") && file !== "scenario.ts";

/** The lesson file that has a region, and the region's code (as `region` cuts it out). */
export function findRegion(
  files: readonly LessonFile[],
  name: string,
): LessonFile & { code: string } {
  const opens = (f: LessonFile) =>
    f.source.split("\n").some((line) => line.trim() === `// #region ${name}`);
  const found = files.find(opens);
  if (!found) throw new Error(`region "${name}" not found`);
  return { ...found, code: region(found.source, name) };
}

/** A region's place in its file: the lines (1-based) of its `#region` and `#endregion` markers. */
export interface RegionSpan {
  name: string;
  start: number;
  end: number;
}

/** The regions of a source, in the order they open. */
export function regionsOf(source: string): RegionSpan[] {
  const lines = source.split("\n");
  const spans: RegionSpan[] = [];
  lines.forEach((line, i) => {
    const name = /^\s*\/\/ #region (\S+)\s*$/.exec(line)?.[1];
    if (!name) return;
    const end = lines.findIndex((l, j) => j > i && l.trim() === `// #endregion ${name}`);
    if (end >= 0) spans.push({ name, start: i + 1, end: end + 1 });
  });
  return spans;
}

/** Of `spans`, the innermost one around a line (1-based), if any. */
export function innermost(spans: RegionSpan[], line: number): RegionSpan | undefined {
  return spans
    .filter((r) => r.start < line && line < r.end)
    .sort((a, b) => a.end - a.start - (b.end - b.start))[0];
}

/** The name of the innermost region around a line (1-based), if any. */
export function regionAt(source: string, line: number): string | undefined {
  return innermost(regionsOf(source), line)?.name;
}

/** One piece of code a page embeds: a region of a chapter's agent.ts, or (no region) all of it. */
export interface CodeRef {
  chapter: string;
  region?: string;
}

export const codeRefKey = (r: CodeRef) =>
  r.region === undefined ? r.chapter : `${r.chapter}#${r.region}`;

/** The code a page embeds: its `<Excerpt chapter region />` and `<Source chapter />`, outside
 *  code fences and inline code, sorted and without duplicates. */
export function codeRefs(text: string): CodeRef[] {
  const body = text
    .replace(/^---\r?\n[\s\S]*?\r?\n---/, "")
    .replace(/^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*$/gm, "")
    .replace(/`[^`\n]*`/g, "");
  const refs = new Map<string, CodeRef>();
  for (const [, tag, attrs] of body.matchAll(/<(Excerpt|Source)\b([^>]*)>/g)) {
    const attr = Object.fromEntries(
      [...attrs.matchAll(/(\w+)=["']([^"']*)["']/g)].map((m) => [m[1], m[2]]),
    );
    if (!attr.chapter) continue;
    const ref: CodeRef =
      tag === "Excerpt"
        ? { chapter: attr.chapter, region: attr.region ?? "" }
        : { chapter: attr.chapter };
    refs.set(codeRefKey(ref), ref);
  }
  return [...refs.values()].sort((a, b) => codeRefKey(a).localeCompare(codeRefKey(b), "en"));
}

/** The id of an <Excerpt> on its page, so other pages can link to it: `code-s02-dispatch`. */
export const excerptId = (chapter: string, name: string) => `code-${chapter}-${name}`;

/** The id of a page's <Source> (its whole lesson files, opened on demand): `code-s13`, for a name
 *  declared outside the regions the page shows. */
export const sourceId = (chapter: string) => `code-${chapter}`;

/** Where a region's code stands in its file: its first and last lines (1-based, the markers left
 *  out) and whether they are all shown (no nested region's markers cut out of the middle), so an
 *  excerpt can number its lines as the file does. */
export function regionPlace(
  source: string,
  name: string,
): { first: number; last: number; contiguous: boolean } {
  const span = regionsOf(source).find((r) => r.name === name);
  if (!span) throw new Error(`region "${name}" not found`);
  const inner = source.split("\n").slice(span.start, span.end - 1);
  return {
    first: span.start + 1,
    last: span.end - 1,
    contiguous: !inner.some((l) => /^\s*\/\/ #(end)?region /.test(l)),
  };
}
