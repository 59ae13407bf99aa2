// Lines never wrap mid-word, and a wrapped line keeps its indent (issue 37): the terminal used to
// break the model's text and a command's result at its last column, mid-word, and the rest
// started at the left edge. Stated as properties over generated text (words of ASCII, CJK and
// emoji, coloured or not), indents and widths; then seen on a real terminal.
import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, it } from "vitest";
import pc from "picocolors";
import stringWidth from "string-width";
import { continuationIndent, plain, StreamingWrap, wrapLine } from "../../chapters/_runner/wrap.ts";
import { budget } from "../support/budgets.ts";
import {
  apiError,
  endTurn,
  startFakeApi,
  streamed,
  toolUse,
  type FakeApi,
} from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { hasPseudoTerminal, runCliInTerminal } from "../support/terminal.ts";

const c = pc.createColors(true);
const grapheme = fc.constantFrom("a", "b", "x", "Z", "7", "-", "é", "漢", "字", "か", "🙂", "👍🏽");
const word = fc.array(grapheme, { minLength: 1, maxLength: 30 }).map((g) => g.join(""));
const styled = fc
  .tuple(word, fc.constantFrom("none", "red", "dim", "bold", "green"))
  .map(([w, style]) => ({ word: w, text: style === "none" ? w : c[style](w) }));
const gap = fc.constantFrom(" ", " ", " ", "  ");

/** The words of `rows` once each continuation's indent is taken off, in order. */
const tokensOf = (rows: string[]) =>
  rows
    .map((row) => plain(row).trim())
    .join(" ")
    .split(/ +/)
    .filter(Boolean);

/** Each word is one token when it fits a row (`room` columns after the indent); a longer one may
 *  be several tokens that make it up, none wider than `widest` (the first row may be wider). */
function expectWordsKept(words: string[], tokens: string[], room: number, widest = room) {
  let at = 0;
  for (const w of words) {
    if (stringWidth(w) <= room) {
      expect(tokens[at++]).toBe(w);
      continue;
    }
    let made = "";
    while (made.length < w.length && at < tokens.length) {
      expect(stringWidth(tokens[at])).toBeLessThanOrEqual(widest);
      made += tokens[at++];
    }
    expect(made).toBe(w);
  }
  expect(at).toBe(tokens.length);
}

/** Every colour a row opens it closes (picocolors' codes: 39 ends a colour, 22 bold or dim). */
function expectBalanced(row: string) {
  let colour = false;
  let weight = false;
  // eslint-disable-next-line no-control-regex
  for (const [, code] of row.matchAll(/\x1b\[([0-9;]*)m/g)) {
    for (const n of code.split(";").map(Number)) {
      if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) colour = true;
      if (n === 39 || n === 0) colour = false;
      if (n === 1 || n === 2) weight = true;
      if (n === 22 || n === 0) weight = false;
    }
  }
  expect({ colour, weight }).toEqual({ colour: false, weight: false });
}

describe("wrapLine: one printed line fitted to the terminal", () => {
  test.prop(
    [
      fc.array(fc.tuple(styled, gap), { minLength: 1, maxLength: 25 }),
      fc.integer({ min: 0, max: 8 }),
      fc.integer({ min: 12, max: 100 }),
    ],
    { seed: 37, numRuns: 400 },
  )(
    "no row wider than the width, no word split unless longer than a row, the indent kept, colours closed on every row",
    (parts, lead, width) => {
      const line = " ".repeat(lead) + parts.map(([w, g]) => w.text + g).join("");
      const rows = wrapLine(line, width).split("\n");
      const hang = continuationIndent(lead, width);
      for (const row of rows) expect(stringWidth(plain(row))).toBeLessThanOrEqual(width);
      expect(plain(rows[0]).startsWith(" ".repeat(lead))).toBe(true);
      for (const row of rows.slice(1)) {
        expect(row.startsWith(" ".repeat(hang))).toBe(true);
        expect(plain(row).slice(hang)).not.toMatch(/^ /);
      }
      expectWordsKept(
        parts.map(([w]) => w.word),
        tokensOf(rows),
        width - Math.max(lead, hang),
      );
      for (const row of rows) expectBalanced(row);
    },
  );

  it("a line that fits is left exactly as it was", () => {
    const line = `      ${c.dim("all 12 tests passed")}`;
    expect(wrapLine(line, 80)).toBe(line);
  });
});

