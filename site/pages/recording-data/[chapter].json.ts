// What the "Open a recording…" page needs of a chapter to show a learner's own run of it, fetched
// once a recording of that chapter is opened (site/components/player/open-recording.ts):
// - places: the lesson files a step of the chapter's run can say it was taken in (its `at`: the
//   chapter's own and those of the chapters its code imports), with their regions, and regions:
//   the lines of every one of those regions;
// - byKind: for a recording made before steps carried their `at` (trace version 4), where each
//   kind of step was taken in the chapter's recorded run (step-spots.ts);
// - machine: the chapter's state diagram (s10, s13, s15), drawn at build time, with its arrows
//   in the order the player lights them.
// Every chapter has one, recorded run or not: a learner may record any chapter.
import type { APIRoute, GetStaticPaths } from "astro";
import { allChapters, chapter } from "../../lib/chapters";
import { recordingCode } from "../../lib/player-data";
import { renderMermaid } from "../../lib/mermaid-render";
import { MACHINES, machineDiagram, machineEdges } from "../../lib/state-machines";

export const getStaticPaths: GetStaticPaths = () =>
  allChapters.map((c) => ({ params: { chapter: c.id } }));

export const GET: APIRoute = async ({ params }) => {
  const data = chapter(params.chapter!);
  const { places, regions, byKind } = recordingCode(data);
  const m = MACHINES[data.id];
  const drawing = m ? await renderMermaid(machineDiagram(m)) : null;
  const machine = m && {
    subject: m.subject,
    tableName: m.tableName,
    edges: machineEdges(m),
    svg: drawing && !("error" in drawing) ? drawing.svg : undefined,
  };
  return new Response(JSON.stringify({ chapter: data.id, places, regions, byKind, machine }), {
    headers: { "content-type": "application/json" },
  });
};
