// The docs collection: chapter pages live beside their code (chapters/<name>/<locale>.mdx),
// the site's own pages in site/docs/. Ids follow Starlight's layout: English at the root.
// The i18n collection: every UI string of the site, Starlight's (search) and its own components'.
// The workshops collection: each chapter's workshop kit (chapters/<name>/workshop.yaml), id
// the chapter folder, checked by the schema in site/lib/workshop.ts (the tests use it too).
import { readFileSync } from "node:fs";
import { docsSchema, i18nSchema } from "@astrojs/starlight/schema";
import { glob } from "astro/loaders";
import { defineCollection, z } from "astro:content";
import { LOCALE_INFO, LOCALES } from "../i18n/locales.ts";
import english from "../i18n/ui.en.json";
import { workshopSchema } from "./lib/workshop.ts";

const LOCALE_GLOB = `{${LOCALES.join(",")}}`;

function pageId(entry: string): string {
  const chapter = /^chapters\/([^/]+)\/([a-z]+)\.mdx$/.exec(entry);
  if (chapter) return chapter[2] === "en" ? chapter[1] : `${chapter[2]}/${chapter[1]}`;
  // A locale's home page is routed by the id "ja", not "ja/index" (the English one stays "index").
  return entry
    .replace(/^site\/docs\//, "")
    .replace(/\.mdx$/, "")
    .replace(/^(\w+)\/index$/, "$1");
}

/** The UI strings, from i18n/ui.<locale>.json, for Starlight's translator: components read them
 *  with Astro.locals.t (site/lib/i18n.ts). They include the search dialog's (`pagefind.*`), which
 *  Starlight hands to Pagefind UI; without them Pagefind UI speaks English on every page (its own
 *  guess from <html lang> never runs in @pagefind/default-ui 1.5). Entries are keyed by the
 *  locale's language tag (en, ja, zh-CN, de), as Starlight looks them up. Placeholders are
 *  i18next's, `{{name}}`. */
const uiStrings = {
  name: "lah-ui-strings",
  load: async ({
    store,
    parseData,
    watcher,
    config,
  }: Parameters<ReturnType<typeof glob>["load"]>[0]) => {
    const load = async () => {
      store.clear();
      for (const locale of LOCALES) {
        const file = `i18n/ui.${locale}.json`;
        const data = JSON.parse(readFileSync(new URL(file, config.root), "utf8")) as Record<
          string,
          string
        >;
        const id = LOCALE_INFO[locale].lang;
        store.set({ id, data: await parseData({ id, data }) });
      }
    };
    await load();
    watcher?.on("change", (changed) => {
      if (/i18n[\\/]ui\.\w+\.json$/.test(changed)) void load();
    });
  },
};

export const collections = {
  i18n: defineCollection({
    loader: uiStrings,
    // Starlight's keys plus the site's own, every one of ui.en.json (a translation may lack some:
    // English fills in).
    schema: i18nSchema({
      extend: z
        .object(
          Object.fromEntries(Object.keys(english).map((key) => [key, z.string()])) as Record<
            keyof typeof english,
            z.ZodString
          >,
        )
        .partial(),
    }),
  }),
  docs: defineCollection({
    loader: glob({
      base: ".",
      pattern: [`chapters/*/${LOCALE_GLOB}.mdx`, "site/docs/**/*.mdx"],
      generateId: ({ entry }) => pageId(entry),
    }),
    schema: docsSchema({
      extend: z.object({
        /** In a translation: the hash of the English page it was translated from. */
        sourceHash: z.string().optional(),
      }),
    }),
  }),
  workshops: defineCollection({
    loader: glob({
      base: ".",
      pattern: "chapters/*/workshop.yaml",
      generateId: ({ entry }) => entry.split("/")[1],
    }),
    schema: workshopSchema,
  }),
};
