// Chapter titles as the reader's language has them: the page's frontmatter title (falling back
// to the English page, then to the title line of agent.ts). Astro only (reads the collection).
import { getEntry } from "astro:content";
import type { ChapterData } from "./chapters";
import { localePrefix, type Locale } from "./i18n";
import { headlineOf } from "./timeline";

export interface ChapterTitle {
  /** "s03 · Planning with todo_write", "Appendix A · MCP tool servers" */
  title: string;
  /** "Planning with todo_write" */
  mechanism: string;
  description?: string;
  /** Link to the chapter page in this locale (Starlight serves the English text there with a
   *  notice when the page is not translated yet). */
  href: string;
}

export async function chapterTitle(data: ChapterData, locale: Locale): Promise<ChapterTitle> {
  const translated = locale === "en" ? undefined : await getEntry("docs", `${locale}/${data.name}`);
  const entry = translated ?? (await getEntry("docs", data.name));
  // "s03 · Planning with todo_write" → "Planning with todo_write"; an appendix's title starts with
  // the word for appendix in its language ("Appendix A · ", "付録 A · ", "Anhang A · ").
  const number = data.appendix ? /^[^·]+·\s*/ : /^s\d\d\s*·\s*/;
  const mechanism = entry?.data.title.replace(number, "") ?? headlineOf(data.source) ?? data.slug;
  return {
    title: entry?.data.title ?? `${data.id} · ${mechanism}`,
    mechanism,
    description: entry?.data.description,
    href: `${localePrefix(locale)}/${data.name}/`,
  };
}

export function chapterTitles(list: ChapterData[], locale: Locale): Promise<ChapterTitle[]> {
  return Promise.all(list.map((c) => chapterTitle(c, locale)));
}
