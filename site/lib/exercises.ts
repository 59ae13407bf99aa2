// A chapter's exercises as its page shows them: task, checks and hints in the page's language,
// from the same definitions the checker runs (chapters/_exercises/) and the same words.
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { taskOf, word } from "../../chapters/_exercises/words.ts";
import { findChapter } from "../../chapters/_runner/discovery.js";
import type { Locale } from "../../i18n/locales.ts";

export interface ExerciseView {
  id: string;
  kind: "rebuild" | "extend";
  task: string;
  checks: string[];
  hints: string[];
}

export function exercisesOf(chapterId: string, locale: Locale): ExerciseView[] {
  const info = findChapter(chapterId);
  if (!info) return [];
  return EXERCISES.filter((e) => chapterOf(e.id) === info.id).map((e) => {
    const task = taskOf(info, locale, e.id);
    return {
      id: e.id,
      kind: e.kind,
      task: task?.task ?? e.id,
      checks: e.checks.map((c) => word(info, locale, "checks", c.id) ?? c.id),
      hints: task?.hints ?? [],
    };
  });
}
