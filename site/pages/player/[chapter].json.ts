// What the player shows beside each step of a chapter's recorded run, fetched once the player is
// near the screen (a chapter page stays light; a page without a player loads none):
// - regions and spots: every region a step points at (its `at`: step-spots.ts), with the file's line
//   numbers, and per step the region and line that handled it;
// - snapshots/state: the state the chapter is about after each step (run-state.ts), each
//   distinct snapshot once and, per step, the index of its snapshot;
// - machineSvg and focus: the chapter's state diagram (s10, s13, s15), drawn here rather than in
//   the page, which it would make ~35 KB heavier (a mermaid drawing carries its styles for both
//   themes), and per step the subject it moved (state-machines.ts);
// - calls and callOf: each model call as the recording holds it (model-calls.ts), for the
//   inspector, and per step the call it belongs to;
// - open: the "Open a recording…" link's label in each locale: the player adds the link once its
//   data is here, so a chapter page carries no byte of it (ja s13 is at its 400 KB budget);
// - words: the state panels' words (`state.value.*`) in each locale: the snapshots hold data and
//   phrases, worded in the page's language when shown (state-words.ts), so one file serves every
//   locale and the page carries none of them.
import type { APIRoute, GetStaticPaths } from "astro";
import { LOCALES } from "../../../i18n/locales.ts";
import de from "../../../i18n/ui.de.json";
import en from "../../../i18n/ui.en.json";
import ja from "../../../i18n/ui.ja.json";
import zh from "../../../i18n/ui.zh.json";
import { allChapters, chapter } from "../../lib/chapters";
import { modelCalls } from "../../lib/model-calls";
import { codeSpots, regionLines } from "../../lib/player-data";
import { renderMermaid } from "../../lib/mermaid-render";
import { stateTimeline, type Snapshot } from "../../lib/run-state";
import { stringsFor } from "../../lib/state-words";
import { MACHINES, machineDiagram, machineFocus } from "../../lib/state-machines";
import { traceOf } from "../../lib/trace-files";

export const getStaticPaths: GetStaticPaths = () =>
  allChapters.filter((c) => traceOf(c.id)).map((c) => ({ params: { chapter: c.id } }));

export const GET: APIRoute = async ({ params }) => {
  const data = chapter(params.chapter!);
  const regions: Record<string, ReturnType<typeof regionLines>> = {};
  // Per step: the region (its key in `regions`) and the line that handled it.
  const spots = codeSpots(data).map((spot) => {
    if (!spot) return null;
    const key = `${spot.chapter}#${spot.region}`;
    regions[key] ??= regionLines(spot);
    return [key, spot.line] as const;
  });
  const snapshots: Snapshot[] = [];
  const state = stateTimeline(traceOf(data.id)!).map((snapshot) => {
    const at = snapshots.indexOf(snapshot);
    return at >= 0 ? at : snapshots.push(snapshot) - 1;
  });
  // The chapter's state machine, drawn at build time (the page draws it itself when it cannot be).
  const machine = MACHINES[data.id];
  const drawing = machine ? await renderMermaid(machineDiagram(machine)) : null;
  const machineSvg = drawing && !("error" in drawing) ? drawing.svg : undefined;
  const focus = machine ? machineFocus(data.id, traceOf(data.id)!).map((f) => f ?? null) : [];
  const ui = { en, ja, zh, de };
  const open = Object.fromEntries(LOCALES.map((l) => [l, ui[l]["player.open"]]));
  // Only the words this run's panels use (s01 has none; s13 about twenty).
  const cells = snapshots.flatMap((s) => Object.values(s).flat(2));
  const words = Object.fromEntries(LOCALES.map((l) => [l, stringsFor(cells, ui[l])]));
  const { calls, callOf } = modelCalls(traceOf(data.id)!.steps);
  const body = {
    chapter: data.id,
    regions,
    spots,
    snapshots,
    state,
    machineSvg,
    focus,
    calls,
    callOf,
    open,
    words,
  };
  return new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json" },
  });
};
