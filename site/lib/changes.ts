// What changed between two chapters: tools added and removed, line counts, and the diff of their
// lesson files (agent.ts, and any file beside it: s13's mailbox.ts), paired by name. Pure
// functions over the chapters' TOOLS and sources, used at build time by Changes.astro and the
// compare page, and in the browser by the compare page's script.
import { diffLines, structuredPatch } from "diff";
import type { LessonFile } from "./regions.ts";

export interface ToolChanges {
  added: string[];
  removed: string[];
  kept: string[];
}

const namesOf = (tools: readonly ({ name: string } | string)[]) =>
  tools.map((t) => (typeof t === "string" ? t : t.name));

/** Tools in `after` but not in `before` (added), the other way round (removed), and both (kept),
 *  each in the order the chapter lists them. */
export function toolChanges(
  before: readonly ({ name: string } | string)[],
  after: readonly ({ name: string } | string)[],
): ToolChanges {
  const a = namesOf(before);
  const b = namesOf(after);
  return {
    added: b.filter((n) => !a.includes(n)),
    removed: a.filter((n) => !b.includes(n)),
    kept: b.filter((n) => a.includes(n)),
  };
}

/** How many lines the change adds and removes. */
export function lineChanges(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}

/** Two chapters' lesson files, paired by name: agent.ts with agent.ts, a file only one of them has
 *  with nothing (all of it added, or all removed). In the order of `after`, then what only
 *  `before` has. */
export function filePairs(
  before: readonly LessonFile[],
  after: readonly LessonFile[],
): { file: string; before: string; after: string }[] {
  const text = (files: readonly LessonFile[], file: string) =>
    files.find((f) => f.file === file)?.source ?? "";
  const names = [...after, ...before.filter((b) => !after.some((a) => a.file === b.file))];
  return names.map(({ file }) => ({ file, before: text(before, file), after: text(after, file) }));
}

/** The paired files' names as the UI strings show them: "agent.ts", or "agent.ts + mailbox.ts". */
export function filesLabel(before: readonly LessonFile[], after: readonly LessonFile[]): string {
  return filePairs(before, after)
    .map((p) => p.file)
    .join(" + ");
}

/** lineChanges summed over the paired files: what "What changed" and the compare page count. */
export function filesLineChanges(
  before: readonly LessonFile[],
  after: readonly LessonFile[],
): { added: number; removed: number } {
  const total = { added: 0, removed: 0 };
  for (const pair of filePairs(before, after)) {
    const { added, removed } = lineChanges(pair.before, pair.after);
    total.added += added;
    total.removed += removed;
  }
  return total;
}

/** The diff rows of every paired file that changed, each file's rows after a header row naming it
 *  (when there is more than one file on either side). */
export function filesDiffRows(
  before: readonly LessonFile[],
  after: readonly LessonFile[],
): DiffRow[] {
  const pairs = filePairs(before, after);
  return pairs.flatMap(({ file, before: a, after: b }) => {
    const rows = diffRows(a, b);
    if (pairs.length === 1 || rows.length === 0) return rows;
    return [{ kind: "hunk" as const, oldStart: 0, newStart: 0, text: `── ${file} ──` }, ...rows];
  });
}

export type DiffRow =
  | { kind: "hunk"; text: string; oldStart: number; newStart: number }
  | { kind: "add" | "del" | "ctx"; text: string; oldLine?: number; newLine?: number };

/** The diff as rows: hunk headers, then context, removed and added lines with their numbers. */
export function diffRows(before: string, after: string, context = 3): DiffRow[] {
  const patch = structuredPatch("a", "b", before, after, "", "", { context });
  const rows: DiffRow[] = [];
  for (const hunk of patch.hunks) {
    rows.push({
      kind: "hunk",
      oldStart: hunk.oldStart,
      newStart: hunk.newStart,
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    });
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === "\\") continue; // "\ No newline at end of file"
      if (mark === "+") rows.push({ kind: "add", text, newLine: newLine++ });
      else if (mark === "-") rows.push({ kind: "del", text, oldLine: oldLine++ });
      else rows.push({ kind: "ctx", text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return rows;
}

/** The diff in the form Expressive Code's `diff` language marks line by line (green + / red −
 *  backgrounds, syntax highlighting from `lang="ts"`): hunk headers become comments, so the
 *  block does not look like a raw patch file (which Expressive Code would leave unmarked).
 *  `context: "all"` shows every unchanged line too, in one hunk without a header (a short
 *  region, such as a chapter's loop, read whole with its changes in place). */
export function markedDiff(before: string, after: string, context: number | "all" = 3): string {
  const whole = context === "all";
  const lines = Math.max(before.split("\n").length, after.split("\n").length);
  return diffRows(before, after, whole ? lines : context)
    .filter((row) => !(whole && row.kind === "hunk"))
    .map((row) => {
      if (row.kind === "hunk") return ` // ${row.text}`;
      return `${row.kind === "add" ? "+" : row.kind === "del" ? "-" : " "}${row.text}`;
    })
    .join("\n");
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The diff as HTML rows (one renderer for the page and the browser, so both look the same). */
export function diffHtml(rows: readonly DiffRow[]): string {
  const cells = rows.map((row) => {
    if (row.kind === "hunk")
      return `<tr class="lah-diff-hunk"><td colspan="3">${escapeHtml(row.text)}</td></tr>`;
    const sign = row.kind === "add" ? "+" : row.kind === "del" ? "−" : " ";
    return (
      `<tr class="lah-diff-${row.kind}"><td class="lah-ln">${row.oldLine ?? ""}</td><td class="lah-ln">${row.newLine ?? ""}</td>` +
      `<td><span class="lah-sign">${sign}</span>${escapeHtml(row.text) || " "}</td></tr>`
    );
  });
  return `<table class="lah-diff"><tbody>${cells.join("")}</tbody></table>`;
}
