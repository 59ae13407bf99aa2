// Everything the site knows about chapters comes from the chapter code itself, at build time:
// the chapters (chapters/sNN-slug/) and the appendices (chapters/aN-slug/), which run the same way.
//
// A chapter's code is its lesson files: agent.ts, and any other .ts file in its folder but
// scenario.ts (s13 has mailbox.ts, bookkeeping.ts and extension-points.ts beside agent.ts). The
// site shows them all: excerpts find a region in whichever file has it, <Source> and the /code/
// page show every file, "What changed" counts and diffs them all.
//
// A chapter builds on one earlier chapter, its base, and "What changed" compares it with that base.
// The rule, in this one place: a chapter's base is the highest-numbered chapter its lesson files
// import (s04 imports only s02, so s04 builds on s02 and not on s03; s14 imports s05's
// compactHistory and s13's team, so it builds on s13; a1 builds on s07). Chapters import what
// they reuse rather than copy it, so the latest chapter they import from is the one whose code
// they extend; the ones before it are where borrowed pieces live. s01 imports nothing and has
// no base.
import type { Scenario, Tool } from "../../chapters/_shared/types.ts";
import type { Locale } from "../../i18n/locales.ts";
import { filesLineChanges, toolChanges, type ToolChanges } from "./changes.ts";
import {
  baseOf,
  baseOfImports,
  exportedDeclarations,
  importedNamesOfFiles,
  type ImportedName,
} from "./imports.ts";
import {
  codeRefs,
  findRegion,
  isLessonFile,
  lessonOrder,
  regionAt,
  regionsOf,
  type LessonFile,
  type RegionSpan,
} from "./regions.ts";
import { traceOf } from "./trace-files.ts";
import { parseMcpToolName } from "../../chapters/a1-mcp-servers/agent.ts";

