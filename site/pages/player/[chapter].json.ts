// What the player shows beside each step of a chapter's recorded run, fetched once the player is
// near the screen (a chapter page stays light; a page without a player loads none):
// - regions: every region a step points at (step-code.ts), with the file's line numbers;
// - snapshots/state: the state the chapter is about after each step (run-state.ts), each
//   distinct snapshot once and, per step, the index of its snapshot;
// - machineSvg: the chapter's state diagram (s10, s13, s15), drawn here rather than in the page,
//   which it would make ~35 KB heavier (a mermaid drawing carries its styles for both themes).
import type { APIRoute, GetStaticPaths } from "astro";
import { allChapters, chapter } from "../../lib/chapters";
import { codeSpots, regionLines } from "../../lib/player-data";
import { renderMermaid } from "../../lib/mermaid-render";
import { stateTimeline, type Snapshot } from "../../lib/run-state";
import { MACHINES, machineDiagram } from "../../lib/state-machines";
import { traceOf } from "../../lib/trace-files";

export const getStaticPaths: GetStaticPaths = () =>
  allChapters.filter((c) => traceOf(c.id)).map((c) => ({ params: { chapter: c.id } }));

export const GET: APIRoute = async ({ params }) => {
  const data = chapter(params.chapter!);
  const regions: Record<string, ReturnType<typeof regionLines>> = {};
  for (const spot of codeSpots(data)) {
    if (spot) regions[`${spot.chapter}#${spot.region}`] ??= regionLines(spot);
  }
  const snapshots: Snapshot[] = [];
  const state = stateTimeline(traceOf(data.id)!).map((snapshot) => {
    const at = snapshots.indexOf(snapshot);
    return at >= 0 ? at : snapshots.push(snapshot) - 1;
  });
  // The chapter's state machine, drawn at build time (the page draws it itself when it cannot be).
  const machine = MACHINES[data.id];
  const drawing = machine ? await renderMermaid(machineDiagram(machine)) : null;
  const machineSvg = drawing && !("error" in drawing) ? drawing.svg : undefined;
  return new Response(JSON.stringify({ chapter: data.id, regions, snapshots, state, machineSvg }), {
    headers: { "content-type": "application/json" },
  });
};
