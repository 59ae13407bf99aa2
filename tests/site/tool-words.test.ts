// Tool descriptions in the reader's language (site/lib/tool-words.ts): every description in every
// chapter's TOOLS has its translation in i18n/tools.<locale>.json, no translation is left over
// from a description the code no longer has, and a description without one shows in English,
// marked, whatever its text.
import { fc, test } from "@fast-check/vitest";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { allRunnable } from "../../chapters/_runner/chapters.ts";
import { SEED } from "../../chapters/_exercises/property.ts";
import type { ChapterModule } from "../../chapters/_shared/types.ts";
import { LOCALES } from "../../i18n/locales.ts";
import { describeIn, toolWordsStatus } from "../../site/lib/tool-words.ts";
import { TOOL_WORDS } from "../../site/lib/tool-words-files.ts";

const descriptions = async () => {
  const all = new Set<string>();
  for (const c of allRunnable()) {
    const { TOOLS } = (await import(path.join(c.dir, "agent.ts"))) as ChapterModule;
    for (const tool of TOOLS) if (tool.description) all.add(tool.description);
  }
  return [...all];
};

describe("tool descriptions in every locale", () => {
  it("every chapter's tool descriptions are translated, and no translation is left unused", async () => {
    const status = toolWordsStatus(TOOL_WORDS, await descriptions());
    for (const [locale, s] of Object.entries(status)) {
      expect(s.missing, `i18n/tools.${locale}.json: missing`).toEqual([]);
      expect(s.unused, `i18n/tools.${locale}.json: unused`).toEqual([]);
    }
  });

  it("a translation keeps the description's code words (tool names, fields, paths)", async () => {
    for (const english of await descriptions())
      for (const locale of LOCALES) {
        const { text } = describeIn(TOOL_WORDS, locale, english);
        // snake_case fields, `code` spans and paths are the model's words: never translated
        for (const word of english.match(/`[^`]+`|\b\w+_\w+\b|\.worktrees\/<name>/g) ?? [])
          expect(text, `${locale}: ${english}`).toContain(word);
      }
  });

  const names = fc.constantFrom("constructor", "toString", "__proto__", "hasOwnProperty");
  test.prop([fc.oneof(fc.string({ minLength: 1 }), names), fc.constantFrom(...LOCALES)], {
    seed: SEED,
    numRuns: 100,
  })(
    "a description with no translation shows in English, marked (except in English)",
    (text, locale) => {
      fc.pre(!Object.values(TOOL_WORDS).some((words) => words && Object.hasOwn(words, text)));
      expect(describeIn(TOOL_WORDS, locale, text)).toEqual({ text, english: locale !== "en" });
    },
  );
});
