// Mermaid diagrams drawn at build time, for both themes, so a page carries finished SVG: readable
// without JavaScript, and no 665 KB of mermaid for the reader to download and run.
//
// Mermaid measures text as it lays a diagram out, so it needs a real browser: the build drives
// the machine's Chromium (site/lib/chromium.ts) with playwright-core, one page for the whole
// build. Drawings are cached by their source and mermaid's version, so a second build (or the
// same diagram in another locale) costs nothing. Without a Chromium, or with MERMAID_RENDER=client,
// renderMermaid answers null and the component leaves the diagram to mermaid in the browser.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import type { Plugin } from "vite";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.ts";

/** One SVG for both themes: the light drawing, plus the dark theme's rules, which apply under
 *  Starlight's `data-theme="dark"` (mermaid lays a diagram out the same in every theme; only its
 *  stylesheet differs). */
export interface Drawing {
  svg: string;
  width: number;
}
/** A diagram mermaid could not draw: its own message, shown in place of that diagram only. */
export interface DrawingError {
  error: string;
}

const require = createRequire(import.meta.url);
const MERMAID = require.resolve("mermaid/dist/mermaid.min.js");
const VERSION = (require("mermaid/package.json") as { version: string }).version;
const CACHE = path.join(process.cwd(), "node_modules", ".cache", "lah-mermaid");

// One browser per build process. The pages' bundle and astro.config.mjs (which closes it) each
// load their own copy of this module, so the state lives on globalThis.
interface RendererState {
  browser?: Promise<Browser>;
  page?: Promise<Page>;
  queue: Promise<unknown>;
}
const state: RendererState = ((globalThis as { __lahMermaid?: RendererState }).__lahMermaid ??= {
  queue: Promise.resolve(),
});

export const buildTimeRendering = () =>
  process.env.MERMAID_RENDER !== "client" && CHROMIUM !== undefined && existsSync(CHROMIUM);

async function mermaidPage(): Promise<Page> {
  state.page ??= (async () => {
    const { chromium } = await import("playwright-core");
    state.browser = chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    const p = await (await state.browser).newPage();
    await p.setContent("<!doctype html><html><body></body></html>");
    await p.addScriptTag({ path: MERMAID });
    return p;
  })();
  return state.page;
}

/** Draws `code` in the light and the dark theme; null when diagrams are left to the browser. */
export async function renderMermaid(source: string): Promise<Drawing | DrawingError | null> {
  if (!buildTimeRendering()) return null;
  // Indentation and blank lines mean nothing to a sequence diagram: one key for the same diagram
  // however a page indents it.
  const code = source
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join("\n");
  const key = createHash("sha256").update(`${VERSION}\n${code}`).digest("hex").slice(0, 16);
  const cached = path.join(CACHE, `${key}.v2.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, "utf8")) as Drawing;
  // One diagram at a time: mermaid keeps global state (its configuration, the theme).
  const drawing = (state.queue = state.queue.then(
    () => draw(code, key),
    () => draw(code, key),
  ));
  const result = (await drawing) as Drawing | DrawingError;
  if (!("error" in result)) {
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(`${cached}.${process.pid}`, JSON.stringify(result));
    renameSync(`${cached}.${process.pid}`, cached);
  }
  return result;
}

async function draw(code: string, key: string): Promise<Drawing | DrawingError> {
  const p = await mermaidPage();
  const drawn = await p.evaluate(
    async ({ code, id }) => {
      const mermaid = (window as unknown as { mermaid: typeof import("mermaid").default }).mermaid;
      try {
        const svgs: string[] = [];
        for (const theme of ["default", "dark"] as const) {
          mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme });
          svgs.push((await mermaid.render(`${id}${theme === "dark" ? "x" : ""}`, code)).svg);
        }
        return { light: svgs[0], dark: svgs[1] };
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      } finally {
        document.body.replaceChildren(); // what a failed render leaves behind
      }
    },
    { code, id: `m${key}` },
  );
  if (drawn.error !== undefined) return { error: drawn.error };
  const darkCss = /<style>([\s\S]*?)<\/style>/.exec(drawn.dark!)?.[1] ?? "";
  const darkRules = scoped(darkCss.replaceAll(`#m${key}x`, `#m${key}`), ':root[data-theme="dark"]');
  const svg = drawn.light!.replace("</style>", () => `${darkRules}</style>`);
  const width = Number(/viewBox="[-\d.]+ [-\d.]+ ([\d.]+)/.exec(svg)?.[1] ?? 0);
  return { svg, width: Math.ceil(width) };
}

/** `css` with `prefix` before every selector of its top-level rules (at-rules are dropped: the
 *  light stylesheet has the same ones). */
export function scoped(css: string, prefix: string): string {
  const rules: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < css.length; i++) {
    if (css[i] === "{") depth++;
    else if (css[i] === "}" && --depth === 0) {
      const rule = css.slice(start, i + 1).trim();
      start = i + 1;
      const open = rule.indexOf("{");
      const selectors = rule.slice(0, open).trim();
      if (selectors.startsWith("@")) continue;
      const prefixed = selectors
        .split(",")
        .map((sel) => `${prefix} ${sel.trim()}`)
        .join(",");
      rules.push(prefixed + rule.slice(open));
    }
  }
  return rules.join("");
}

/** Closes the browser once the build is done (an Astro hook in astro.config.mjs calls this). */
export async function closeMermaidRenderer(): Promise<void> {
  const browser = state.browser;
  state.browser = state.page = undefined;
  if (browser) await (await browser).close();
}

/** For a build that draws the diagrams itself: the browser fallback (site/lib/mermaid-client.ts,
 *  which imports mermaid, some 1,500 modules) becomes an empty module, so the client build does not
 *  bundle what no page of that build can use; it was a quarter of the build's time. */
export function withoutBrowserFallback(): Plugin {
  const EMPTY = "\0lah-no-mermaid-fallback";
  return {
    name: "lah-no-mermaid-fallback",
    enforce: "pre",
    resolveId: (id) => (/\/lib\/mermaid-client(\.ts)?$/.test(id) ? EMPTY : undefined),
    load: (id) => (id === EMPTY ? "export async function renderInBrowser() {}" : undefined),
  };
}
