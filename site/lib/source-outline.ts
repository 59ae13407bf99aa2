// A lesson file cut into the pieces its full source is read in (the chapter's /code/ page): each
// top-level marked region (`// #region name` … `// #endregion name`, markers included) is one, and
// the lines between two regions are one, named by what they declare. A reader sees the file as a
// list of its pieces, opens the one they look for, and reads it numbered as the file is.
import { regionsOf } from "./regions.ts";

export interface SourcePiece {
  /** The region's name; none for the lines between regions. */
  region?: string;
  /** What the lines between regions declare ("imports", "TOOLS, main"), for their summary. */
  declares: string[];
  /** 1-based, inclusive. */
  first: number;
  last: number;
  code: string;
}

const DECLARATION =
  /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/;

/** The pieces of a file, in order: every line that is not blank is in exactly one (a stretch of
 *  blank lines between two regions is in none). */
export function sourcePieces(source: string): SourcePiece[] {
  const lines = source.split("\n");
  // Top-level regions only: one inside another is read with it.
  const spans = regionsOf(source)
    .sort((a, b) => a.start - b.start)
    .filter((r, i, all) => !all.slice(0, i).some((o) => o.start < r.start && r.end < o.end));
  const pieces: SourcePiece[] = [];
  const between = (first: number, last: number) => {
    const text = lines.slice(first - 1, last);
    if (!text.some((l) => l.trim())) return;
    const declares = [
      ...(text.some((l) => /^import\b/.test(l)) ? ["import"] : []),
      ...text.flatMap((l) => DECLARATION.exec(l)?.[1] ?? []),
    ];
    pieces.push({ declares, first, last, code: text.join("\n") });
  };
  let next = 1;
  for (const span of spans) {
    if (span.start > next) between(next, span.start - 1);
    pieces.push({
      region: span.name,
      declares: [],
      first: span.start,
      last: span.end,
      code: lines.slice(span.start - 1, span.end).join("\n"),
    });
    next = span.end + 1;
  }
  if (next <= lines.length) between(next, lines.length);
  return pieces;
}
