// A chapter's exercises as its page shows them: task, checks and hints in the page's language,
// from the same definitions the checker runs (chapters/_exercises/) and the same words.
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { taskOf, word } from "../../chapters/_exercises/words.ts";
import path from "node:path";
import type { ChapterInfo } from "../../chapters/_runner/discovery.js";
import { chapter } from "./chapters";
import type { Locale } from "../../i18n/locales.ts";

export interface ExerciseView {
  id: string;
  kind: "rebuild" | "extend";
  task: string;
  checks: string[];
  hints: string[];
}

export function exercisesOf(chapterId: string, locale: Locale): ExerciseView[] {
  // The chapter's folder from the site's own chapter data: the build runs at the repository's root
  // (discovery.js finds folders from its own location, which a built bundle no longer has).
  const data = chapter(chapterId);
  const info = {
    id: data.id,
    slug: data.slug,
    dir: path.resolve("chapters", data.name),
  } as ChapterInfo;
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
