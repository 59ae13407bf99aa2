// The "Open a recording…" page's reader, in a worker so the tab stays responsive however big the
// file: it reads the file in chunks (RecordingReader checks each step against its schema), sends
// the steps in plain words in batches as they are read (the page shows the first ones while the
// rest is read), then what the panels need: the code of each step (from the chapter's
// /recording-data/<id>.json), the state after each step, the context meter, the state machine's
// focus and the sequence diagram. All of it with the same pure libraries the chapter pages are
// built with: they fold the trace's events (chapters/_trace/contract.ts) and import no lesson file.
import { playerSteps, type PlayerStep } from "../../lib/player";
import {
  RecordingError,
  RecordingReader,
  type Recording,
  type RecordingProblem,
} from "../../lib/recording";
import { contextMeter, stateTimeline, type MeterPoint, type Snapshot } from "../../lib/run-state";
import { subjectFocus, type Subject } from "../../lib/machine-focus";
import { spotOf, type CodeSpot, type LessonPlaces } from "../../lib/step-spots";
import { sequenceFromTrace, sequenceLinks, type SequenceWords } from "../../lib/trace-sequence";
import { translator, type Strings } from "../../lib/ui-text";
import { stateStrings } from "../../lib/state-words";
import english from "../../../i18n/ui.en.json" with { type: "json" };
import {
  STEPS_SAY_WHERE,
  TRACE_VERSION,
  type TraceEvent,
  type TraceFile,
} from "../../../chapters/_trace/contract.ts";
import type { PlayerData } from "./side-panels";
import { modelCalls } from "../../lib/model-calls";

/** What the page asks: read this file, in this language; a chapter's data is at `data`, with
 *  `{chapter}` in it. */
export interface ReadRequest {
  file: Blob;
  strings: Strings;
  lang: string;
  data: string;
}

/** What the worker tells the page. */
export type ReadReport =
  | { type: "progress"; bytes: number; steps: number }
  | { type: "steps"; chapter: string; from: number; steps: PlayerStep[]; agents: string[] }
  | {
      type: "done";
      source: Recording["source"];
      header?: Recording["header"];
      truncated?: Recording["truncated"];
      chapter: string;
      agents: string[];
      data: PlayerData;
      meter: MeterPoint[];
      /** The sequence diagram's code, or how many arrows and notes it would have when that is
       *  more than mermaid draws (its maxTextSize). */
      sequence?:
        { code: string; links: { messages: number[]; notes: number[] } } | { tooBig: number };
    }
  | { type: "error"; problem?: RecordingProblem; message?: string };

const post = (report: ReadReport) => self.postMessage(report);
const NO_NOTES = { local: { phases: {}, notes: {} }, english: { phases: {}, notes: {} } };
/** How often the page hears of progress, and gets the steps read so far. */
const BATCH_MS = 60;

interface ChapterData {
  places: LessonPlaces;
  byKind: Record<string, CodeSpot>;
  regions: PlayerData["regions"];
  machine?: { svg?: string; subject?: Subject };
}

self.onmessage = (event: MessageEvent<ReadRequest>) => void read(event.data);

async function read({ file, strings, lang, data }: ReadRequest): Promise<void> {
  const t = translator(strings, lang);
  const reader = new RecordingReader();
  const agents: string[] = [];
  let sent = 0;
  const send = (steps: readonly TraceEvent[], chapter = reader.header?.chapter ?? "") => {
    const batch = steps.slice(sent);
    if (!batch.length) return;
    for (const s of batch) if (!agents.includes(s.agent)) agents.push(s.agent);
    const words = wordsFor(batch, t);
    post({ type: "steps", chapter, from: sent, steps: words, agents: [...agents] });
    sent += batch.length;
  };
  try {
    const stream = file.stream().getReader();
    const decoder = new TextDecoder();
    let bytes = 0;
    let last = performance.now();
    for (;;) {
      const { done, value } = await stream.read();
      if (done) break;
      bytes += value.byteLength;
      reader.push(decoder.decode(value, { stream: true }));
      if (performance.now() - last > BATCH_MS) {
        send(reader.steps);
        post({ type: "progress", bytes, steps: reader.steps.length });
        last = performance.now();
      }
    }
    reader.push(decoder.decode());
    const recording = reader.finish();
    const trace = recording.trace;
    send(trace.steps, trace.chapter);
    // The state panels word their phrases in the page's language, as a chapter's player does.
    const words = {
      en: stateStrings(english),
      [lang.toLowerCase().split("-")[0]]: stateStrings(strings),
    };
    post({ type: "done", ...panels(recording, await chapterData(data, trace.chapter), t, words) });
  } catch (err) {
    if (err instanceof RecordingError) post({ type: "error", problem: err.problem });
    else post({ type: "error", message: err instanceof Error ? err.message : String(err) });
  }
}

