// Starlight route middleware.
//
// A splash page's hero actions ("Start with s01") are links written in frontmatter, which
// Starlight renders as they are; under a base path they go under it too.
//
// A chapter in parts (site/lib/chapter-parts.ts): on each part's page the table of contents lists
// only that part's sections, the sidebar opens the chapter into its parts (only the chapter being
// read: every page carries the sidebar, so it stays one line per chapter elsewhere), previous and
// next walk through the parts before moving to the next chapter, and the page title gets the tabs
// (locals.lahParts, read by overrides/PageTitle.astro).
import { defineRouteMiddleware, type StarlightRouteData } from "@astrojs/starlight/route-data";
import type { CollectionEntry } from "astro:content";
import { withBase } from "./base-path";
import { type Part, partOfPath, partPath, partsOf, sectionParts } from "./chapter-parts";

type SidebarEntry = StarlightRouteData["sidebar"][number];
type SidebarLink = Extract<SidebarEntry, { type: "link" }>;

/** What the part tabs show: the chapter's title and its parts, the current one marked. */
export interface ChapterParts {
  title: string;
  parts: { part: Part; label: string; href: string; current: boolean }[];
}

interface Locals {
  lahPart?: Part;
  lahChapter?: CollectionEntry<"docs">;
  lahParts?: ChapterParts;
  lahRouteIsReady?: () => void;
  t: (key: string) => string;
}

const link = (label: string, href: string, isCurrent = false): SidebarLink => ({
  type: "link",
  label,
  href,
  isCurrent,
  badge: undefined,
  attrs: {},
});

const flatten = (entries: SidebarEntry[]): SidebarLink[] =>
  entries.flatMap((e) => (e.type === "link" ? [e] : flatten(e.entries)));

/** The sidebar with the chapter's link opened into its parts. */
const openChapter = (entries: SidebarEntry[], href: string, group: SidebarEntry): SidebarEntry[] =>
  entries.map((e) =>
    e.type === "link"
      ? e.href === href
        ? group
        : e
      : { ...e, entries: openChapter(e.entries, href, group) },
  );

function chapterInParts(route: StarlightRouteData, locals: Locals, pathname: string) {
  const part = locals.lahPart ?? "learn";
  const chapter = locals.lahChapter ?? route.entry;
  const sections = sectionParts(chapter.body ?? "");
  if (!sections) return;
  const { chapterPath } = partOfPath(pathname);
  const title = chapter.data.title;
  const label = (p: Part) => locals.t(`part.${p}`);
  const parts = partsOf(chapter.body ?? "").map((p) => ({
    part: p,
    label: label(p),
    href: chapterPath + partPath(p),
    current: p === part,
  }));
  locals.lahParts = { title, parts };

  // The table of contents: the page's title, then the sections of this part (its level-2
  // headings in order, each with its subsections). Run it has none: its two sections are a
  // screen apart, and the player takes the room (site/components/player/stage.css).
  if (part === "run") route.toc = undefined;
  else if (route.toc) {
    const [top, ...sectionItems] = route.toc.items;
    route.toc = {
      ...route.toc,
      items: [top, ...sectionItems.filter((_, i) => sections[i] === part)],
    };
  }

  // Previous and next: the chapter's parts in order, then the pages around the chapter.
  const links = flatten(route.sidebar);
  const at = links.findIndex((l) => l.href === chapterPath);
  const index = parts.findIndex((p) => p.current);
  const neighbour = (p: (typeof parts)[number] | undefined) =>
    p && link(p.part === "learn" ? title : `${title} · ${p.label}`, p.href);
  route.pagination = {
    prev: neighbour(parts[index - 1]) ?? (at > 0 ? links[at - 1] : undefined),
    next: neighbour(parts[index + 1]) ?? (at >= 0 ? links[at + 1] : undefined),
  };

  // The sidebar: this chapter's entry becomes its parts.
  const own = links[at];
  if (own) {
    const group: SidebarEntry = {
      type: "group",
      label: own.label,
      collapsed: false,
      badge: own.badge,
      entries: parts.map((p) => link(p.label, p.href, p.current)),
    };
    route.sidebar = openChapter(route.sidebar, chapterPath, group);
  }

  // A part's page is the chapter's file (its translation notices read it; StarlightPage guessed
  // a file from the URL). Its edit link is the page's own (site/pages/[...part].astro).
  if (locals.lahChapter) route.entry = { ...route.entry, filePath: chapter.filePath! };
}

export const onRequest = defineRouteMiddleware((context) => {
  const route = context.locals.starlightRoute;
  const locals = context.locals as unknown as Locals;
  try {
    chapterInParts(route, locals, context.url.pathname);
  } finally {
    locals.lahRouteIsReady?.(); // a part's body may render now (PartBody.astro)
  }
  const hero = route.entry.data.hero;
  if (!hero?.actions?.length) return;
  const base = import.meta.env.BASE_URL;
  const actions = hero.actions.map((action) => ({ ...action, link: withBase(action.link, base) }));
  route.entry = { ...route.entry, data: { ...route.entry.data, hero: { ...hero, actions } } };
});
