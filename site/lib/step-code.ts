// Which code handled a step of a recorded run: the `// #region` of one of the chapter's lesson
// files (agent.ts, or a file beside it such as s13's mailbox.ts; or of a chapter it imports) and
// the line in it. Derived from the source text, never written by hand:
//   a tool call or result   → the line that defines the tool's handler (`bash: (input) =>`),
//                             else the tool's definition (`name: "bash"`)
//   a model request/response → the line that calls the model (`messages.create(`)
//   an event of type T       → the line that records it (`event("T"`)
//   a harness line (◆)       → the `note(` whose fixed text the line starts with
// The chapter's own code (all its lesson files) is searched first, then the chapters it imports,
// newest first, so a step handled by imported code (s02's bash in s13) points at s02, named as such.
import type { TraceEvent } from "../../chapters/_trace/contract.ts";
import { escapeRegExp } from "../../chapters/_runner/text.ts";
import { chapterRank, importsOf } from "./imports.ts";
import { innermost, regionsOf } from "./regions.ts";
import { noteSpot, stepKey, type CodeIndex, type CodeSpot, type NoteSpot } from "./step-spots.ts";

export type { CodeSpot };

/** One lesson file of a chapter: agent.ts unless `file` names another ("mailbox.ts"). */
export interface CodeSource {
  id: string;
  source: string;
  file?: string;
}

/** Finds where steps are handled, for one chapter (one lesson file, or all of them) and the
 *  chapters it imports; `sourceOf` gives a chapter's agent.ts, or its lesson files. */
export function codeFinder(
  chapter: CodeSource | CodeSource[],
  sourceOf: (id: string) => string | CodeSource[] | undefined,
) {
  const filesOf = (id: string): CodeSource[] | undefined => {
    const found = sourceOf(id);
    return typeof found === "string" ? [{ id, source: found }] : found;
  };
  // The chapter first, then what it imports (newest first), then what those import.
  const order: { id: string; files: CodeSource[] }[] = [];
  const visit = (id: string, files: CodeSource[]) => {
    if (order.some((o) => o.id === id)) return;
    order.push({ id, files });
    const imported = [...new Set(files.flatMap((f) => importsOf(f.source)))];
    for (const next of imported.sort((a, b) => chapterRank(b) - chapterRank(a))) {
      const found = filesOf(next);
      if (found !== undefined) visit(next, found);
    }
  };
  const own = Array.isArray(chapter) ? chapter : [chapter];
  visit(own[0].id, own);
  const indexed = order.map((o) => ({
    id: o.id,
    files: o.files.map((f) => ({
      file: f.file ?? "agent.ts",
      source: f.source,
      lines: f.source.split("\n"),
      regions: regionsOf(f.source),
    })),
  }));

  /** The first line that matches and lies in a region, searching in chapter order (a chapter's
   *  files together); `prefer` picks among several such lines (the lead's model call in the
   *  region named "loop"). */
  const find = (
    matches: (lines: string[], i: number) => boolean,
    prefer: (spot: CodeSpot) => boolean = () => true,
  ): CodeSpot | undefined => {
    for (const src of indexed) {
      const spots: CodeSpot[] = [];
      for (const f of src.files)
        for (let i = 0; i < f.lines.length; i++) {
          if (!matches(f.lines, i)) continue;
          const region = innermost(f.regions, i + 1);
          if (region)
            spots.push({ chapter: src.id, file: f.file, region: region.name, line: i + 1 });
        }
      if (spots.length) return spots.find(prefer) ?? spots[0];
    }
    return undefined;
  };
  const line = (pattern: RegExp) => (lines: string[], i: number) => pattern.test(lines[i]);

  // Every note( call whose opening text is fixed, per chapter in search order: a harness line
  // comes from the longest one it starts with (step-spots.ts's noteSpot).
  const notes: NoteSpot[][] = indexed.map((src) =>
    src.files.flatMap((f) =>
      [...f.source.matchAll(/\bnote\(\s*[`"']([^`"'$]{4,})/g)].flatMap((m) => {
        const line = f.source.slice(0, m.index).split("\n").length;
        const region = innermost(f.regions, line);
        return region
          ? [{ fixed: m[1], spot: { chapter: src.id, file: f.file, region: region.name, line } }]
          : [];
      }),
    ),
  );

  // Many steps share an answer (every lead response, every bash call): look each one up once.
  const known = new Map<string, CodeSpot | undefined>();
  const lookup = (step: TraceEvent): CodeSpot | undefined => {
    const key = stepKey(step);
    if (!known.has(key)) known.set(key, spotOf(step));
    return known.get(key);
  };
  /** The table a browser finds any step's spot in (step-spots.ts): the model calls, the tools
   *  named, the event types, and every note's fixed text. */
  const index = (names: { tools: string[]; events: string[] }): CodeIndex => {
    const spots: Record<string, CodeSpot | null> = {};
    const put = (step: TraceEvent) => (spots[stepKey(step)] = lookup(step) ?? null);
    for (const agent of ["lead", "helper"]) put({ kind: "request", agent, messages: 0, tools: [] });
    const call = (name: string): TraceEvent => ({
      kind: "tool_call",
      agent: "",
      id: "",
      name,
      input: {},
    });
    for (const name of names.tools) put(call(name));
    for (const type of names.events)
      put({ kind: "event", agent: "", type, data: {} } as TraceEvent);
    // A tool none of these names: where handlers made at run time go, if anywhere.
    const tool = spotOf(call("\u0000")) ?? null;
    return { spots, tool, notes };
  };
  return Object.assign(lookup, { index });

  function spotOf(step: TraceEvent): CodeSpot | undefined {
    // A failed model call (the runner records it) is the call's own line, which it failed on.
    if (step.kind === "event" && step.type === "model_error")
      return spotOf({ kind: "request", agent: step.agent, messages: 0, tools: [] });
    switch (step.kind) {
      case "request":
      case "response":
        // The lead's calls are made by the loop; a child's or a teammate's by their own loop.
        return find(line(/\bmessages\.create\(/), (spot) =>
          step.agent === "lead" ? spot.region === "loop" : spot.region !== "loop",
        );
      case "tool_call":
      case "tool_result": {
        const name = escapeRegExp(step.name);
        return (
          find(
            line(
              new RegExp(
                `^\\s*(?:async\\s+)?["']?${name}["']?\\s*(?::\\s*(?:async\\s*)?\\(|:\\s*async\\b|\\()`,
              ),
            ),
          ) ??
          find(line(new RegExp(`\\bname:\\s*["'\`]${name}["'\`]`))) ??
          // Handlers made at run time (an MCP server's tools): where they are put in the table.
          find(line(/\bhandlers\[\w+\]\s*=/))
        );
      }
      case "event": {
        // event("T", …), or the type on the next lines of a multi-line call (log("T", …) in s12).
        const quoted = new RegExp(`["'\`]${escapeRegExp(step.type)}["'\`]`);
        return find(
          (lines, i) =>
            quoted.test(lines[i]) &&
            lines.slice(Math.max(0, i - 2), i + 1).some((l) => /\b(?:event|log)\(/.test(l)),
        );
      }
      case "note":
        return noteSpot(notes, step.text);
      default:
        return undefined;
    }
  }
}
