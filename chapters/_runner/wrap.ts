// Lines fitted to the terminal's width by the harness, not by the terminal: a terminal breaks a
// long line at its last column, in the middle of a word, and the rest starts at the left edge —
// which is the harness's own (its questions and prompts start there), and a result's wrapped
// line no longer looks like part of the result. Here a line breaks between words, and each
// continuation keeps the line's indent (at least two columns). Only on a terminal: piped output
// has no width and is left as it is.
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";

/** The least indent of a continuation row: the left edge is the harness's own. */
const HANG = 2;
const TAB = 8;
const segmenter = new Intl.Segmenter();
// eslint-disable-next-line no-control-regex
const LEADING = /^((?:\x1b\[[0-9;]*m)*)( *)/;
// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

/** How far a continuation row is indented for a line that starts with `lead` spaces: the same,
 *  at least HANG, and never so deep that less than half the width is left for the text. */
export const continuationIndent = (lead: number, width: number) =>
  Math.min(Math.max(lead, HANG), Math.floor(width / 2));

/** Tabs as the spaces a terminal would show for them (to the next stop of 8 columns). */
function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  for (const piece of line.split("\t").slice(0, -1)) {
    out += piece;
    out += " ".repeat(TAB - (stringWidth(out) % TAB));
  }
  return out + line.slice(line.lastIndexOf("\t") + 1);
}

/** One line (colours and all) broken between words into rows of at most `width` columns; a
 *  word longer than a row is broken where the row ends. Rows after the first are indented as
 *  the line is (continuationIndent). Colours are closed at each row's end and opened again on
 *  the next (wrap-ansi), so a row never leaks its colour into what the terminal draws next. */
export function wrapLine(line: string, width: number): string {
  line = expandTabs(line);
  if (stringWidth(line) <= width) return line;
  const [, codes, spaces] = LEADING.exec(line)!;
  const lead = Math.min(spaces.length, width - 1);
  const hang = continuationIndent(spaces.length, width);
  const body = codes + line.slice(codes.length + spaces.length);
  // The first row has `lead` columns taken, the others `hang`: wrap to the narrower, then let
  // the first row start where the line did.
  const rows = wrapAnsi(body, width - Math.max(lead, hang), { hard: true }).split("\n");
  return rows.map((row, i) => " ".repeat(i === 0 ? lead : hang) + row).join("\n");
}

/** Every line of `text` wrapped to `width` columns (wrapLine). */
export const wrapText = (text: string, width: number): string =>
  text
    .split("\n")
    .map((line) => wrapLine(line, width))
    .join("\n");

/** `text` with its colour codes taken out: what a terminal shows of it. */
export const plain = (text: string) => text.replace(SGR, "");

/** Text that arrives in pieces (a streamed answer, plain text) wrapped as it comes: a word is
 *  held until it ends (a space, a line break, the end), then printed on this row if it fits and
 *  on the next otherwise. `start` is the column the text starts at (after `assistant › `);
 *  rows after the first start with the hanging indent. */
export class StreamingWrap {
  private column: number;
  private word = "";
  private space = "";

  constructor(
    private readonly width: number,
    start: number,
    private readonly indent = " ".repeat(HANG),
  ) {
    this.column = start;
  }

  /** What to print now for `piece`. */
  push(piece: string): string {
    let out = "";
    for (const { segment } of segmenter.segment(piece)) {
      if (segment === "\n" || segment === "\r\n") {
        out += this.flush() + this.newRow();
        this.space = "";
      } else if (segment === " ") {
        out += this.flush();
        this.space += " ";
      } else if (segment === "\t") {
        out += this.flush();
        const at = this.column + this.space.length;
        this.space += " ".repeat(TAB - (at % TAB));
      } else this.word += segment;
    }
    return out;
  }

  /** The word still held, printed: the text has ended (or stops here, cut off). Spaces at the
   *  end are dropped. */
  end(): string {
    const out = this.flush();
    this.space = "";
    return out;
  }

  private newRow(): string {
    this.column = stringWidth(this.indent);
    return `\n${this.indent}`;
  }

  private flush(): string {
    if (!this.word) return "";
    const word = this.word;
    this.word = "";
    const wide = stringWidth(word);
    const room = this.width - stringWidth(this.indent);
    let out = "";
    const after = this.column + this.space.length; // where the word would start on this row
    if (after + wide > this.width && (wide <= room || after >= this.width)) out = this.newRow();
    else {
      // It fits here, or is longer than any row and starts here to fill it.
      out = this.space;
      this.column = after;
    }
    this.space = "";
    // A word longer than a row fills rows to their end, a character at a time.
    for (const { segment } of segmenter.segment(word)) {
      const w = stringWidth(segment);
      if (this.column + w > this.width && this.column > stringWidth(this.indent))
        out += this.newRow();
      out += segment;
      this.column += w;
    }
    return out;
  }
}