const modules = import.meta.glob<{ TOOLS: Tool[] }>("/chapters/{s,a}*/agent.ts", { eager: true });
/** Every .ts file at the top of a chapter's folder, as text (the lesson files are all but scenario.ts). */
const sources = import.meta.glob<string>("/chapters/{s,a}*/*.ts", {
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
  /** What its lesson files import from earlier chapters, by chapter in number order. */
  imports: { chapter: string; names: ImportedName[] }[];
  /** The `// #region`s of its lesson files, file by file (a name is unique across them). */
  regions: FileRegion[];
  /** The TOOLS its agent.ts exports. */
  tools: Tool[];
  /** Tools that exist only at run time, from its recorded run (site/traces/<id>.json): an MCP
   *  server's, in appendix A. Empty for the fifteen chapters. */
  serverTools: ServerTool[];
  /** The names the model sees in the recorded run's first request, in order (TOOLS, then the
   *  servers' tools); TOOLS' names when there is no recorded run. */
  offered: string[];
  /** Its lesson files, agent.ts first, each with its line count. */
  files: (LessonFile & { lines: number })[];
  /** agent.ts alone (its header comment names the chapter). */
  source: string;
  /** The lines of all its lesson files. */
  lines: number;
  scenario?: Scenario;
}

/** A region and the lesson file it is in. */
export interface FileRegion extends RegionSpan {
  file: string;
}

const lineCount = (source: string) => source.trimEnd().split("\n").length;

/** The lesson files of the chapter in `folder` ("/chapters/s13-agent-teams/"), agent.ts first. */
function lessonFiles(folder: string): (LessonFile & { lines: number })[] {
  const files = Object.entries(sources).flatMap(([path, source]) => {
    const file = path.slice(folder.length);
    return path.startsWith(folder) && isLessonFile(file)
      ? [{ file, source, lines: lineCount(source) }]
      : [];
  });
  return lessonOrder(files);
}

const FOLDER = /^(s\d\d|a\d+)-(.+)$/;

export { baseOf };

function load(file: string): ChapterData | undefined {
  const name = file.split("/")[2];
  const match = FOLDER.exec(name);
  if (!match) return undefined;
  const [, id, slug] = match;
  const appendix = id.startsWith("a");
  const source = sources[file];
  const files = lessonFiles(file.slice(0, -"agent.ts".length));
  const imports = [...importedNamesOfFiles(files.map((f) => f.source))].map(([chapter, names]) => ({
    chapter,
    names,
  }));
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
    buildsOn: baseOfImports(new Map(imports.map((i) => [i.chapter, i.names]))),
    imports,
    regions: files.flatMap((f) => regionsOf(f.source).map((r) => ({ ...r, file: f.file }))),
    tools,
    serverTools,
    offered,
    files,
    source,
    lines: files.reduce((sum, f) => sum + f.lines, 0),
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

/** A region of a chapter, wherever it lives among its lesson files: the file and the code. */
export function excerpt(id: string, name: string): LessonFile & { code: string } {
  return findRegion(chapter(id).files, name);
}

/** A name another chapter imports, with the lesson file and the region that declare it. */
export interface ImportedFrom extends ImportedName {
  /** The file that declares it (the one it is imported from, unless that one re-exports it). */
  declaredIn?: string;
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
  /** Its lesson files against the base's, whole files paired by name (changes.ts filePairs). */
  lines: { added: number; removed: number };
  /** The `loop` region of each, where it has one; and, for a chapter that writes no loop but
   *  imports one, the chapter whose `loop` region declares what it imports (the base, or s02). */
  loop: { before?: string; after?: string; importedFrom?: string };
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
    const source = chapter(from);
    return {
      chapter: source,
      names: names.map((n): ImportedFrom => {
        // Declared in the file it is imported from, or (a re-export) in another of its files.
        const files = [...source.files].sort(
          (a, b) => Number(b.file === n.file) - Number(a.file === n.file),
        );
        for (const f of files) {
          const line = exportedDeclarations(f.source).get(n.name);
          if (line !== undefined)
            return { ...n, declaredIn: f.file, region: regionAt(f.source, line) };
        }
        return n;
      }),
    };
  });
  const baseRegions = new Set(before.regions.map((r) => r.name));
  const loopOf = (c: ChapterData) =>
    c.regions.some((r) => r.name === "loop") ? excerpt(c.id, "loop").code : undefined;
  const mine = data.regions.map((r) => r.name).filter((n) => n !== "loop" || !baseRegions.has(n));
  const after = loopOf(data);
  const importedFrom = after === undefined ? loopImportedFrom(imports, before.id) : undefined;
  return {
    base: before,
    imports,
    // The tools the model sees: an appendix's MCP server tools count (they arrive with the session).
    tools: toolChanges(allTools(before), allTools(data)),
    lines: filesLineChanges(before.files, data.files),
    loop: { before: loopOf(before), after, ...(importedFrom && { importedFrom }) },
    newRegions: mine.filter((n) => !baseRegions.has(n)),
    ownRegions: mine.filter((n) => baseRegions.has(n)),
  };
}

/** For a chapter that writes no loop: whose loop it runs, i.e. a chapter whose `loop` region
 *  declares a name it imports — its base if the base's does, else the newest such (s02, for the
 *  chapters that import s02's loop). Undefined when it imports nothing from a loop region. */
export function loopImportedFrom(
  imports: readonly { chapter: { id: string }; names: readonly { region?: string }[] }[],
  baseId: string,
): string | undefined {
  const owners = imports
    .filter((i) => i.names.some((n) => n.region === "loop"))
    .map((i) => i.chapter.id);
  return owners.includes(baseId) ? baseId : owners.at(-1);
}

/** The tools the model sees, as Tool objects: TOOLS and the servers' tools (appendix A). */
export function allTools(data: ChapterData): Tool[] {
  return [...data.tools, ...data.serverTools];
}

export { region } from "./regions.ts";
