// The hand-drawn diagrams in assets/svg/ must stay readable where the site shows them: an <img>
// as wide as Starlight's content column. On a 1280 px screen that column is 650 px wide, not its
// 45rem maximum: the sidebar and the table of contents take the rest (measured in the built site:
// the diagram's <img> is 652 px wide with its 1 px border). A font-size f in a view box w units
// wide is drawn at f × 650 / w px; no text may come out below 11 px.
//
// Read statically: every <text> and <tspan> gets the font-size it sets (attribute or inline style)
// or inherits from the elements around it (a <g>, the <svg>), else the browser's default of 16 px.
// A <style> sheet could set sizes this reading misses, so a file with one fails instead.
import { readdirSync, readFileSync } from "node:fs";
import { decodeXML } from "entities";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";

const SVG_DIR = path.join(REPO_ROOT, "assets/svg");
const COLUMN_PX = 650;
const MIN_PX = 11;
const DEFAULT_FONT_SIZE = 16;

interface Sizes {
  viewBoxWidth: number;
  /** Every drawn text's font-size in view-box units, with the words it draws. */
  texts: { size: number; words: string }[];
  problems: string[];
}

function fontSizeOf(attributes: string): string | undefined {
  const style = /\sstyle\s*=\s*"([^"]*)"/.exec(attributes)?.[1];
  const fromStyle = style && /(?:^|;)\s*font-size\s*:\s*([^;]+)/.exec(style)?.[1];
  return fromStyle || /\sfont-size\s*=\s*"([^"]*)"/.exec(attributes)?.[1];
}

function readSizes(source: string): Sizes {
  const problems: string[] = [];
  const text = source.replace(/<!--[\s\S]*?-->/g, "");
  const viewBox = /<svg\b[^>]*\sviewBox\s*=\s*"([^"]*)"/.exec(text)?.[1];
  const viewBoxWidth = viewBox ? Number(viewBox.trim().split(/[\s,]+/)[2]) : NaN;
  if (!(viewBoxWidth > 0)) problems.push(`no usable viewBox (${viewBox})`);
  if (/<style\b/.test(text)) problems.push("has a <style> sheet; sizes must be set on elements");

  const texts: Sizes["texts"] = [];
  // A stack of open elements with their effective font-size; text content is attributed to the
  // innermost open <text>/<tspan>.
  const stack: { name: string; size: number }[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  let last = 0;
  const attribute = (content: string) => {
    const open = stack.at(-1);
    const words = decodeXML(content).replace(/\s+/g, " ").trim();
    if (open && (open.name === "text" || open.name === "tspan") && words)
      texts.push({ size: open.size, words });
  };
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    attribute(text.slice(last, m.index));
    last = tag.lastIndex;
    const [, closing, name, attributes, selfClosing] = m;
    if (closing) {
      stack.pop();
      continue;
    }
    const inherited = stack.at(-1)?.size ?? DEFAULT_FONT_SIZE;
    const raw = fontSizeOf(attributes);
    let size = inherited;
    if (raw !== undefined) {
      const parsed = /^\s*([\d.]+)\s*(px)?\s*$/.exec(raw);
      if (parsed) size = Number(parsed[1]);
      else problems.push(`<${name}> font-size "${raw}" is not a plain number of units`);
    }
    if (!selfClosing) stack.push({ name, size });
  }
  return { viewBoxWidth, texts, problems };
}

const files = readdirSync(SVG_DIR)
  .filter((f) => f.endsWith(".svg"))
  .sort();
const measured = files.map((file) => {
  const sizes = readSizes(readFileSync(path.join(SVG_DIR, file), "utf8"));
  const smallest = sizes.texts.reduce<Sizes["texts"][number] | undefined>(
    (a, b) => (a && a.size <= b.size ? a : b),
    undefined,
  );
  const px = smallest ? (smallest.size * COLUMN_PX) / sizes.viewBoxWidth : NaN;
  return { file, sizes, smallest, px };
});

describe("hand-drawn diagram text size", () => {
  it("finds the diagrams and their texts", () => {
    expect(files.length).toBeGreaterThan(0);
    for (const { file, sizes } of measured) expect(sizes.texts.length, file).toBeGreaterThan(0);
    console.log(
      `smallest text at ${COLUMN_PX} px wide:\n` +
        measured
          .map(
            ({ file, sizes, smallest, px }) =>
              `  ${file.padEnd(32)} ${px.toFixed(1).padStart(5)} px ` +
              `(font-size ${smallest?.size} in a ${sizes.viewBoxWidth}-wide view box: ` +
              `${JSON.stringify(smallest?.words.slice(0, 40))})`,
          )
          .join("\n"),
    );
  });

  it.each(files)(`%s: no text below ${MIN_PX} px in a ${COLUMN_PX} px column`, (file) => {
    const { sizes, px } = measured.find((m) => m.file === file)!;
    expect(sizes.problems, file).toEqual([]);
    const tooSmall = sizes.texts
      .filter((t) => (t.size * COLUMN_PX) / sizes.viewBoxWidth < MIN_PX)
      .map((t) => `${t.size}: ${t.words}`);
    expect(tooSmall, `${file}: smallest ${px.toFixed(1)} px`).toEqual([]);
  });
});
