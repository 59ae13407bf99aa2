// @ts-check
// The site's Expressive Code plugins (ec.config.mjs): compactTokens, the same highlighted code in
// less markup, and lazyBlocks, code blocks the browser may leave undrawn until they come near.
//
// compactTokens. Expressive Code wraps every token in `<span style="--0:#82AAFF;--1:#3B61B0">`
// (its colour in the dark theme, then the light one), even a token drawn in the code's own text
// colour. On a page with fifteen excerpts (s13) that was 5,300 spans and two thirds of the page's
// bytes. This plugin rewrites a rendered block so that
//   - a token in the code's text colour in every theme is plain text (the line's colour is that),
//   - a token in a theme colour names it by class, one class per theme ("a3 b7": the 4th colour of
//     the dark theme's palette, the 8th of the light one), defined once in the site's stylesheet,
//   - neighbouring tokens with the same classes become one span,
//   - the indent wrapper, which only matters when a block wraps its lines, is left out of blocks
//     that do not wrap.
// A token whose style is anything else (a background, italics, a colour from outside the theme,
// as a text marker can make) keeps Expressive Code's inline style and its own CSS rules.

/** @typedef {import("@expressive-code/core").ExpressiveCodePlugin} Plugin */
/** @typedef {import("@expressive-code/core").StyleVariant} StyleVariant */
/** @typedef {import("hast").Element} Element */
/** @typedef {import("hast").ElementContent} Content */

/** Class-name prefix per style variant: variant 0's colours are a0, a1 …, variant 1's b0 …. */
const PREFIX = "abcdefgh";
const norm = (/** @type {string} */ color) => color.trim().toUpperCase();

/** @type {WeakMap<readonly StyleVariant[], { palettes: Map<string, string>[], text: string[] }>} */
const cache = new WeakMap();

/** Per style variant: the theme's token colours (as the highlighter uses them, after Expressive
 *  Code raised their contrast) → class name, and the code's text colour. */
export function palettes(/** @type {readonly StyleVariant[]} */ styleVariants) {
  let found = cache.get(styleVariants);
  if (!found) {
    found = {
      palettes: styleVariants.map((variant, i) => {
        const colors = new Set([
          variant.theme.fg,
          ...variant.theme.settings.map((s) => s.settings.foreground),
        ]);
        const palette = new Map();
        for (const color of colors)
          if (color && !palette.has(norm(color)))
            palette.set(norm(color), `${PREFIX[i]}${palette.size}`);
        return palette;
      }),
      text: styleVariants.map((variant) =>
        norm(String(variant.resolvedStyleSettings.get("codeForeground"))),
      ),
    };
    cache.set(styleVariants, found);
  }
  return found;
}

/** The stylesheet part: each palette class sets its theme's variable (`--0` for the dark theme …)
 *  and a token span takes its colour from the variable of the theme being shown, with the same
 *  selectors Expressive Code gives its inline-styled spans under Starlight's theme switch
 *  (`[data-theme='dark' | 'light']` on the root element; the first theme is the default). */
export function paletteCss(/** @type {readonly StyleVariant[]} */ styleVariants) {
  const { palettes: list } = palettes(styleVariants);
  const span = ".ec-line :where(span[class])";
  const colorOf = (/** @type {number} */ i) => `{color:var(--${i}, inherit)}`;
  const base = styleVariants[0].theme.type;
  const rules = list.flatMap((palette, i) =>
    [...palette].map(([color, name]) => `.ec-line .${name}{--${i}:${color}}`),
  );
  rules.push(
    `${span},:root:not([data-theme='${base}']) &[data-theme='${base}'] ${span}${colorOf(0)}`,
  );
  let mediaDone = false;
  styleVariants.forEach((variant, i) => {
    const type = variant.theme.type;
    if (i === 0 || type === base) return;
    rules.push(
      `:root[data-theme='${type}'] &:not([data-theme='${base}']) ${span},&[data-theme='${type}'] ${span}${colorOf(i)}`,
    );
    if (!mediaDone) {
      mediaDone = true;
      rules.push(
        `@media (prefers-color-scheme: ${type}){:root:not([data-theme='${base}']) & ${span}${colorOf(i)}}`,
      );
    }
  });
  return rules.join("\n");
}

/** The style declarations of one of Expressive Code's token spans, or undefined for any other node. */
function tokenStyle(/** @type {Content} */ node) {
  if (node.type !== "element" || node.tagName !== "span") return undefined;
  const { style, className, ...rest } = node.properties ?? {};
  if (className || Object.keys(rest).length || typeof style !== "string" || !style.startsWith("--"))
    return undefined;
  return style.split(";").map((declaration) => {
    const at = declaration.indexOf(":");
    return /** @type {[string, string]} */ ([declaration.slice(0, at), declaration.slice(at + 1)]);
  });
}

/** What a token span becomes: its children alone, a span with palette classes, or itself. */
function rewrite(
  /** @type {Element} */ node,
  /** @type {ReturnType<typeof palettes>} */ { palettes: list, text },
) {
  const declarations = tokenStyle(node);
  if (!declarations) return node;
  const classes = [];
  for (const [name, value] of declarations) {
    const variant = /^--(\d)$/.exec(name)?.[1];
    if (variant === undefined) return node; // a background, italics …: keep the inline style
    const i = Number(variant);
    if (norm(value) === text[i]) continue; // the line's own colour
    const cls = list[i]?.get(norm(value));
    if (!cls) return node; // a colour from outside the palette
    classes.push(cls);
  }
  if (!classes.length) return node.children;
  return { ...node, properties: { className: classes } };
}

