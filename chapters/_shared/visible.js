// @ts-check
// Text the harness did not write — model replies, command output, file names, hook and server
// stderr, a config's values — reaches the terminal only through `visible`. A terminal obeys
// control characters: ESC[2K erases a line, ESC[8m hides what follows, OSC 52 writes the
// clipboard, CR goes back to the start of the line, U+202E reverses the text after it. So they
// are shown instead, written as in a JavaScript string: ESC is `\u{1b}`, CR `\u{d}`.
// (Plain JavaScript, so that cli.js can use it before TypeScript is loaded.)

/** What a terminal obeys or a reader cannot see: controls (C0, DEL, C1), format characters (bidi
 *  overrides and isolates, zero-width characters, the BOM, tag characters) and the line and
 *  paragraph separators U+2028 and U+2029. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** @param {string} ch */
const shown = (ch) => `\\u{${ch.codePointAt(0)?.toString(16)}}`;

/** `text` with every hidden character shown; line breaks and tabs are kept.
 *  @param {string} text */
export const visible = (text) =>
  text.replace(HIDDEN, (ch) => (ch === "\n" || ch === "\t" ? ch : shown(ch)));

/** `text` shown on one line: its line breaks and tabs are shown too (a label, a question).
 *  @param {string} text */
export const oneLine = (text) => text.replace(HIDDEN, shown);
