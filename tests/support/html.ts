// Reading built HTML in tests: entities decoded by the `entities` library (the one parse5 uses),
// not by hand, so every test reads a page the same way a browser would.
import { decodeHTML } from "entities";

export const decodeHtml = (html: string): string => decodeHTML(html);

/** Visible text: no tags, entities decoded, whitespace collapsed. */
export const visibleText = (html: string): string =>
  decodeHtml(html.replace(/<[^>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();
