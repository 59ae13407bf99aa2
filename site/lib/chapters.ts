// Everything the site knows about chapters comes from the chapter code itself, at build time:
// the chapters (chapters/sNN-slug/) and the appendices (chapters/aN-slug/), which run the same way.
import type { Scenario, Tool } from "../../chapters/_shared/types.ts";
import { importsOf } from "./timeline.ts";
import { traceOf } from "./trace-files.ts";

const modules = import.meta.glob<{ TOOLS: Tool[] }>("/chapters/{s,a}*/agent.ts", { eager: true });
const sources = import.meta.glob<string>("/chapters/{s,a}*/agent.ts", {
  eager: true,
  query: "?raw",
  import: "default",
});
const scenarios = import.meta.glob<Scenario>("/chapters/{s,a}*/scenario.ts", {
  eager: true,
  import: "default",
});

/** A tool an MCP server offers at run time (appendix A), as the recorded run's first request
 *  offered it to the model: `mcp__<server>__<tool>`. */
export interface ServerTool extends Tool {
  /** The server's name in .mcp.json ("notes"). */
  server: string;
}

export interface ChapterData {
  /** "s03", or "a1" for an appendix */
  id: string;
  number: number;
  /** "s03-todo-write" (folder and page slug) */
  name: string;
  slug: string;
  /** A chapter of the fifteen, or an appendix beside them. */
  kind: "chapter" | "appendix";
  appendix: boolean;
  /** The chapter this one is compared with in "What changed": the one before it for a chapter;
   *  for an appendix, the latest chapter whose agent.ts it imports (a1 builds on s07). */
  buildsOn?: string;
  /** The TOOLS its agent.ts exports. */
  tools: Tool[];
  /** Tools that exist only at run time, from its recorded run (site/traces/<id>.json): an MCP
   *  server's, in appendix A. Empty for the fifteen chapters. */
  serverTools: ServerTool[];
  /** The names the model sees in the recorded run's first request, in order (TOOLS, then the
   *  servers' tools); TOOLS' names when there is no recorded run. */
  offered: string[];
  source: string;
  lines: number;
  scenario?: Scenario;
}

const FOLDER = /^(s\d\d|a\d+)-(.+)$/;

function load(file: string): ChapterData | undefined {
  const name = file.split("/")[2];
  const match = FOLDER.exec(name);
  if (!match) return undefined;
  const [, id, slug] = match;
  const appendix = id.startsWith("a");
  const source = sources[file];
  const tools = modules[file].TOOLS;
  const trace = traceOf(id);
  const firstRequest = trace?.steps.find((s) => s.kind === "request" && s.agent === "lead");
  const offered = firstRequest?.kind === "request" ? firstRequest.tools : tools.map((t) => t.name);
  const serverTools = (trace?.offered ?? []).flatMap((t): ServerTool[] => {
    const server = /^mcp__(.+?)__./.exec(t.name)?.[1];
    return server ? [{ ...(t as Tool), server }] : [];
  });
  return {
    id,
    number: Number(id.slice(1)),
    name,
    slug,
    kind: appendix ? "appendix" : "chapter",
    appendix,
    buildsOn: appendix ? importsOf(source).at(-1) : undefined,
    tools,
    serverTools,
    offered,
    source,
    lines: source.trimEnd().split("\n").length,
    scenario: scenarios[file.replace("agent.ts", "scenario.ts")],
  };
}

const loaded = Object.keys(modules)
  .map(load)
  .filter((c): c is ChapterData => c !== undefined)
  .sort((a, b) => a.number - b.number);

/** The fifteen chapters, in order. */
export const chapters: ChapterData[] = loaded.filter((c) => !c.appendix);
/** The appendices (a1 …), in order. */
export const appendices: ChapterData[] = loaded.filter((c) => c.appendix);
/** Every page with code: the chapters, then the appendices. */
export const allChapters: ChapterData[] = [...chapters, ...appendices];

export function chapter(id: string): ChapterData {
  const found = allChapters.find((c) => c.id === id || c.name === id);
  if (!found)
    throw new Error(`unknown chapter "${id}" (known: ${allChapters.map((c) => c.id).join(", ")})`);
  return found;
}

/** What a chapter is compared with: the chapter before it, or the one an appendix builds on. */
export function previous(id: string): ChapterData | undefined {
  const data = chapter(id);
  if (data.appendix) return data.buildsOn ? chapter(data.buildsOn) : undefined;
  const index = chapters.indexOf(data);
  return index > 0 ? chapters[index - 1] : undefined;
}

/** The tools the model sees, as Tool objects: TOOLS and the servers' tools (appendix A). */
export function allTools(data: ChapterData): Tool[] {
  return [...data.tools, ...data.serverTools];
}

export { region } from "./regions.ts";
