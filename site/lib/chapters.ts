// Everything the site knows about chapters comes from the chapter code itself, at build time:
// the chapters (chapters/sNN-slug/) and the appendices (chapters/aN-slug/), which run the same way.
//
// A chapter builds on one earlier chapter, its base, and "What changed" compares it with that base.
// The rule, in this one place: a chapter's base is the highest-numbered chapter its agent.ts
// imports (s04 imports only s02, so s04 builds on s02 and not on s03; s14 imports s05's
// compactHistory and s13's team, so it builds on s13; a1 builds on s07). Chapters import what
// they reuse rather than copy it, so the latest chapter they import from is the one whose code
// they extend; the ones before it are where borrowed pieces live. s01 imports nothing and has
// no base.
import type { Scenario, Tool } from "../../chapters/_shared/types.ts";
import type { Locale } from "../../i18n/locales.ts";
import { lineChanges, toolChanges, type ToolChanges } from "./changes.ts";
import { exportedDeclarations, importedNames, type ImportedName } from "./imports.ts";
import { codeRefs, region, regionAt, regionsOf, type RegionSpan } from "./regions.ts";
import { traceOf } from "./trace-files.ts";
import { parseMcpToolName } from "../../chapters/a1-mcp-servers/agent.ts";

const modules = import.meta.glob<{ TOOLS: Tool[] }>("/chapters/{s,a}*/agent.ts", { eager: true });
const sources = import.meta.glob<string>("/chapters/{s,a}*/agent.ts", {
  eager: true,
  query: "?raw",
  import: "default",
});
/** The pages, as text: which regions each locale's page embeds (chapters/<name>/<locale>.mdx). */
const pages = import.meta.glob<string>("/chapters/*/*.mdx", {
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
  /** Its base: the highest-numbered chapter its agent.ts imports (the rule at the top of this
   *  file). Undefined for s01, which imports nothing. */
  buildsOn?: string;
  /** What its agent.ts imports from earlier chapters, by chapter in number order. */
  imports: { chapter: string; names: ImportedName[] }[];
  /** Its agent.ts's `// #region`s. */
  regions: RegionSpan[];
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

/** The rule: of the chapters a source imports, the highest-numbered one ("s02", "s10" → "s10"). */
export function baseOf(imported: readonly string[]): string | undefined {
  return [...imported].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))).at(-1);
}

function load(file: string): ChapterData | undefined {
  const name = file.split("/")[2];
  const match = FOLDER.exec(name);
  if (!match) return undefined;
  const [, id, slug] = match;
  const appendix = id.startsWith("a");
  const source = sources[file];
  const imports = [...importedNames(source)].map(([chapter, names]) => ({ chapter, names }));
  const tools = modules[file].TOOLS;
  const trace = traceOf(id);
  const firstRequest = trace?.steps.find((s) => s.kind === "request" && s.agent === "lead");
  const offered = firstRequest?.kind === "request" ? firstRequest.tools : tools.map((t) => t.name);
  const serverTools = (trace?.offered ?? []).flatMap((t): ServerTool[] => {
    const server = parseMcpToolName(t.name)?.server;
    return server ? [{ ...(t as Tool), server }] : [];
  });
  return {
    id,
    number: Number(id.slice(1)),
    name,
    slug,
    kind: appendix ? "appendix" : "chapter",
    appendix,
    buildsOn: baseOf(imports.map((i) => i.chapter)),
    imports,
    regions: regionsOf(source),
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

/** The chapter a chapter builds on (see the rule at the top): what "What changed", the /code/
 *  page's diff and the chapter's excerpts of imported code compare it with. */
export function base(id: string): ChapterData | undefined {
  const data = chapter(id);
  return data.buildsOn ? chapter(data.buildsOn) : undefined;
}

/** The regions a chapter's page embeds with <Excerpt> in a locale (each page shows only its own
 *  chapter's regions; an anchor on each lets other pages link to it, regions.ts `excerptId`). */
export function excerptsOn(id: string, locale: Locale): string[] {
  const data = chapter(id);
  const text = pages[`/chapters/${data.name}/${locale}.mdx`] ?? "";
  return codeRefs(text)
    .filter((ref) => ref.region !== undefined && chapter(ref.chapter).id === data.id)
    .map((ref) => ref.region!);
}

/** A name another chapter imports, with the region of this chapter's agent.ts that declares it. */
export interface ImportedFrom extends ImportedName {
  region?: string;
}

/** What "What changed" shows for a chapter against its base: what it imports (from the base and
 *  from chapters before it), the tools it adds and removes, the whole-file line counts, its loop
 *  and the base's, and its regions whose names the base does not have (new) or has (its own
 *  version of the base's). Undefined for a chapter without a base (s01). */
export interface WhatChanged {
  base: ChapterData;
  imports: { chapter: ChapterData; names: ImportedFrom[] }[];
  tools: ToolChanges;
  /** agent.ts against the base's agent.ts, whole files. */
  lines: { added: number; removed: number };
  /** The `loop` region of each, where it has one. */
  loop: { before?: string; after?: string };
  newRegions: string[];
  ownRegions: string[];
}

// Every locale's page of a chapter asks for the same comparison: it is worked out once.
const changesOf = new Map<string, WhatChanged | undefined>();

export function whatChanged(id: string): WhatChanged | undefined {
  const key = chapter(id).id;
  if (!changesOf.has(key)) changesOf.set(key, compareWithBase(key));
  return changesOf.get(key);
}

function compareWithBase(id: string): WhatChanged | undefined {
  const data = chapter(id);
  const before = base(id);
  if (!before) return undefined;
  const imports = data.imports.map(({ chapter: from, names }) => {
    const source = chapter(from).source;
    const declared = exportedDeclarations(source);
    return {
      chapter: chapter(from),
      names: names.map((n) => {
        const line = declared.get(n.name);
        return { ...n, region: line === undefined ? undefined : regionAt(source, line) };
      }),
    };
  });
  const baseRegions = new Set(before.regions.map((r) => r.name));
  const loopOf = (c: ChapterData) =>
    c.regions.some((r) => r.name === "loop") ? region(c.source, "loop") : undefined;
  const mine = data.regions.map((r) => r.name).filter((n) => n !== "loop" || !baseRegions.has(n));
  return {
    base: before,
    imports,
    // The tools the model sees: an appendix's MCP server tools count (they arrive with the session).
    tools: toolChanges(allTools(before), allTools(data)),
    lines: lineChanges(before.source, data.source),
    loop: { before: loopOf(before), after: loopOf(data) },
    newRegions: mine.filter((n) => !baseRegions.has(n)),
    ownRegions: mine.filter((n) => baseRegions.has(n)),
  };
}

/** The tools the model sees, as Tool objects: TOOLS and the servers' tools (appendix A). */
export function allTools(data: ChapterData): Tool[] {
  return [...data.tools, ...data.serverTools];
}

export { region } from "./regions.ts";
