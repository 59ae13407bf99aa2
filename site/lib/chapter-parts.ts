// A chapter page in parts. One page per chapter and locale (chapters/<name>/<locale>.mdx) is
// read as several shorter pages, each at its own URL: Learn at the chapter's URL (the problem and
// the mechanism), then Run it (/run/: the scenario and the player), Code (/code/: how the code
// does it), Deep dive (/deep-dive/: the design choices, what changed against the chapter it builds
// on, and the full source) and Exercises (/exercises/), as learn-claude-code splits a lesson into
// Learn, Simulate, Code and Deep dive. (Code and Deep dive were one part until it ran to thirty
// laptop screens on s13: the walk-through reads as an essay; the rest is looked up.)
//
// Which part a section belongs to follows from what it shows, not from its heading (headings are
// translated): a section is a level-2 heading and everything up to the next one, and the chapter
// components it uses place it. The same rule serves the build (site/lib/rehype-chapter-parts.ts
// wraps each section in its part), the routes (site/pages/[...part].astro) and the sidebar and
// table of contents (site/lib/route-middleware.ts), so they always agree.

export const PARTS = ["learn", "run", "code", "deep-dive", "exercises"] as const;
export type Part = (typeof PARTS)[number];

/** The part a section shows, from the components it uses: the player, its commands and the
 *  scenario's sequence diagrams run it; excerpts are code; what changed and the full source are
 *  the deep dive; the exercise checker's list is the exercises. (`SequenceDiagram` stands for a <Mermaid> whose
 *  source is a sequence diagram.) Anything else is the essay. */
export function partOfSection(components: ReadonlySet<string>): Part {
  if (components.has("Exercises")) return "exercises";
  if (["Player", "RunIt", "TraceSequence", "SequenceDiagram"].some((c) => components.has(c)))
    return "run";
  if (["Changes", "Source"].some((c) => components.has(c))) return "deep-dive";
  if (components.has("Excerpt")) return "code";
  return "learn";
}

/** The level-2 sections of an MDX page's source, in order, with the components each uses (the
 *  text before the first heading is not a section). Headings inside fenced code or inside a
 *  component's attributes (a diagram's source) do not count. */
export function sectionsOf(source: string): { heading: string; components: Set<string> }[] {
  const sections: { heading: string; components: Set<string> }[] = [];
  let fence: string | undefined;
  let inAttributes = false; // inside `<Mermaid code={`...`} />` and the like
  for (const line of source.split("\n")) {
    const fenceMark = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length)
        fence = undefined;
      continue;
    }
    if (fenceMark && !inAttributes) {
      fence = fenceMark;
      continue;
    }
    const backticks = (line.match(/(?<!\\)`/g) ?? []).length;
    if (!inAttributes) {
      const heading = /^## +(.+?)\s*$/.exec(line);
      if (heading) sections.push({ heading: heading[1], components: new Set() });
      for (const [, name] of line.matchAll(/<([A-Z]\w*)/g)) sections.at(-1)?.components.add(name);
      // a scenario told as a sequence diagram runs it; a flowchart explains the mechanism
      if (/<Mermaid\s+code=\{`\s*sequenceDiagram/.test(line))
        sections.at(-1)?.components.add("SequenceDiagram");
      // a template literal opened in an attribute and not closed on this line
      if (/=\{`/.test(line) && backticks % 2 === 1) inAttributes = true;
    } else if (backticks % 2 === 1) {
      inAttributes = false;
    }
  }
  return sections;
}

/** The part of each level-2 section, in order, or none when the page is not a chapter in parts
 *  (it has no player: the case study, the site's own pages). */
export function sectionParts(source: string): Part[] | undefined {
  const sections = sectionsOf(source);
  if (!sections.some((s) => s.components.has("Player"))) return undefined;
  const parts = sections.map((s) => partOfSection(s.components));
  // Prose right after the code ("Design choices") discusses that code: it is read with it, as
  // learn-claude-code's "Deep dive" holds its design decisions. Learn stays the short way in:
  // the problem and the mechanism.
  for (let i = 1; i < parts.length; i++)
    if (parts[i] === "learn" && parts[i - 1] === "code") parts[i] = "code";
  // The last of them, when it is prose alone (no component), closes the essay with why the code
  // is as it is ("Design choices"): learn-claude-code's "Deep dive", read with the source.
  for (let i = 0; i < parts.length; i++)
    if (parts[i] === "code" && sections[i].components.size === 0 && parts[i + 1] !== "code")
      parts[i] = "deep-dive";
  return parts;
}

/** The parts a chapter page has, in reading order (Learn always comes first). */
export function partsOf(source: string): Part[] {
  const parts = new Set(sectionParts(source) ?? []);
  return PARTS.filter((part) => part === "learn" || parts.has(part));
}

/** A part's URL relative to the chapter's: "" for Learn, "run/" for Run it. */
export const partPath = (part: Part) => (part === "learn" ? "" : `${part}/`);

/** Which part a URL shows, and the chapter URL it belongs to: "/ja/s13-agent-teams/run/" →
 *  { chapterPath: "/ja/s13-agent-teams/", part: "run" }. */
export function partOfPath(pathname: string): { chapterPath: string; part: Part } {
  const match = /^(.*\/)(run|code|deep-dive|exercises)\/?$/.exec(pathname);
  if (match) return { chapterPath: match[1], part: match[2] as Part };
  return { chapterPath: pathname.endsWith("/") ? pathname : `${pathname}/`, part: "learn" };
}
