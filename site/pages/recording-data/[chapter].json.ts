// What the "Open a recording…" page needs of a chapter to show a learner's own run of it, fetched
// once a recording of that chapter is opened (site/components/player/open-recording.ts):
// - index: where the chapter's code handles each kind of step, for any step a run can hold
//   (step-spots.ts: the model calls, every tool the chapters name, every event type, every
//   harness line's fixed text), and regions: the lines of every region it points at;
// - machine: the chapter's state diagram (s10, s13, s15), drawn at build time, with its arrows
//   in the order the player lights them.
// Every chapter has one, recorded run or not: a learner may record any chapter.
import type { APIRoute, GetStaticPaths } from "astro";
import { allChapters, allTools, chapter } from "../../lib/chapters";
import { chapterCodeFinder, regionLines } from "../../lib/player-data";
import { renderMermaid } from "../../lib/mermaid-render";
import { EVENT_TYPES } from "../../lib/recording";
import { MACHINES, machineDiagram, machineEdges } from "../../lib/state-machines";
import type { CodeSpot } from "../../lib/step-spots";
import { traceOf } from "../../lib/trace-files";

export const getStaticPaths: GetStaticPaths = () =>
  allChapters.map((c) => ({ params: { chapter: c.id } }));

/** Every tool name a run may call: the chapters' tables, the tools their code defines by name
 *  (a teammate's, a subagent's), and those the recorded runs called (an MCP server's). */
const toolNames = () => {
  const names = new Set<string>();
  for (const c of allChapters) {
    for (const t of allTools(c)) names.add(t.name);
    for (const f of c.files)
      for (const m of f.source.matchAll(/\bname:\s*["'`]([A-Za-z0-9_-]{1,64})["'`]/g))
        names.add(m[1]);
    for (const s of traceOf(c.id)?.steps ?? []) if (s.kind === "tool_call") names.add(s.name);
  }
  return [...names].sort();
};

export const GET: APIRoute = async ({ params }) => {
  const data = chapter(params.chapter!);
  const index = chapterCodeFinder(data).index({ tools: toolNames(), events: EVENT_TYPES });
  const regions: Record<string, ReturnType<typeof regionLines>> = {};
  const keep = (spot: CodeSpot | null) => {
    if (spot) regions[`${spot.chapter}#${spot.region}`] ??= regionLines(spot);
  };
  Object.values(index.spots).forEach(keep);
  keep(index.tool);
  for (const group of index.notes) for (const n of group) keep(n.spot);
  // Only the tools that have code: a name no chapter handles finds the fallback anyway.
  for (const [key, spot] of Object.entries(index.spots))
    if (key.startsWith("tool:") && JSON.stringify(spot) === JSON.stringify(index.tool))
      delete index.spots[key];
  const m = MACHINES[data.id];
  const drawing = m ? await renderMermaid(machineDiagram(m)) : null;
  const machine = m && {
    subject: m.subject,
    tableName: m.tableName,
    edges: machineEdges(m),
    svg: drawing && !("error" in drawing) ? drawing.svg : undefined,
  };
  return new Response(JSON.stringify({ chapter: data.id, index, regions, machine }), {
    headers: { "content-type": "application/json" },
  });
};
