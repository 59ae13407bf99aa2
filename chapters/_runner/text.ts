// Small text helpers the runner, the site and the tests share (the lessons keep their own).
import type { CreateParams } from "../_shared/types.ts";

/** `text` cut to at most `lines` lines and `chars` characters, saying how much was left out. */
export function clip(text: string, lines: number, chars: number): string {
  let out = text.length > chars ? `${text.slice(0, chars)}…` : text;
  const rows = out.split("\n");
  if (rows.length > lines)
    out = [...rows.slice(0, lines), `… (${rows.length - lines} more lines)`].join("\n");
  return out;
}

/** `text` as a regular expression that matches it literally. */
export { escapeRegExp } from "../_trace/scrub.ts";

/** A request's system prompt as text, whether it was sent as a string or as blocks (appendix B
 *  sends blocks, to mark them for the prompt cache). */
export const systemText = (system: CreateParams["system"]): string | undefined =>
  typeof system === "string" || system === undefined
    ? system
    : system.map((block) => block.text).join("\n");

/** Any JSON value as text, for showing a field of a tool's input (which may be any JSON, from a
 *  model or from a recording): a string as is, a number or a boolean written out, null and
 *  missing as "", anything else as its JSON. Never throws (String() does, on `{"toString": 1}`). */
export const asText = (value: unknown): string =>
  typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : value === null || value === undefined
        ? ""
        : (JSON.stringify(value) ?? "");
