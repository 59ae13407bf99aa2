// What the player shows beside each step of a chapter's recorded run, fetched once the player is
// near the screen (a chapter page stays light; a page without a player loads none):
// - regions: every region a step points at (step-code.ts), with the file's line numbers;
// - snapshots/state: the state the chapter is about after each step (run-state.ts), each
//   distinct snapshot once and, per step, the index of its snapshot.
import type { APIRoute, GetStaticPaths } from "astro";
import { allChapters, chapter } from "../../lib/chapters";
import { codeSpots, regionLines } from "../../lib/player-data";
import { stateTimeline, type Snapshot } from "../../lib/run-state";
import { traceOf } from "../../lib/trace-files";

export const getStaticPaths: GetStaticPaths = () =>
  allChapters.filter((c) => traceOf(c.id)).map((c) => ({ params: { chapter: c.id } }));

export const GET: APIRoute = ({ params }) => {
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
  return new Response(JSON.stringify({ chapter: data.id, regions, snapshots, state }), {
    headers: { "content-type": "application/json" },
  });
};
