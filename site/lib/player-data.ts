// The player's data at build time: a chapter's step notes in a locale (with their translation
// status) and where the code handled each step. Vite only (import.meta.glob): the Player component
// and the /player/<id>.json endpoint use it; the pure parts are in player.ts and step-code.ts.
import { parseNotes, type StepNotes } from "../../chapters/_runner/notes.ts";
import type { Locale } from "../../i18n/locales.ts";
import { allChapters, chapter, type ChapterData } from "./chapters";
import { regionsOf } from "./regions";
import { codeFinder, type CodeSpot } from "./step-code";
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

/** Where a chapter's steps are handled: its lesson files, then the chapters they import. */
export function chapterCodeFinder(data: ChapterData) {
  const filesOf = (c: ChapterData) => c.files.map((f) => ({ id: c.id, ...f }));
  const sourceOf = (id: string) => {
    const found = allChapters.find((c) => c.id === id);
    return found && filesOf(found);
  };
  return codeFinder(filesOf(data), sourceOf);
}

/** For each step of the chapter's recorded run, the code that handled it. */
export function codeSpots(data: ChapterData): (CodeSpot | undefined)[] {
  const trace = traceOf(data.id);
  return trace ? trace.steps.map(chapterCodeFinder(data)) : [];
}

/** A region's lines as they stand in its lesson file (markers left out), and the first one's number. */
export function regionLines(spot: CodeSpot): {
  chapter: string;
  file: string;
  region: string;
  start: number;
  lines: string[];
} {
  const data = chapter(spot.chapter);
  const source = data.files.find((f) => f.file === spot.file)!.source;
  const region = regionsOf(source).find((r) => r.name === spot.region)!;
  const lines = source.split("\n").slice(region.start, region.end - 1);
  return {
    chapter: data.id,
    file: `chapters/${data.name}/${spot.file}`,
    region: spot.region,
    start: region.start + 1,
    lines,
  };
}
