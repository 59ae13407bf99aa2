// Everything the site knows about chapters comes from the chapter code itself, at build time.
import type { Scenario, Tool } from "../../chapters/_shared/types.ts";

const modules = import.meta.glob<{ TOOLS: Tool[] }>("/chapters/s*/agent.ts", { eager: true });
const sources = import.meta.glob<string>("/chapters/s*/agent.ts", {
  eager: true,
  query: "?raw",
  import: "default",
});
const scenarios = import.meta.glob<Scenario>("/chapters/s*/scenario.ts", {
  eager: true,
  import: "default",
});

export interface ChapterData {
  /** "s03" */
  id: string;
  number: number;
  /** "s03-todo-write" (folder and page slug) */
  name: string;
  slug: string;
  tools: Tool[];
  source: string;
  lines: number;
  scenario?: Scenario;
}

export const chapters: ChapterData[] = Object.keys(modules)
  .map((file) => {
    const name = file.split("/")[2];
    const [, num, slug] = /^s(\d\d)-(.+)$/.exec(name)!;
    const source = sources[file];
    return {
      id: `s${num}`,
      number: Number(num),
      name,
      slug,
      source,
      tools: modules[file].TOOLS,
      lines: source.trimEnd().split("\n").length,
      scenario: scenarios[file.replace("agent.ts", "scenario.ts")],
    };
  })
  .sort((a, b) => a.number - b.number);

export function chapter(id: string): ChapterData {
  const found = chapters.find((c) => c.id === id || c.name === id);
  if (!found)
    throw new Error(`unknown chapter "${id}" (known: ${chapters.map((c) => c.id).join(", ")})`);
  return found;
}

export function previous(id: string): ChapterData | undefined {
  const index = chapters.indexOf(chapter(id));
  return index > 0 ? chapters[index - 1] : undefined;
}

export { region } from "./regions.ts";
