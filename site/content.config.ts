// The docs collection: chapter pages live beside their code (chapters/<name>/<locale>.mdx),
// the site's own pages in site/docs/. Ids follow Starlight's layout: English at the root.
import { docsSchema } from "@astrojs/starlight/schema";
import { glob } from "astro/loaders";
import { defineCollection, z } from "astro:content";
import { LOCALES } from "../i18n/locales.ts";

const LOCALE_GLOB = `{${LOCALES.join(",")}}`;

function pageId(entry: string): string {
  const chapter = /^chapters\/([^/]+)\/([a-z]+)\.mdx$/.exec(entry);
  if (chapter) return chapter[2] === "en" ? chapter[1] : `${chapter[2]}/${chapter[1]}`;
  // A locale's home page is routed by the id "ja", not "ja/index" (the English one stays "index").
  return entry.replace(/^site\/docs\//, "").replace(/\.mdx$/, "").replace(/^(\w+)\/index$/, "$1");
}

export const collections = {
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
};
