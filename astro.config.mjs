// @ts-check
import { existsSync, readdirSync } from "node:fs";
import starlight from "@astrojs/starlight";
import { defineConfig } from "astro/config";
import { LOCALE_INFO } from "./i18n/locales.ts";
import { normalizeBase, rehypeBasePath } from "./site/lib/base-path.ts";
import { rehypeChapterParts } from "./site/lib/rehype-chapter-parts.ts";
import {
  buildTimeRendering,
  closeMermaidRenderer,
  withoutBrowserFallback,
} from "./site/lib/mermaid-render.ts";

// Where the site is published, from the environment, so one build config serves any host:
// SITE is the origin (canonical URLs, sitemap), BASE_PATH the folder under it ("/" or
// "/learn-agent-harness/" on GitHub Pages). REPO_URL is the repository the "Edit page" links
// open (a fork sets its own); REPO_BRANCH the branch they edit. See README, "Publishing the site".
const site = process.env.SITE || "https://learn-agent-harness.example";
const base = normalizeBase(process.env.BASE_PATH);
const repoUrl = (process.env.REPO_URL || "https://github.com/your-account/learn-agent-harness")
  .trim()
  .replace(/\/+$/, "");
const repoBranch = process.env.REPO_BRANCH || "main";

// The sidebar lists the chapters in order, straight from the folders that hold them, then the
// case study and the appendices.
// (A chapter folder without an English page yet is left out; the tests require every page.)
const hasPage = (/** @type {string} */ name) => existsSync(`./chapters/${name}/en.mdx`);
const chapters = readdirSync("./chapters")
  .filter((name) => /^s\d\d-/.test(name) && hasPage(name))
  .sort();
const hasCaseStudy = hasPage("case-study-hierarchy");
// The appendices and the chapters after the fifteen (chapters/aN-slug/: MCP servers, the whole
// harness, edits that land, …) run like chapters and follow the case study, in a group of their
// own named for what they are: what turns the course's toy into a tool people use every day.
const appendices = readdirSync("./chapters")
  .filter((name) => /^a\d+-/.test(name) && hasPage(name))
  .sort((a, b) => parseInt(a.slice(1)) - parseInt(b.slice(1)));
// Pages for learners and teachers, generated from the chapters (site/docs/<name>.mdx).
const toolPages = ["timeline", "compare", "workshop", "translation-status", "translators"].filter(
  (name) => existsSync(`./site/docs/${name}.mdx`),
);

export default defineConfig({
  srcDir: "./site",
  publicDir: "./site/public",
  // dist/ is the reader's own build (`npm run build`, served by `npm run preview`); the test suite
  // builds elsewhere (OUT_DIR), under its sub-path base, so it never replaces that one.
  outDir: process.env.OUT_DIR || "./dist",
  site,
  base,
  // Diagrams stay separate, cacheable files instead of data: URLs inlined into every page.
  // (The "Open a recording…" page reads a learner's run in a worker with the site's pure
  // libraries: they fold the trace contract's events and import no lesson file, so the browser
  // bundles no Node code.)
  vite: { build: { assetsInlineLimit: 0 } },
  // A chapter page is read in parts, each at its own URL (site/lib/chapter-parts.ts). Links
  // written in the pages ("[s02](/s02-tool-use/)", <LinkCard href="/...">) go under the base.
  markdown: { rehypePlugins: [rehypeChapterParts, rehypeBasePath({ base })] },
  integrations: [
    starlight({
      title: "Learn Agent Harness",
      description: "Build a coding-agent harness one mechanism at a time, in TypeScript.",
      defaultLocale: "root",
      // English at the root (/), every other language under its own key (/ja/, /zh/, /de/).
      locales: Object.fromEntries(
        Object.entries(LOCALE_INFO).map(([key, info]) => [key === "en" ? "root" : key, info]),
      ),
      sidebar: [
        {
          label: "Start",
          translations: { ja: "はじめに", "zh-CN": "开始", de: "Start" },
          items: [{ slug: "index" }],
        },
        {
          label: "Chapters",
          translations: { ja: "章", "zh-CN": "章节", de: "Kapitel" },
          items: chapters.map((slug) => ({ slug })),
        },
        ...(hasCaseStudy
          ? [
              {
                label: "Case study",
                translations: { ja: "ケーススタディ", "zh-CN": "案例研究", de: "Fallstudie" },
                items: [{ slug: "case-study-hierarchy" }],
              },
            ]
          : []),
        ...(appendices.length
          ? [
              {
                label: "From a toy to a tool",
                translations: {
                  ja: "おもちゃから道具へ",
                  "zh-CN": "从玩具到工具",
                  de: "Vom Spielzeug zum Werkzeug",
                },
                items: appendices.map((slug) => ({ slug })),
              },
            ]
          : []),
        ...(toolPages.length
          ? [
              {
                label: "Tools for learners & teachers",
                translations: {
                  ja: "学習者と講師のためのツール",
                  "zh-CN": "学习者与讲师工具",
                  de: "Werkzeuge für Lernende & Lehrende",
                },
                items: toolPages.map((slug) => ({ slug })),
              },
            ]
          : []),
      ],
      // Every page links to its source file: Starlight appends the entry's filePath, which the
      // glob loader (site/content.config.ts) keeps relative to the repository root, e.g.
      // chapters/s01-agent-loop/ja.mdx or site/docs/de/compare.mdx.
      editLink: { baseUrl: `${repoUrl}/edit/${repoBranch}/` },
      components: {
        Banner: "./site/components/overrides/Banner.astro",
        PageTitle: "./site/components/overrides/PageTitle.astro",
      },
      routeMiddleware: "./site/lib/route-middleware.ts",
      customCss: ["./site/styles/custom.css"],
      lastUpdated: false,
      pagination: true,
    }),
    // Mermaid diagrams are drawn at build time in a headless Chromium: close it when done. Such a
    // build leaves mermaid's browser fallback out of the pages' scripts (no page can need it).
    {
      name: "lah-mermaid",
      hooks: {
        "astro:config:setup": ({ updateConfig }) => {
          if (buildTimeRendering()) updateConfig({ vite: { plugins: [withoutBrowserFallback()] } });
        },
        "astro:build:done": () => closeMermaidRenderer(),
        "astro:server:done": () => closeMermaidRenderer(),
      },
    },
  ],
});
