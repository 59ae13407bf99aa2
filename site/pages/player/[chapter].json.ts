// The code beside each step of a chapter's recorded run: every region a step points at (see
// step-code.ts), with the file's line numbers. Fetched by the player the first time a reader
// moves through the run, so a chapter page stays light and a page without a player loads none.
import type { APIRoute, GetStaticPaths } from "astro";
import { allChapters, chapter } from "../../lib/chapters";
import { codeSpots, regionLines } from "../../lib/player-data";
import { traceOf } from "../../lib/trace-files";

export const getStaticPaths: GetStaticPaths = () =>
  allChapters.filter((c) => traceOf(c.id)).map((c) => ({ params: { chapter: c.id } }));

export const GET: APIRoute = ({ params }) => {
  const data = chapter(params.chapter!);
  const regions: Record<string, ReturnType<typeof regionLines>> = {};
  for (const spot of codeSpots(data)) {
    if (spot) regions[`${spot.chapter}#${spot.region}`] ??= regionLines(spot);
  }
  return new Response(JSON.stringify({ chapter: data.id, regions }), {
    headers: { "content-type": "application/json" },
  });
};
