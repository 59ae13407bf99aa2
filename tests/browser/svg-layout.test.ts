// The hand-drawn diagrams in assets/svg/, laid out by a real browser: every <text> stays inside
// the shape that holds it, crosses no other shape's edge and overlaps no other <text>. (Each file
// must also parse as XML and have a <title>.)
//
// "The shape that holds it" is the smallest <rect>, closed <path>, <ellipse> or <circle> whose box
// contains the text's anchor (its x/y), or the view box when none does. A text may cover the shapes
// that hold its holder (the panel around a box), but no other shape: a label that runs into the
// next box, or sits on the border between two, is a fault. Measured with getBoundingClientRect
// (text: the font's advance width × ascent-to-descent box) with the SVG drawn at one CSS pixel per
// view-box unit, so the numbers reported are view-box units. A shape's stroke counts as its edge.
// Tolerance 1 px, as a margin: a text must keep at least 1 px clear of its holder's inner stroke
// edge, of any other shape's outer stroke edge and of any other text; closer counts as touching.
// The margin absorbs small differences between fonts (here: the fonts Debian's chromium finds,
// DejaVu Sans and Noto Sans CJK; a reader's system-ui may be a little wider or narrower).
//
// Speed: one page. It opens the first file; every file (the first too) is then read from disk,
// parsed by the page's DOMParser as image/svg+xml and swapped in as the document's root, which lays
// out the same as opening the file (checked while writing this test) without a navigation per file.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { hasChromium, launch } from "../support/chromium.ts";

const SVG_DIR = path.join(REPO_ROOT, "assets/svg");
const TOLERANCE = 1;

/** Runs in the page: makes `source` the document and returns its layout faults. */
function layoutFaults({ source, tolerance }: { source: string; tolerance: number }): string[] {
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
      return { box, inner, outer, area, label };
    })
    .filter((s) => s.area > 0);
  const whole = { left: vb.x, top: vb.y, right: vb.x + vb.width, bottom: vb.y + vb.height };
  const viewBox = {
    box: whole,
    inner: whole,
    outer: whole,
    area: vb.width * vb.height,
    label: "the view box",
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

  const texts = [...document.querySelectorAll("text")].filter(drawn).map((e) => {
    const first = e.querySelector("tspan[x], tspan[y]");
    const num = (attr: string) =>
      parseFloat(e.getAttribute(attr) ?? first?.getAttribute(attr) ?? "0");
    const words = (e.textContent ?? "").replace(/\s+/g, " ").trim();
    return { box: boxOf(e), x: num("x"), y: num("y"), name: JSON.stringify(words) };
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
    const sides = Object.entries(spill)
      .filter(([, px]) => px > -tolerance)
      .map(([side, px]) =>
        px > 0 ? `${round(px)} px past the ${side} edge` : `${round(-px)} px from the ${side} edge`,
      );
    if (sides.length) faults.push(`${t.name} spills out of ${holder.label}: ${sides.join(", ")}`);
    // Any other shape the text covers must hold its holder (a panel around it), else the text
    // runs into a neighbour or over a border.
    for (const s of shapes) {
      if (s === holder || (holders.includes(s) && inside(holder.box, s.box))) continue;
      if (inside(s.box, t.box)) continue; // a mark drawn under the text, such as a highlight
      const o = overlap(t.box, s.outer);
      if (o.w > -tolerance && o.h > -tolerance)
        faults.push(`${t.name} runs into ${s.label}: ${describe(o)}`);
    }
  }
  texts.forEach((a, i) => {
    for (const b of texts.slice(i + 1)) {
      const o = overlap(a.box, b.box);
      if (o.w > -tolerance && o.h > -tolerance)
        faults.push(`${a.name} overlaps ${b.name}: ${describe(o)}`);
    }
  });
  return faults;
}

describe.skipIf(!hasChromium)("diagram layout in chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("every text in every diagram fits its shape and overlaps no other text", async () => {
    const files = readdirSync(SVG_DIR)
      .filter((f) => f.endsWith(".svg"))
      .sort();
    expect(files.length).toBeGreaterThan(0);
    const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    await page.goto(pathToFileURL(path.join(SVG_DIR, files[0])).href, { waitUntil: "load" });
    const faults: string[] = [];
    for (const file of files) {
      const source = readFileSync(path.join(SVG_DIR, file), "utf8");
      const found = await page.evaluate(layoutFaults, { source, tolerance: TOLERANCE });
      faults.push(...found.map((f) => `${file}: ${f}`));
    }
    await page.close();
    expect(faults, `${faults.length} layout faults:\n${faults.join("\n")}\n`).toEqual([]);
  });
});
