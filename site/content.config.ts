// The docs collection: chapter pages live beside their code (chapters/<name>/<locale>.mdx),
// the site's own pages in site/docs/. Ids follow Starlight's layout: English at the root.
import { docsSchema } from "@astrojs/starlight/schema";
import { glob } from "astro/loaders";
import { defineCollection, z } from "astro:content";

function pageId(entry: string): string {
  const chapter = /^chapters\/([^/]+)\/(en|ja|zh|de)\.mdx$/.exec(entry);
  if (chapter) return chapter[2] === "en" ? chapter[1] : `${chapter[2]}/${chapter[1]}`;
  return entry.replace(/^site\/docs\//, "").replace(/\.mdx$/, "");
}

export const collections = {
  docs: defineCollection({
    loader: glob({
      base: ".",
      pattern: ["chapters/*/{en,ja,zh,de}.mdx", "site/docs/**/*.mdx"],
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
