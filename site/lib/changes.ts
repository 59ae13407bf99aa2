// What changed between two chapters: tools added and removed, line counts, and the diff of
// agent.ts. Pure functions over the chapters' TOOLS and sources, used at build time by
// Changes.astro and the compare page, and in the browser by the compare page's script.
import { diffLines, structuredPatch } from "diff";

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
