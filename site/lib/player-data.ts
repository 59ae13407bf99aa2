// The player's data at build time: a chapter's step notes in a locale (with their translation
// status) and where the code handled each step. Vite only (import.meta.glob): the Player component
// and the /player/<id>.json endpoint use it; the pure parts are in player.ts and step-code.ts.
import { parseNotes, type StepNotes } from "../../chapters/_runner/notes.ts";
import type { Locale } from "../../i18n/locales.ts";
import { allChapters, chapter, type ChapterData } from "./chapters";
import { codeFinder, regionsOf, type CodeSpot } from "./step-code";
import { traceOf } from "./trace-files";
import { notesHash } from "./translation";

const files = import.meta.glob<string>("/chapters/*/notes/*.yaml", {
  eager: true,
  query: "?raw",
  import: "default",
});

const EMPTY: StepNotes = { phases: {}, notes: {} };

/** A chapter's notes in one locale, and whether they are missing or older than the English ones. */
export function chapterNotes(
  data: ChapterData,
  locale: Locale,
): { local: StepNotes; english: StepNotes; status: "fresh" | "stale" | "missing" } {
  const read = (l: Locale) => {
    const file = `/chapters/${data.name}/notes/${l}.yaml`;
    return files[file] === undefined
      ? undefined
      : { text: files[file], notes: parseNotes(files[file], file) };
  };
  const english = read("en");
  if (!english) return { local: EMPTY, english: EMPTY, status: "missing" };
  if (locale === "en") return { local: english.notes, english: english.notes, status: "fresh" };
  const local = read(locale);
  if (!local) return { local: EMPTY, english: english.notes, status: "missing" };
  const fresh = local.notes.sourceHash === notesHash(english.text);
  return { local: local.notes, english: english.notes, status: fresh ? "fresh" : "stale" };
}

/** For each step of the chapter's recorded run, the code that handled it. */
export function codeSpots(data: ChapterData): (CodeSpot | undefined)[] {
  const trace = traceOf(data.id);
  if (!trace) return [];
  const sourceOf = (id: string) => allChapters.find((c) => c.id === id)?.source;
  const spotOf = codeFinder({ id: data.id, source: data.source }, sourceOf);
  return trace.steps.map(spotOf);
}

/** A region's lines as they stand in the file (markers left out), and the first one's number. */
export function regionLines(spot: CodeSpot): {
  chapter: string;
  file: string;
  region: string;
  start: number;
  lines: string[];
} {
  const data = chapter(spot.chapter);
  const region = regionsOf(data.source).find((r) => r.name === spot.region)!;
  const lines = data.source.split("\n").slice(region.start, region.end - 1);
  return {
    chapter: data.id,
    file: `chapters/${data.name}/agent.ts`,
    region: spot.region,
    start: region.start + 1,
    lines,
  };
}
