// Which code handled a step, looked up in a table made at build time: the browser's half of
// step-code.ts. A learner's own recording (the "Open a recording…" page) can hold any step, so the
// page fetches, per chapter, the spot of every kind of step the chapter's code can handle (the
// model calls, each tool, each event type, each harness line's fixed text) from
// /recording-data/<id>.json, and finds a step's spot here, with the same keys step-code.ts looks
// them up by. Pure, and free of the TypeScript compiler step-code.ts reads imports with.
import type { TraceEvent } from "../../chapters/_trace/contract.ts";

/** A place in the code: a region of one of a chapter's lesson files and the line (1-based, in
 *  that file). */
export interface CodeSpot {
  chapter: string;
  file: string;
  region: string;
  line: number;
}

/** A `note(` call whose opening text is fixed, and where it is. */
export interface NoteSpot {
  fixed: string;
  spot: CodeSpot;
}

/** What a chapter's code handles, spot by spot: `spots` by stepKey, `tool` for a tool no table
 *  names (an MCP server's, made at run time), `notes` per chapter in search order. */
export interface CodeIndex {
  spots: Record<string, CodeSpot | null>;
  tool: CodeSpot | null;
  notes: NoteSpot[][];
}

/** The key steps handled by the same code share: every lead response, every bash call. */
export const stepKey = (step: TraceEvent): string =>
  step.kind === "request" ||
  step.kind === "response" ||
  // A failed call is the model call's line too: that is where it failed.
  (step.kind === "event" && step.type === "model_error")
    ? `model:${step.agent === "lead"}`
    : step.kind === "tool_call" || step.kind === "tool_result"
      ? `tool:${step.name}`
      : step.kind === "event"
        ? `event:${step.type}`
        : step.kind === "note"
          ? `note:${step.text}`
          : "user";

/** The note( a harness line came from: the longest fixed text it starts with, in the first
 *  chapter (in search order) that has one. */
export function noteSpot(groups: NoteSpot[][], text: string): CodeSpot | undefined {
  for (const group of groups) {
    let best: NoteSpot | undefined;
    for (const entry of group)
      if (text.startsWith(entry.fixed) && (!best || entry.fixed.length > best.fixed.length))
        best = entry;
    if (best) return best.spot;
  }
  return undefined;
}

/** A step's spot, from a chapter's table. */
export function spotFromIndex(index: CodeIndex, step: TraceEvent): CodeSpot | undefined {
  if (step.kind === "note") return noteSpot(index.notes, step.text);
  const key = stepKey(step);
  if (key in index.spots) return index.spots[key] ?? undefined;
  if (step.kind === "tool_call" || step.kind === "tool_result") return index.tool ?? undefined;
  return undefined;
}
