// The player's data at build time: a chapter's step notes in a locale (with their translation
// status) and where the code handled each step. Vite only (import.meta.glob): the Player component
// and the /player/<id>.json endpoint use it; the pure parts are in player.ts and step-spots.ts.
import { parseNotes, type StepNotes } from "../../chapters/_runner/notes.ts";
import type { Locale } from "../../i18n/locales.ts";
import { allChapters, chapter, type ChapterData } from "./chapters";
import { regionsOf } from "./regions";
import { spotOf, spotsByKind, type CodeSpot, type LessonPlaces } from "./step-spots";
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

/** The lesson files of a chapter and of every chapter its code imports, directly or through
 *  another, with their regions: the files a step of its run can say it was taken in. */
export function lessonPlaces(data: ChapterData): LessonPlaces {
  const places: LessonPlaces = {};
  const visit = (c: ChapterData) => {
    if (Object.hasOwn(places, `chapters/${c.name}/agent.ts`)) return;
    for (const f of c.files)
      places[`chapters/${c.name}/${f.file}`] = {
        chapter: c.id,
        file: f.file,
        regions: regionsOf(f.source),
      };
    for (const i of c.imports) {
      const next = allChapters.find((other) => other.id === i.chapter);
      if (next) visit(next);
    }
  };
  visit(data);
  return places;
}

/** For each step of the chapter's recorded run, the code that took it (the step's `at`). */
export function codeSpots(data: ChapterData): (CodeSpot | undefined)[] {
  const trace = traceOf(data.id);
  const places = lessonPlaces(data);
  return trace ? trace.steps.map((step) => spotOf(places, step)) : [];
}

/** A region's lines as they stand in its lesson file (markers left out), and the first one's number. */
export function regionLines(spot: Omit<CodeSpot, "line">): {
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

/** What a learner's recording of a chapter needs of the site to show each step's code: the
 *  lesson files its steps may name (lessonPlaces), the lines of every region in them, and for a
 *  recording older than `at`, where each kind of step was taken in the chapter's run (served as
 *  /recording-data/<id>.json, with the chapter's state machine). */
export function recordingCode(data: ChapterData) {
  const places = lessonPlaces(data);
  const regions: Record<string, ReturnType<typeof regionLines>> = {};
  for (const place of Object.values(places))
    for (const region of place.regions)
      regions[`${place.chapter}#${region.name}`] ??= regionLines({ ...place, region: region.name });
  const byKind = spotsByKind(places, traceOf(data.id)?.steps ?? []);
  return { places, regions, byKind };
}