/** The steps in plain words. A step whose data the words cannot be made of (a tool input of a
 *  shape no chapter sends) is shown by its kind and its raw JSON, and the rest of the run still is. */
function wordsFor(batch: readonly TraceEvent[], t: ReturnType<typeof translator>): PlayerStep[] {
  const words = (steps: readonly TraceEvent[]) => playerSteps({ steps } as TraceFile, NO_NOTES, t);
  try {
    return words(batch);
  } catch {
    return batch.map(
      (step) =>
        orEmpty(() => words([step]), [])[0] ?? {
          kind: step.kind,
          agent: step.agent,
          title: step.kind,
          raw: JSON.stringify(step, null, 2),
          minor: false,
        },
    );
  }
}

/** A panel the recording's data breaks is left out (its empty value); the steps are still shown. */
function orEmpty<T>(work: () => T, empty: T): T {
  try {
    return work();
  } catch {
    return empty;
  }
}

/** Mermaid refuses a diagram over 50,000 characters (maxTextSize): a long team run has more. */
const MERMAID_MAX = 50_000;
function sequence(
  trace: TraceFile,
  links: { messages: number[]; notes: number[] },
  t: SequenceWords,
) {
  // its own words in the page's language, as on a chapter page
  const code = orEmpty(() => sequenceFromTrace(trace, t), "");
  if (!code) return undefined;
  return code.length <= MERMAID_MAX
    ? { code, links }
    : { tooBig: links.messages.length + links.notes.length };
}

async function chapterData(url: string, chapter: string): Promise<ChapterData | undefined> {
  try {
    const response = await fetch(url.replace("{chapter}", encodeURIComponent(chapter)));
    return response.ok ? ((await response.json()) as ChapterData) : undefined;
  } catch {
    return undefined;
  }
}

function panels(
  recording: Recording,
  chapter: ChapterData | undefined,
  t: SequenceWords,
  words: PlayerData["words"],
) {
  const trace = recording.trace;
  // Only a recording from before steps said where their code is is matched by kind: a later
  // step without an `at` has none on purpose (a learner's own copy, --mine).
  const older = (recording.header?.version ?? TRACE_VERSION) < STEPS_SAY_WHERE;
  const byKind = older ? chapter?.byKind : undefined;
  const spots = trace.steps.map((step) => {
    const spot = chapter && orEmpty(() => spotOf(chapter.places, step, byKind), undefined);
    const key = spot && `${spot.chapter}#${spot.region}`;
    return key && chapter.regions[key] ? ([key, spot.line] as [string, number]) : null;
  });
  // Each distinct snapshot once (stateTimeline shares the object while nothing changes).
  const snapshots: Snapshot[] = [];
  const seen = new Map<Snapshot, number>();
  const state = orEmpty(() => stateTimeline(trace), []).map((snapshot) => {
    let at = seen.get(snapshot);
    if (at === undefined) seen.set(snapshot, (at = snapshots.push(snapshot) - 1));
    return at;
  });
  const subject = chapter?.machine?.subject;
  const machine = subject && chapter?.machine?.svg;
  const focus = machine
    ? orEmpty(() => subjectFocus(subject, trace), []).map((f) => f ?? null)
    : [];
  const links = orEmpty(() => sequenceLinks(trace), { messages: [], notes: [] });
  const story =
    links.messages.length > 0 ||
    (links.notes.length > 0 && trace.agents.length > 1) ||
    trace.steps.some((s) => s.kind === "event" && s.type === "recovery");
  return {
    source: recording.source,
    header: recording.header,
    truncated: recording.truncated,
    chapter: trace.chapter,
    agents: trace.agents,
    data: {
      regions: chapter?.regions ?? {},
      spots,
      snapshots: snapshots as PlayerData["snapshots"],
      state,
      machineSvg: machine || undefined,
      focus,
      words,
      ...orEmpty(() => modelCalls(trace.steps), { calls: [], callOf: [] }),
    },
    meter: orEmpty(() => contextMeter(trace), []),
    sequence: story ? sequence(trace, links, t) : undefined,
  };
}
