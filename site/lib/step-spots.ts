// Which code took a step, as the player shows it: the region of a lesson file and the line in it.
// The step says where (its `at`, recorded with it by the runner: chapters/_runner/code-spots.ts);
// this module only finds the region around that line. A recording made before version 4 has no
// `at`: its steps are looked up by their kind in the chapter's own recorded run (`byKind`), so a
// learner's older recording still shows the code for the steps the chapter's run has. Pure, for
// the build and the "Open a recording…" worker alike.
import type { StepAt, TraceEvent } from "../../chapters/_trace/contract.ts";
import { innermost, type RegionSpan } from "./regions.ts";

/** A place in the code: a region of one of a chapter's lesson files and the line (1-based, in
 *  that file). */
export interface CodeSpot {
  chapter: string;
  file: string;
  region: string;
  line: number;
}

/** A lesson file the player can show, by its path ("chapters/s13-agent-teams/mailbox.ts"): its
 *  chapter's id, its name and its regions. */
export type LessonPlaces = Record<string, { chapter: string; file: string; regions: RegionSpan[] }>;

/** The spot of an `at`: the innermost region of its file around its line, if the file is one of
 *  `places` and the line lies in a region. */
export function spotAt(places: LessonPlaces, at: StepAt | undefined): CodeSpot | undefined {
  const place = at && Object.hasOwn(places, at.file) ? places[at.file] : undefined;
  const region = place && innermost(place.regions, at!.line);
  return (
    region && { chapter: place.chapter, file: place.file, region: region.name, line: at!.line }
  );
}

/** What steps handled by the same code share: every lead response, every bash call. */
export const stepKey = (step: TraceEvent): string =>
  step.kind === "request" ||
  step.kind === "response" ||
  // A failed call is the model call's line too: that is where it failed.
  (step.kind === "event" && step.type === "model_error")
    ? `model:${step.agent === "lead"}`
    : step.kind === "tool_call" || step.kind === "tool_result"
      ? `tool:${step.name}`
      : step.kind === "event"
        ? `event:${step.type}`
        : step.kind === "note"
          ? `note:${step.text}`
          : "user";

/** Where each kind of step was taken in a recorded run, for reading a recording whose steps carry
 *  no `at` (made before version 4): only the kinds that were always taken at one line (every
 *  bash call; not s15's protocol events, a request here and a reply there), so an older
 *  recording's step is shown at its own line or at none, never at another step's. */
export function spotsByKind(
  places: LessonPlaces,
  steps: readonly TraceEvent[],
): Record<string, CodeSpot> {
  const byKind: Record<string, CodeSpot> = {};
  const mixed = new Set<string>();
  for (const step of steps) {
    const spot = spotAt(places, step.at);
    const key = stepKey(step);
    if (!spot || mixed.has(key)) continue;
    const known = byKind[key];
    if (!known) byKind[key] = spot;
    else if (
      known.file !== spot.file ||
      known.line !== spot.line ||
      known.chapter !== spot.chapter
    ) {
      mixed.add(key);
      delete byKind[key];
    }
  }
  return byKind;
}

/** A step's spot: where it says it was taken; for a step of a recording made before steps said
 *  so (pass `byKind` only then), where its kind was taken in the chapter's run. A person's words
 *  are nobody's code, whatever a recording claims. */
export function spotOf(
  places: LessonPlaces,
  step: TraceEvent,
  byKind: Record<string, CodeSpot> = {},
): CodeSpot | undefined {
  if (step.kind === "user") return undefined;
  if (step.at) return spotAt(places, step.at);
  const key = stepKey(step);
  return Object.hasOwn(byKind, key) ? byKind[key] : undefined;
}
