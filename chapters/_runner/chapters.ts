// Finding chapters on disk: chapters/sNN-slug/ with agent.ts, scenario.ts and <locale>.mdx, and
// appendices, chapters/aN-slug/, which run the same way and have pages of their own on the site.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Recorder } from "./io.ts";
import { playScenario } from "./runtime.ts";
import type { ChapterModule, Scenario } from "../_shared/types.ts";
import { prepareWorkspace } from "./workspace.ts";

import { REPO_ROOT } from "../_shared/paths.ts";

export { REPO_ROOT };
export const CHAPTERS_DIR = path.join(REPO_ROOT, "chapters");
export { LOCALES, type Locale } from "../../i18n/locales.ts";

export interface ChapterInfo {
  /** "s01" */
  id: string;
  number: number;
  /** "agent-loop" */
  slug: string;
  /** Other names it answers to: an appendix's first slug word ("mcp" for a1-mcp-servers). */
  aliases?: string[];
  /** "s01-agent-loop", also the folder name */
  name: string;
  dir: string;
  title: string;
}

export function listChapters(): ChapterInfo[] {
  return readdirSync(CHAPTERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^s\d\d-/.test(d.name))
    .map((d) => {
      const [, num, slug] = /^s(\d\d)-(.+)$/.exec(d.name)!;
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
 *  header ("Appendix A · MCP tool servers" → "MCP tool servers"). */
export function listAppendices(): ChapterInfo[] {
  return readdirSync(CHAPTERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^a\d+-/.test(d.name))
    .map((d) => {
      const [, num, slug] = /^a(\d+)-(.+)$/.exec(d.name)!;
      const dir = path.join(CHAPTERS_DIR, d.name);
      const agent = path.join(dir, "agent.ts");
      const headline = existsSync(agent)
        ? /^\s*\*\s*(\S.*)$/m.exec(readFileSync(agent, "utf8"))?.[1]
        : undefined;
      const title = headline?.replace(/^Appendix \w+\s*·\s*/, "") ?? slug;
      const aliases = [slug.split("-")[0]];
      return { id: `a${num}`, number: Number(num), slug, aliases, name: d.name, dir, title };
    })
    .sort((a, b) => a.number - b.number);
}

/** Everything `npm run chapter` can run: the chapters, then the appendices. */
export function allRunnable(): ChapterInfo[] {
  return [...listChapters(), ...listAppendices()];
}

/** Accepts "s01", "s1", "01", "1", "agent-loop" or "s01-agent-loop"; for an appendix "a1",
 *  "mcp-servers", "a1-mcp-servers" or its alias "mcp". A bare number is always a chapter. */
export function findChapter(query: string, chapters = allRunnable()): ChapterInfo | undefined {
  const q = query.trim().toLowerCase();
  const n = /^s?(\d{1,2})$/.exec(q);
  if (n) return chapters.find((c) => c.id.startsWith("s") && c.number === Number(n[1]));
  return chapters.find(
    (c) => c.id === q || c.name === q || c.slug === q || (c.aliases ?? []).includes(q),
  );
}

export async function loadChapter(
  info: ChapterInfo,
): Promise<{ module: ChapterModule; scenario: Scenario }> {
  const module = (await import(path.join(info.dir, "agent.ts"))) as ChapterModule;
  const scenario = ((await import(path.join(info.dir, "scenario.ts"))) as { default: Scenario })
    .default;
  return { module, scenario };
}

/** Plays a chapter's scenario offline in `workspace`, set up as the CLI sets it up (with the
 *  chapter's workspace template), e.g. for the site's recorded traces and the benchmark. */
export async function playChapter(info: ChapterInfo, workspace: string, io?: Recorder) {
  const { module, scenario } = await loadChapter(info);
  prepareWorkspace(workspace, { template: path.join(info.dir, "workspace") });
  return playScenario(module, scenario, workspace, io);
}

/** The page's `title`, without loading the YAML parser (≈ 0.1 s of a 0.5 s start): our titles are one line, plain or
 *  double-quoted (a JSON-compatible string). Anything else: undefined. */
export function frontmatterTitle(file: string): string | undefined {
  const head = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(file, "utf8"))?.[1] ?? "";
  const line = /^title:[ \t]*(.*)$/m.exec(head)?.[1]?.trim();
  if (!line) return undefined;
  if (!line.startsWith('"')) return /^[^'{[&*!|>%@`#]/.test(line) ? line : undefined;
  try {
    return JSON.parse(line) as string;
  } catch {
    return undefined;
  }
}
