// The hand-drawn diagrams in assets/svg/, laid out by a real browser under each of the fonts a
// reader's browser may pick, must not put ink on ink: every <text> stays inside the shape that
// holds it, crosses no other shape's edge and overlaps no other <text>. (Each file must also parse
// as XML and have a <title>.)
//
// Fonts. The diagrams ask for `system-ui, …, sans-serif` (the CJK fonts before sans-serif in ja and
// zh) and `ui-monospace, SFMono-Regular, Menlo, Consolas, monospace`: what a reader gets depends on
// the system. Each pass puts one Latin sans and one monospace font in front of those stacks (CJK
// characters still fall through to Noto Sans CJK), for every pair of MONO × SANS below: Debian's
// DejaVu, Noto and Liberation families, which span the metrics of the others (Menlo is drawn from
// DejaVu Sans Mono's design, SF Mono and Consolas are no wider than these; DejaVu Sans is among the
// widest sans, Liberation Sans has Arial's metrics). A font not installed here (Debian packages
// fonts-dejavu-core, fonts-noto-mono, fonts-noto-core, fonts-liberation; .ci/run installs them) is
// reported on the test's output and its passes skipped; with no pair left the test fails.
//
// Ink, not line boxes. A text's box is the ink of its glyphs in the font the pass drew it with:
// the text's start position from the SVG layout, the ink's extent from canvas measureText
// (actualBoundingBox*) of the same string in the same computed font. The canvas rounds advances a
// little differently (hinting, CJK spacing), so its extent is scaled to the SVG's computed text
// length; a width more than 3 % off is a fault of its own (the two did not draw the same). Two
// lines whose line boxes touch are fine if their ink keeps clear; a label whose ink crosses a
// border is not, whatever its line box says.
//
// "The shape that holds it" is the smallest <rect>, closed <path>, <ellipse> or <circle> whose box
// contains the text's anchor (its x/y), or the view box when none does. A text may cover the shapes
// that hold its holder (the panel around a box), but no other shape: a label that runs into the
// next box, or sits on the border between two, is a fault. Measured with the SVG drawn at one CSS
// pixel per view-box unit, so the numbers reported are view-box units. A shape's stroke counts as
// its edge; a circle or ellipse holds a text when the corners of its ink keep clear of the curve,
// any other shape by its box. MARGIN (2 px): a text's ink must keep at least that far from its
// holder's inner stroke edge, from any other shape's outer stroke edge and from any other text's
// ink; closer counts as touching. With the fonts above that is the room left where they differ.
//
// Speed: one page. It opens the first file; every file (the first too) is then read from disk,
// parsed by the page's DOMParser as image/svg+xml and swapped in as the document's root, which lays
// out the same as opening the file (checked while writing this test) without a navigation per file.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { hasChromium, launch } from "../support/chromium.ts";
import { budget } from "../support/budgets.ts";

const SVG_DIR = path.join(REPO_ROOT, "assets/svg");
const MARGIN = 2;
const MONO = ["DejaVu Sans Mono", "Noto Sans Mono", "Liberation Mono"];
const SANS = ["DejaVu Sans", "Noto Sans", "Liberation Sans"];

interface Fonts {
  mono: string;
  sans: string;
}

/** Runs in the page: which of `families` the browser has (drawn differently from its fallbacks). */
function installed(families: string[]): string[] {
  const ctx = new OffscreenCanvas(10, 10).getContext("2d")!;
  const width = (family: string) => {
    ctx.font = `40px ${family}`;
    return ctx.measureText("mmmwwwiiilll 0123456789 QWERTY").width;
  };
  return families.filter((f) => width(`'${f}', monospace`) === width(`'${f}', serif`));
}

