// The docs collection: chapter pages live beside their code (chapters/<name>/<locale>.mdx),
// the site's own pages in site/docs/. Ids follow Starlight's layout: English at the root.
// The i18n collection: the Starlight UI strings the site translates itself (search).
// The workshops collection: each chapter's workshop kit (chapters/<name>/workshop.yaml), id
// the chapter folder, checked by the schema in site/lib/workshop.ts (the tests use it too).
import { readFileSync } from "node:fs";
import { docsSchema, i18nSchema } from "@astrojs/starlight/schema";
import { glob } from "astro/loaders";
import { defineCollection, z } from "astro:content";
import { LOCALE_INFO, LOCALES } from "../i18n/locales.ts";
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

/** Starlight's own UI strings that the site translates, from i18n/ui.<locale>.json: the search
 *  dialog's (`pagefind.*`). Starlight hands them to Pagefind UI; without them Pagefind UI speaks
 *  English on every page (its own guess from <html lang> never runs in @pagefind/default-ui 1.5).
 *  Entries are keyed by the locale's language tag (en, ja, zh-CN, de), as Starlight looks them up. */
const STARLIGHT_KEY = /^pagefind\./;
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
        const all = JSON.parse(readFileSync(new URL(file, config.root), "utf8")) as Record<
          string,
          string
        >;
        const id = LOCALE_INFO[locale].lang;
        const data = Object.fromEntries(
          Object.entries(all).filter(([key]) => STARLIGHT_KEY.test(key)),
        );
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
  i18n: defineCollection({ loader: uiStrings, schema: i18nSchema() }),
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