describe("StreamingWrap: the model's text wrapped as it streams", () => {
  const text = fc
    .array(fc.tuple(word, fc.constantFrom(" ", " ", "  ", "\n")), { minLength: 1, maxLength: 30 })
    .map((parts) => ({
      words: parts.map(([w]) => w),
      text: parts.map(([w, g]) => w + g).join(""),
    }));

  test.prop(
    [
      text,
      fc.integer({ min: 16, max: 100 }),
      fc.integer({ min: 0, max: 12 }),
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }),
    ],
    { seed: 41, numRuns: 400 },
  )(
    "in any pieces: the same as whole, rows within the width, words whole, rows after the first indented",
    ({ words, text }, width, start, sizes) => {
      const whole = new StreamingWrap(width, start);
      const once = whole.push(text) + whole.end();
      const pieces = new StreamingWrap(width, start);
      let streamed = "";
      for (let at = 0, i = 0; at < text.length; i++) {
        // Cut on code points: a surrogate pair arrives whole (the printer holds a half back).
        let size = sizes[i % sizes.length];
        if (/[\uD800-\uDBFF]/.test(text[at + size - 1] ?? "")) size++;
        streamed += pieces.push(text.slice(at, at + size));
        at += size;
      }
      streamed += pieces.end();
      expect(streamed).toBe(once);
      const rows = once.split("\n");
      expect(start + stringWidth(rows[0])).toBeLessThanOrEqual(width);
      for (const row of rows.slice(1)) {
        expect(stringWidth(row)).toBeLessThanOrEqual(width);
        expect(row.startsWith("  ")).toBe(true);
      }
      expectWordsKept(words, tokensOf(rows), width - 2, width - Math.min(start, 2));
    },
  );
});

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe.skipIf(!hasPseudoTerminal)("on a terminal 60 columns wide", () => {
  it(
    "the answer and a command's result break between words and keep their indent",
    { timeout: budget({ cli: 4 }) },
    async () => {
      const said =
        "Here is a rather long explanation that certainly will not fit on one row of a narrow terminal, so it has to be wrapped between words.";
      const printed =
        "configuration-value-one configuration-value-two configuration-value-three configuration-value-four";
      api = await startFakeApi([
        streamed(toolUse("bash", { command: `echo ${printed}` })),
        streamed(endTurn(said), { pieces: 7 }),
      ]);
      const run = runCliInTerminal(
        ["s01", "--workspace", tempDir()],
        { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url, MODEL_ID: "m" },
        { cols: 60, rows: 30 },
      );
      await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
      run.type("explain\r");
      const screen = await run.waitForScreen(
        (s) => s.lines.some((l) => l.includes("between words.")),
        "the whole answer",
      );
      run.type("q\r");
      await run.exited;
      // render() joins a row the terminal wrapped to the row before: none here is wider than
      // the screen, so the harness broke them all itself.
      const from = screen.lines.findIndex((l) => l.startsWith("you › explain"));
      const shown = screen.lines.slice(from);
      for (const line of shown) expect(stringWidth(line)).toBeLessThanOrEqual(60);
      const result = shown.findIndex((l) => l.includes("↳ result"));
      const answer = shown.findIndex((l) => l.startsWith("assistant › Here"));
      const resultRows = shown.slice(result + 1, answer);
      expect(resultRows.length).toBeGreaterThan(1);
      for (const row of resultRows) expect(row).toMatch(/^ {6}configuration-value-/);
      expect(tokensOf(resultRows)).toEqual(printed.split(" "));
      const answerRows = shown.slice(
        answer,
        shown.findIndex((l) => l.endsWith("between words.")) + 1,
      );
      expect(answerRows.length).toBeGreaterThan(2);
      for (const row of answerRows.slice(1)) expect(row).toMatch(/^ {2}\S/);
      expect(tokensOf(answerRows).join(" ")).toBe(`assistant › ${said}`);
    },
  );

  it(
    "the harness's own lines too: a model error's sentence with the server's long message",
    { timeout: budget({ cli: 4 }) },
    async () => {
      const message =
        "messages: the conversation is invalid because the second message repeats the first one's role";
      api = await startFakeApi([apiError(400, "invalid_request_error", message)]);
      const run = runCliInTerminal(
        ["s01", "--workspace", tempDir()],
        { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url, MODEL_ID: "m" },
        { cols: 60, rows: 30 },
      );
      await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
      run.type("go\r");
      const screen = await run.waitForScreen(
        (s) => s.lines.some((l) => l.endsWith("first one's role")),
        "the whole sentence",
      );
      run.type("q\r");
      await run.exited;
      const from = screen.lines.findIndex((l) => l.startsWith("✗ "));
      const rows = screen.lines.slice(from, screen.lines.findIndex((l) => l.endsWith("role")) + 1);
      expect(rows.length).toBeGreaterThan(1);
      for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(60);
      for (const row of rows.slice(1)) expect(row).toMatch(/^ {2}\S/);
      expect(tokensOf(rows).join(" ")).toBe(`✗ The API rejected the request: ${message}`);
    },
  );
});