/** Runs in the page: makes `source` the document, drawn in `fonts`, and returns its faults. */
function layoutFaults({
  source,
  margin,
  fonts,
}: {
  source: string;
  margin: number;
  fonts: Fonts;
}): string[] {
  type Box = { left: number; top: number; right: number; bottom: number };
  const parsed = new DOMParser().parseFromString(source, "image/svg+xml");
  const error = parsed.querySelector("parsererror");
  if (error) return [`not valid XML: ${error.textContent}`];
  const title = parsed.documentElement.querySelector(":scope > title")?.textContent?.trim();
  const faults: string[] = title ? [] : ["no <title>"];
  document.replaceChild(
    document.importNode(parsed.documentElement, true),
    document.documentElement,
  );
  const svg = document.documentElement as unknown as SVGSVGElement;
  // This pass's fonts in front of each stack the file asks for: a monospace stack gets the
  // monospace font, any other (and the root, which every text without a stack inherits) the sans.
  const stacks = [svg, ...svg.querySelectorAll("[font-family]")];
  for (const e of stacks) {
    const stack = e.getAttribute("font-family") ?? "sans-serif";
    const font = /\bmonospace\b/.test(stack) ? fonts.mono : fonts.sans;
    e.setAttribute("font-family", `'${font}', ${stack}`);
  }
  const vb = svg.viewBox.baseVal;
  // One CSS pixel per view-box unit, at the page's origin.
  svg.setAttribute("width", String(vb.width));
  svg.setAttribute("height", String(vb.height));
  const origin = svg.getBoundingClientRect();
  const boxOf = (e: Element): Box => {
    const r = e.getBoundingClientRect();
    const [x, y] = [r.left - origin.left + vb.x, r.top - origin.top + vb.y];
    return { left: x, top: y, right: x + r.width, bottom: y + r.height };
  };
  const round = (n: number) => Math.round(n * 10) / 10;
  const fmt = (b: Box) =>
    `${round(b.left)},${round(b.top)} ${round(b.right - b.left)}×${round(b.bottom - b.top)}`;
  const grow = (b: Box, d: number): Box => ({
    left: b.left - d,
    top: b.top - d,
    right: b.right + d,
    bottom: b.bottom + d,
  });
  const drawn = (e: Element) => !e.closest("defs, marker, symbol, clipPath, mask, pattern");

  const shapes = [...document.querySelectorAll("rect, path, ellipse, circle")]
    .filter(drawn)
    .filter((e) => e.tagName !== "path" || /z/i.test(e.getAttribute("d") ?? ""))
    .map((e) => {
      const box = boxOf(e);
      const area = (box.right - box.left) * (box.bottom - box.top);
      const style = getComputedStyle(e);
      const stroke = style.stroke === "none" ? 0 : parseFloat(style.strokeWidth) || 0;
      const inner = grow(box, -stroke / 2);
      const outer = grow(box, stroke / 2);
      const label =
        e.tagName === "rect"
          ? `<rect x=${e.getAttribute("x") ?? 0} y=${e.getAttribute("y") ?? 0} ` +
            `w=${e.getAttribute("width")} h=${e.getAttribute("height")}>`
          : `<${e.tagName} ${fmt(box)}>`;
      const round_ = e.tagName === "circle" || e.tagName === "ellipse";
      return { box, inner, outer, area, label, round: round_ };
    })
    .filter((s) => s.area > 0);
  const whole = { left: vb.x, top: vb.y, right: vb.x + vb.width, bottom: vb.y + vb.height };
  const viewBox = {
    box: whole,
    inner: whole,
    outer: whole,
    area: vb.width * vb.height,
    label: "the view box",
    round: false,
  };
  const contains = (b: Box, x: number, y: number) =>
    x >= b.left && x <= b.right && y >= b.top && y <= b.bottom;
  const inside = (inner: Box, outer: Box) =>
    inner.left >= outer.left &&
    inner.right <= outer.right &&
    inner.top >= outer.top &&
    inner.bottom <= outer.bottom;
  const describe = ({ w, h }: { w: number; h: number }) =>
    w > 0 && h > 0 ? `${round(w)}×${round(h)} px overlap` : `${round(-Math.min(w, h))} px apart`;
  const overlap = (a: Box, b: Box) => ({
    w: Math.min(a.right, b.right) - Math.max(a.left, b.left),
    h: Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top),
  });

  const ctx = new OffscreenCanvas(10, 10).getContext("2d")!;
  const texts = [...document.querySelectorAll("text")].filter(drawn).map((e) => {
    const text = e as SVGTextElement;
    const words = (e.textContent ?? "").replace(/\s+/g, " ").trim();
    const name = JSON.stringify(words);
    const x = parseFloat(e.getAttribute("x") ?? "0");
    const y = parseFloat(e.getAttribute("y") ?? "0");
    if (e.children.length)
      faults.push(`${name}: has child elements, which this check does not lay out`);
    const style = getComputedStyle(e);
    const wanted = /\bmonospace\b/.test(style.fontFamily) ? fonts.mono : fonts.sans;
    if (!style.fontFamily.replace(/["']/g, "").startsWith(wanted))
      faults.push(`${name}: drawn in ${style.fontFamily}, not this pass's ${wanted}`);
    // The ink: the SVG's first glyph position on the baseline, the canvas's extents around it.
    ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    ctx.textAlign = "left";
    ctx.textBaseline = "alphabetic";
    // The string as the SVG lays it out: spaces collapsed, leading and trailing ones kept or not
    // (chromium keeps them), or all kept (xml:space="preserve"); whichever the SVG's length says.
    const raw = (e.textContent ?? "").replace(/[\n\r\t]/g, " ");
    const length = text.getComputedTextLength();
    const [m, laidOut] = [raw.replace(/ +/g, " "), words, raw]
      .map((str) => [ctx.measureText(str), str] as const)
      .reduce((a, b) => (Math.abs(b[0].width - length) < Math.abs(a[0].width - length) ? b : a));
    // The canvas rounds advances a little differently (hinting, CJK spacing): within 3 % the ink
    // is scaled to the SVG's length; more means the two did not draw the same thing.
    if (Math.abs(m.width - length) > Math.max(0.5, length * 0.03))
      faults.push(
        `${name}: canvas measures ${JSON.stringify(laidOut)} ${round(m.width)} px wide, ` +
          `the SVG ${round(length)} px; its ink cannot be measured`,
      );
    const k = m.width > 0 ? length / m.width : 1;
    if (!words) return { box: boxOf(e), x, y, name };
    const start = text.getStartPositionOfChar(0);
    const point = new DOMPoint(start.x, start.y).matrixTransform(text.getScreenCTM()!);
    const [px, py] = [point.x - origin.left + vb.x, point.y - origin.top + vb.y];
    const box = {
      left: px - m.actualBoundingBoxLeft * k,
      right: px + m.actualBoundingBoxRight * k,
      top: py - m.actualBoundingBoxAscent,
      bottom: py + m.actualBoundingBoxDescent,
    };
    return { box, x, y, name };
  });

  for (const t of texts) {
    const holders = shapes.filter((s) => contains(s.box, t.x, t.y));
    const holder = holders.reduce((a, b) => (b.area < a.area ? b : a), viewBox);
    const spill = {
      left: holder.inner.left - t.box.left,
      right: t.box.right - holder.inner.right,
      top: holder.inner.top - t.box.top,
      bottom: t.box.bottom - holder.inner.bottom,
    };
    if (holder.round) {
      // A circle or ellipse holds the ink where all four corners of the ink's box keep clear of
      // its inner edge (measured along the radius through the corner).
      const [cx, cy] = [
        (holder.inner.left + holder.inner.right) / 2,
        (holder.inner.top + holder.inner.bottom) / 2,
      ];
      const [rx, ry] = [holder.inner.right - cx, holder.inner.bottom - cy];
      const clearance = Math.min(
        ...[t.box.left, t.box.right].flatMap((x) =>
          [t.box.top, t.box.bottom].map((y) => {
            const d = Math.hypot((x - cx) / rx, (y - cy) / ry);
            return ((1 - d) * Math.hypot(x - cx, y - cy)) / (d || 1);
          }),
        ),
      );
      if (clearance < margin)
        faults.push(
          `${t.name} spills out of ${holder.label}: its ink's corner ` +
            (clearance < 0 ? `${round(-clearance)} px past` : `${round(clearance)} px from`) +
            " the edge",
        );
    }
    const sides = Object.entries(spill)
      .filter(([, px]) => px > -margin)
      .map(([side, px]) =>
        px > 0 ? `${round(px)} px past the ${side} edge` : `${round(-px)} px from the ${side} edge`,
      );
    if (sides.length && !holder.round)
      faults.push(`${t.name} spills out of ${holder.label}: ${sides.join(", ")}`);
    // Any other shape the text covers must hold its holder (a panel around it), else the text
    // runs into a neighbour or over a border.
    for (const s of shapes) {
      if (s === holder || (holders.includes(s) && inside(holder.box, s.box))) continue;
      if (inside(s.box, t.box)) continue; // a mark drawn under the text, such as a highlight
      const o = overlap(t.box, s.outer);
      if (o.w > -margin && o.h > -margin)
        faults.push(`${t.name} runs into ${s.label}: ${describe(o)}`);
    }
  }
  texts.forEach((a, i) => {
    for (const b of texts.slice(i + 1)) {
      const o = overlap(a.box, b.box);
      if (o.w > -margin && o.h > -margin)
        faults.push(`${a.name} overlaps ${b.name}: ${describe(o)}`);
    }
  });
  return faults;
}

const files = readdirSync(SVG_DIR)
  .filter((f) => f.endsWith(".svg"))
  .sort();
// Every diagram laid out in every pair of fonts.
const LAYOUTS = budget({ diagram: files.length * MONO.length * SANS.length });

describe.skipIf(!hasChromium)("diagram layout in chromium", { timeout: LAYOUTS }, () => {
  let browser: Browser;
  let page: Page;
  beforeAll(
    async () => {
      browser = await launch();
      page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      await page.goto(pathToFileURL(path.join(SVG_DIR, files[0])).href, { waitUntil: "load" });
    },
    budget({ browser: 1, page: 1 }),
  );
  afterAll(async () => {
    await browser?.close();
  });

  it("every text in every diagram fits its shape and overlaps no other text, in every font", async () => {
    expect(files.length).toBeGreaterThan(0);
    const have = await page.evaluate(installed, [...MONO, ...SANS]);
    const missing = [...MONO, ...SANS].filter((f) => !have.includes(f));
    if (missing.length)
      console.warn(
        `svg-layout: NOT CHECKED with ${missing.join(", ")}: not installed here ` +
          "(Debian: fonts-dejavu-core fonts-noto-mono fonts-noto-core fonts-liberation)",
      );
    const passes = MONO.filter((m) => have.includes(m)).flatMap((mono) =>
      SANS.filter((s) => have.includes(s)).map((sans) => ({ mono, sans })),
    );
    expect(passes.length, `none of ${[...MONO, ...SANS].join(", ")} is installed`).toBeGreaterThan(
      0,
    );
    const faults: string[] = [];
    const counts: string[] = [];
    for (const fonts of passes) {
      const before = faults.length;
      for (const file of files) {
        const source = readFileSync(path.join(SVG_DIR, file), "utf8");
        const found = await page.evaluate(layoutFaults, { source, margin: MARGIN, fonts });
        faults.push(...found.map((f) => `${file} (${fonts.mono} + ${fonts.sans}): ${f}`));
      }
      counts.push(`  ${fonts.mono} + ${fonts.sans}: ${faults.length - before} faults`);
    }
    console.log(
      `svg-layout: ${files.length} diagrams, ${passes.length} font passes\n${counts.join("\n")}`,
    );
    expect(faults, `${faults.length} layout faults:\n${faults.join("\n")}\n`).toEqual([]);
  });
});
