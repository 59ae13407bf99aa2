// The player's state panels as an English reader sees them: the timeline (site/lib/run-state.ts)
// holds phrases, which site/lib/state-words.ts words from a locale's strings when they are shown.
import english from "../../i18n/ui.en.json" with { type: "json" };
import { stateTimeline } from "../../site/lib/run-state.ts";
import { snapshotText, stateStrings, stateWording } from "../../site/lib/state-words.ts";

const words = stateStrings(english);
export const inEnglish = stateWording(words, words, "en");

/** Each step's panels, every cell as the English text the player shows. */
export const stateTimelineInEnglish = (run: Parameters<typeof stateTimeline>[0]) =>
  stateTimeline(run).map((snapshot) => snapshotText(snapshot, inEnglish));