/** Rewrites the children of a code line's `.code` element (and of its indent wrapper). */
function compactLine(
  /** @type {Element} */ parent,
  /** @type {ReturnType<typeof palettes>} */ found,
  /** @type {boolean} */ unwrapIndent,
) {
  /** @type {Content[]} */
  const out = [];
  for (const child of parent.children) {
    let parts = /** @type {Content[]} */ ([child]);
    if (child.type === "element" && child.tagName === "span") {
      const classes = child.properties?.className;
      if (Array.isArray(classes) && classes.length === 1 && classes[0] === "indent") {
        compactLine(child, found, unwrapIndent);
        parts = unwrapIndent ? child.children : [child];
      } else {
        if (tokenStyle(child)) compactLine(child, found, unwrapIndent); // tokens inside a token
        const result = rewrite(child, found);
        parts = Array.isArray(result) ? result : [result];
      }
    }
    for (const part of parts) {
      const last = out.at(-1);
      if (part.type === "text" && last?.type === "text") last.value += part.value;
      else if (
        part.type === "element" &&
        last?.type === "element" &&
        part.tagName === "span" &&
        last.tagName === "span" &&
        sameAttributes(part, last) &&
        part.children.every((c) => c.type === "text") &&
        last.children.every((c) => c.type === "text")
      )
        last.children = [{ type: "text", value: textOf(last) + textOf(part) }];
      else out.push(part.type === "text" ? { ...part } : part);
    }
  }
  parent.children = out;
}

const textOf = (/** @type {Element} */ el) =>
  el.children.map((c) => (c.type === "text" ? c.value : "")).join("");
const sameAttributes = (/** @type {Element} */ a, /** @type {Element} */ b) =>
  JSON.stringify(a.properties) === JSON.stringify(b.properties) &&
  JSON.stringify(a.properties?.className) !== JSON.stringify(["indent"]);

/** Calls `fn` for every element of the tree with the given class. */
function eachWithClass(
  /** @type {Element} */ node,
  /** @type {string} */ name,
  /** @type {(el: Element) => void} */ fn,
) {
  for (const child of node.children) {
    if (child.type !== "element") continue;
    const classes = child.properties?.className;
    if (Array.isArray(classes) && classes.includes(name)) fn(child);
    else eachWithClass(child, name, fn);
  }
}

/** @returns {Plugin} */
export function compactTokens() {
  return {
    name: "Compact tokens",
    baseStyles: ({ styleVariants }) => paletteCss(styleVariants),
    hooks: {
      postprocessRenderedBlock: ({ codeBlock, renderData, styleVariants }) => {
        const found = palettes(styleVariants);
        const unwrapIndent = !codeBlock.props.wrap;
        eachWithClass(renderData.blockAst, "ec-line", (line) =>
          eachWithClass(line, "code", (code) => compactLine(code, found, unwrapIndent)),
        );
      },
    },
  };
}

/** A line this long or shorter fits a 320 px phone's column (≈ 30 monospace characters). */
const FITS_ANY_SCREEN = 30;

/** Code blocks the browser may leave unstyled and unlaid until they come near the screen
 *  (`content-visibility: auto` in site/styles/custom.css): the placeholder of a block that was
 *  never drawn is as tall as its lines (`--lah-lines` on the block's wrapper), and a block that
 *  may scroll sideways is reachable by keyboard from the start (`tabindex`). Expressive Code's
 *  own script takes it off a drawn block that turns out not to scroll; a block never drawn could
 *  not be told to scroll without drawing it. (No `role="region"`: unnamed regions would be
 *  landmarks without names.) */
export function lazyBlocks() {
  /** @type {Plugin} */
  const plugin = {
    name: "Lazy blocks",
    hooks: {
      postprocessRenderedBlock: ({ codeBlock, renderData }) => {
        const longest = Math.max(0, ...codeBlock.getLines().map((line) => line.text.length));
        if (codeBlock.props.wrap || longest <= FITS_ANY_SCREEN) return;
        eachTag(renderData.blockAst, "pre", (pre) => {
          pre.properties = { ...pre.properties, tabIndex: 0 };
        });
      },
      postprocessRenderedBlockGroup: ({ renderData, renderedGroupContents }) => {
        const lines = renderedGroupContents.reduce(
          (sum, { codeBlock }) => sum + codeBlock.getLines().length,
          0,
        );
        const group = renderData.groupAst;
        const style = group.properties?.style ? `${group.properties.style};` : "";
        group.properties = { ...group.properties, style: `${style}--lah-lines:${lines}` };
      },
    },
  };
  return plugin;
}

/** Calls `fn` for every element of the tree with the given tag name. */
function eachTag(
  /** @type {Element} */ node,
  /** @type {string} */ tag,
  /** @type {(el: Element) => void} */ fn,
) {
  for (const child of node.children) {
    if (child.type !== "element") continue;
    if (child.tagName === tag) fn(child);
    else eachTag(child, tag, fn);
  }
}
