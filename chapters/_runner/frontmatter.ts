// Reading the YAML frontmatter of an MDX page (used by the site and the i18n check). The CLI
// reads only titles, with frontmatterTitle in discovery.js, so it need not load the parser.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";

export function parseFrontmatter(text: string): Record<string, unknown> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  return match ? ((parseYaml(match[1]) as Record<string, unknown>) ?? {}) : {};
}

export function frontmatter(file: string): Record<string, unknown> {
  return parseFrontmatter(readFileSync(file, "utf8"));
}
