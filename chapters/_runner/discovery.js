// @ts-check
// Finding chapters on disk: chapters/sNN-slug/ with agent.ts, scenario.ts and <locale>.mdx, and
// appendices, chapters/aN-slug/, which run the same way and have pages of their own on the site.
//
// Plain JavaScript (type-checked from its JSDoc) because the command line, cli.js, needs it
// before the TypeScript loader has started: see cli.js. Everything else imports it through
// chapters.ts.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const CHAPTERS_DIR = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

/**
 * @typedef {object} ChapterInfo
 * @property {string} id "s01"
 * @property {number} number
 * @property {string} slug "agent-loop"
 * @property {string[]} [aliases] Other names it answers to: an appendix's first slug word ("mcp"
 *   for a1-mcp-servers).
 * @property {string} name "s01-agent-loop", also the folder name
 * @property {string} dir
 * @property {string} title
 */

/** @returns {ChapterInfo[]} */
export function listChapters() {
  return readdirSync(CHAPTERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^s\d\d-/.test(d.name))
    .map((d) => {
      const [, num, slug] = /** @type {RegExpExecArray} */ (/^s(\d\d)-(.+)$/.exec(d.name));
      const dir = path.join(CHAPTERS_DIR, d.name);
      const en = path.join(dir, "en.mdx");
      // Page titles read "s03 · Planning with todo"; the CLI shows the id itself.
      const title = existsSync(en)
        ? String(frontmatterTitle(en) ?? slug).replace(/^s\d\d\s*·\s*/, "")
        : slug;
      return { id: `s${num}`, number: Number(num), slug, name: d.name, dir, title };
    })
    .sort((a, b) => a.number - b.number);
}

/** The appendices (chapters/aN-slug/): runnable like a chapter and with pages like a chapter's,
 *  but kept out of listChapters(), which means the fifteen (the CLI's list, the curriculum's
 *  tests); tests about pages iterate allRunnable(). Their title is the first line of agent.ts's
 *  header ("Appendix A · MCP tool servers" → "MCP tool servers", "a3 · Edits that land" → "Edits that land").
 *  @returns {ChapterInfo[]} */
export function listAppendices() {
  return readdirSync(CHAPTERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^a\d+-/.test(d.name))
    .map((d) => {
      const [, num, slug] = /** @type {RegExpExecArray} */ (/^a(\d+)-(.+)$/.exec(d.name));
      const dir = path.join(CHAPTERS_DIR, d.name);
      const agent = path.join(dir, "agent.ts");
      const headline = existsSync(agent)
        ? /^\s*\*\s*(\S.*)$/m.exec(readFileSync(agent, "utf8"))?.[1]
        : undefined;
      const title = headline?.replace(/^(?:Appendix \w+|a\d+)\s*·\s*/, "") ?? slug;
      const aliases = [slug.split("-")[0]];
      return { id: `a${num}`, number: Number(num), slug, aliases, name: d.name, dir, title };
    })
    .sort((a, b) => a.number - b.number);
}

/** Everything `npm run chapter` can run: the chapters, then the appendices.
 *  @returns {ChapterInfo[]} */
export function allRunnable() {
  return [...listChapters(), ...listAppendices()];
}

/** Accepts "s01", "s1", "01", "1", "agent-loop" or "s01-agent-loop"; for an appendix "a1",
 *  "mcp-servers", "a1-mcp-servers" or its alias "mcp". A bare number is always a chapter.
 *  @param {string} query
 *  @returns {ChapterInfo | undefined} */
export function findChapter(query, chapters = allRunnable()) {
  const q = query.trim().toLowerCase();
  const n = /^s?(\d{1,2})$/.exec(q);
  if (n) return chapters.find((c) => c.id.startsWith("s") && c.number === Number(n[1]));
  return chapters.find(
    (c) => c.id === q || c.name === q || c.slug === q || (c.aliases ?? []).includes(q),
  );
}

/** The page's `title`, without loading the YAML parser (≈ 0.1 s of a 0.5 s start): our titles
 *  are one line, plain or double-quoted (a JSON-compatible string). Anything else: undefined.
 *  @param {string} file
 *  @returns {string | undefined} */
export function frontmatterTitle(file) {
  const head = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(file, "utf8"))?.[1] ?? "";
  const line = /^title:[ \t]*(.*)$/m.exec(head)?.[1]?.trim();
  if (!line) return undefined;
  if (!line.startsWith('"')) return /^[^'{[&*!|>%@`#]/.test(line) ? line : undefined;
  try {
    return /** @type {string} */ (JSON.parse(line));
  } catch {
    return undefined;
  }
}
