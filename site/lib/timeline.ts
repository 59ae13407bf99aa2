// The harness over fifteen chapters (and the appendices beside them): which layer each mechanism
// belongs to, and a static SVG chart of how the chapters' code and the tool list grow. (Which earlier
// chapters a chapter imports is read in imports.ts.)
// Pure functions: the timeline page renders them at build time (no chart library, no JS).

/** The five layers of the harness, in the order the chapters build them: the home page's learning
 *  path (LayerCard) and the timeline both name them from here (UI strings `layer.<id>`). */
export const LAYERS = [
  { id: "loop", chapters: ["s01", "s02"] },
  { id: "context", chapters: ["s03", "s04", "s05", "s06"] },
  { id: "safety", chapters: ["s07", "s08"] },
  { id: "persistence", chapters: ["s09", "s10", "s11", "s12"] },
  { id: "team", chapters: ["s13", "s14", "s15"] },
] as const;
export type LayerId = (typeof LAYERS)[number]["id"];

export function layerOf(chapterId: string): LayerId | undefined {
  return LAYERS.find((l) => (l.chapters as readonly string[]).includes(chapterId))?.id;
}

/** The title line of agent.ts's header comment: " * s13 · Agent teams" → "Agent teams",
 *  " * Appendix A · MCP tool servers" → "MCP tool servers", " * a3 · Edits that land" → "Edits
 *  that land". */
export function headlineOf(source: string): string | undefined {
  return /^\s*\*\s*(?:s\d\d|Appendix [A-Z]|a\d+)\s*·\s*(.+?)\s*$/m.exec(source)?.[1];
}

export interface ChartPoint {
  id: string;
  lines: number;
  tools: number;
  layer?: string;
}

export interface ChartLabels {
  title: string;
  description: string;
  lines: string;
  tools: string;
  /** Layer names by id, drawn above their band. */
  layers: Record<string, string>;
}

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Roughly how wide a label is at 12px: CJK glyphs are about one em, others about 0.6 em. */
const textWidth = (text: string) =>
  [...text].reduce((w, ch) => w + (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 12 : 7), 0);

/** Splits a label into at most two lines of about `width` pixels (at 11px), at spaces. */
function wrap(label: string, width: number): string[] {
  const fits = (text: string) => (textWidth(text) * 11) / 12 <= width;
  if (fits(label)) return [label];
  const words = label.split(" ");
  for (let cut = words.length - 1; cut > 0; cut--) {
    const first = words.slice(0, cut).join(" ");
    if (fits(first)) return [first, words.slice(cut).join(" ")];
  }
  return words.length > 1 ? [words[0], words.slice(1).join(" ")] : [label];
}

/** A round number at or above `value` for an axis (100, 200, 250, 500, 800 ...). */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((m) => m * magnitude >= value)!;
  return step * magnitude;
}

/** The growth chart: bars for the lines of each chapter's lesson files (left axis), a line for the number of
 *  tools the model sees (right axis), bands for the layers. Colours come from CSS classes, so
 *  the chart follows the light and dark themes. */
export function growthChart(points: readonly ChartPoint[], labels: ChartLabels): string {
  const width = 760;
  const height = 320;
  const pad = { top: 66, right: 48, bottom: 40, left: 52 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const maxLines = niceCeiling(Math.max(1, ...points.map((p) => p.lines)));
  // A multiple of 4, so the right axis's quarter ticks are whole numbers of tools.
  const maxTools = Math.max(4, Math.ceil(Math.max(1, ...points.map((p) => p.tools)) / 4) * 4);
  const slot = plotW / Math.max(1, points.length);
  const x = (i: number) => pad.left + slot * i + slot / 2;
  const yLines = (v: number) => pad.top + plotH - (v / maxLines) * plotH;
  const yTools = (v: number) => pad.top + plotH - (v / maxTools) * plotH;
  const r = (n: number) => Math.round(n * 10) / 10;
  const out: string[] = [];

  // Layer bands with their names.
  let start = 0;
  let band = 0;
  points.forEach((p, i) => {
    const next = points[i + 1];
    if (next && next.layer === p.layer) return;
    const x0 = pad.left + slot * start;
    const x1 = pad.left + slot * (i + 1);
    out.push(
      `<rect class="lah-chart-band${band++ % 2 ? " odd" : ""}" x="${r(x0)}" y="${pad.top - 34}" width="${r(x1 - x0)}" height="${plotH + 34}"/>`,
    );
    if (p.layer) {
      // A long layer name wraps onto two lines rather than running into the next band.
      const rows = wrap(labels.layers[p.layer] ?? p.layer, x1 - x0 - 6);
      const y0 = pad.top - 8 - 12 * (rows.length - 1);
      const spans = rows
        .map(
          (row, k) => `<tspan x="${r((x0 + x1) / 2)}" y="${y0 + 12 * k}">${escapeXml(row)}</tspan>`,
        )
        .join("");
      out.push(`<text class="lah-chart-layer" text-anchor="middle">${spans}</text>`);
    }
    start = i + 1;
  });

  // Axes and grid.
  for (let k = 0; k <= 4; k++) {
    const v = (maxLines / 4) * k;
    const y = r(yLines(v));
    out.push(
      `<line class="lah-chart-grid" x1="${pad.left}" x2="${width - pad.right}" y1="${y}" y2="${y}"/>`,
    );
    out.push(
      `<text class="lah-chart-axis" x="${pad.left - 6}" y="${y + 4}" text-anchor="end">${Math.round(v)}</text>`,
    );
    out.push(
      `<text class="lah-chart-axis tools" x="${width - pad.right + 6}" y="${r(yTools((maxTools / 4) * k)) + 4}">${r((maxTools / 4) * k)}</text>`,
    );
  }

  // Bars: lines of the lesson files.
  const barW = Math.min(28, slot * 0.6);
  points.forEach((p, i) => {
    const y = yLines(p.lines);
    out.push(
      `<rect class="lah-chart-bar" x="${r(x(i) - barW / 2)}" y="${r(y)}" width="${r(barW)}" height="${r(pad.top + plotH - y)}"><title>${escapeXml(`${p.id}: ${p.lines} ${labels.lines}`)}</title></rect>`,
    );
    out.push(
      `<text class="lah-chart-axis" x="${r(x(i))}" y="${height - pad.bottom + 16}" text-anchor="middle">${escapeXml(p.id)}</text>`,
    );
  });

  // Line: tools per chapter.
  const path = points.map((p, i) => `${i ? "L" : "M"}${r(x(i))},${r(yTools(p.tools))}`).join(" ");
  if (points.length) out.push(`<path class="lah-chart-tools" d="${path}"/>`);
  points.forEach((p, i) => {
    out.push(
      `<circle class="lah-chart-dot" cx="${r(x(i))}" cy="${r(yTools(p.tools))}" r="4"><title>${escapeXml(`${p.id}: ${p.tools} ${labels.tools}`)}</title></circle>`,
    );
  });
  // The bars' numbers last, so the line never hides them (CSS gives them a halo).
  points.forEach((p, i) => {
    out.push(
      `<text class="lah-chart-value" x="${r(x(i))}" y="${r(yLines(p.lines) - 4)}" text-anchor="middle">${p.lines}</text>`,
    );
  });

  // Legend.
  const legendY = 14;
  out.push(
    `<rect class="lah-chart-bar" x="${pad.left}" y="${legendY - 9}" width="12" height="12"/>`,
  );
  out.push(
    `<text class="lah-chart-legend" x="${pad.left + 18}" y="${legendY + 1}">${escapeXml(labels.lines)}</text>`,
  );
  const second = pad.left + 18 + textWidth(labels.lines) + 28;
  out.push(
    `<line class="lah-chart-tools" x1="${r(second)}" x2="${r(second + 24)}" y1="${legendY - 3}" y2="${legendY - 3}"/>`,
  );
  out.push(`<circle class="lah-chart-dot" cx="${r(second + 12)}" cy="${legendY - 3}" r="4"/>`);
  out.push(
    `<text class="lah-chart-legend" x="${r(second + 32)}" y="${legendY + 1}">${escapeXml(labels.tools)}</text>`,
  );

  return (
    `<svg class="lah-chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="lah-chart-title lah-chart-desc" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="lah-chart-title">${escapeXml(labels.title)}</title><desc id="lah-chart-desc">${escapeXml(labels.description)}</desc>` +
    `${out.join("")}</svg>`
  );
}
