// A rehype plugin for chapter pages in parts (site/lib/chapter-parts.ts): it wraps each level-2
// section in <LahChapterPart part="..."> (site/components/chapter-part.ts), which renders its
// content only on that part's page, and
// points an in-page link (`[the player](#try-it)`) whose target now lives in another part at that
// part's page (`run/#try-it` from Learn, `../#the-mechanism` from Code).
//
// It runs on the page's hast, after the Markdown became elements and before Astro names the
// headings, so it names them first with Astro's own rehypeHeadingIds (Astro keeps ids it finds).
import { rehypeHeadingIds } from "@astrojs/markdown-remark";
import path from "node:path";
import { type Part, partPath, sectionParts } from "./chapter-parts.ts";

interface Node {
  type: string;
  tagName?: string;
  name?: string | null;
  value?: string;
  properties?: Record<string, unknown>;
  attributes?: { type: string; name?: string; value?: unknown }[];
  children?: Node[];
  data?: Record<string, unknown>;
}
interface File {
  path?: string;
  history: string[];
  value: unknown;
  data: Record<string, unknown>;
}

/** chapters/<name>/<locale>.mdx: the pages that can be in parts. */
const CHAPTER_PAGE = /[\\/]chapters[\\/][^\\/]+[\\/][a-z]{2}\.mdx$/;
const COMPONENT = path.resolve(import.meta.dirname, "../components/chapter-part.ts");
const TAG = "LahChapterPart";

/** `import LahChapterPart from "…/chapter-part.ts"`, as the MDX compiler wants it (an ESTree). */
function importNode(from: string): Node {
  return {
    type: "mdxjsEsm",
    value: "",
    data: {
      estree: {
        type: "Program",
        sourceType: "module",
        body: [
          {
            type: "ImportDeclaration",
            specifiers: [
              { type: "ImportDefaultSpecifier", local: { type: "Identifier", name: TAG } },
            ],
            source: { type: "Literal", value: from, raw: JSON.stringify(from) },
          },
        ],
      },
    },
  };
}

/** `props.lahPart`: the part the page renders, as the page passes it to its Content. */
const SHOWN = {
  type: "mdxJsxAttributeValueExpression",
  value: "props.lahPart",
  data: {
    estree: {
      type: "Program",
      sourceType: "module",
      body: [
        {
          type: "ExpressionStatement",
          expression: {
            type: "MemberExpression",
            object: { type: "Identifier", name: "props" },
            property: { type: "Identifier", name: "lahPart" },
            computed: false,
            optional: false,
          },
        },
      ],
    },
  },
};

/** `<LahChapterPart part="run" shown={props.lahPart} server:root>`: `server:root` has Astro
 *  call the function with its children unrendered (see chapter-part.ts). */
const wrapper = (part: Part, children: Node[]): Node => ({
  type: "mdxJsxFlowElement",
  name: TAG,
  attributes: [
    { type: "mdxJsxAttribute", name: "part", value: part },
    { type: "mdxJsxAttribute", name: "shown", value: structuredClone(SHOWN) },
    { type: "mdxJsxAttribute", name: "server:root", value: null },
  ],
  children,
});

/** How to reach `target`'s page from `from`'s: both are a chapter's part pages, siblings under
 *  the chapter's URL ("" is the chapter URL itself). */
function relative(from: Part, target: Part): string {
  const up = from === "learn" ? "" : "../";
  return up + partPath(target) || "./";
}

/** Every id given to an element under `node` (headings, and components' anchors in the Markdown). */
function collectIds(node: Node, into: Set<string>) {
  const id = node.properties?.id;
  if (typeof id === "string") into.add(id);
  for (const child of node.children ?? []) collectIds(child, into);
}

function rewriteLinks(node: Node, own: Part, partOfId: Map<string, Part>) {
  const href = node.type === "element" && node.tagName === "a" ? node.properties?.href : undefined;
  if (typeof href === "string" && href.startsWith("#")) {
    const target = partOfId.get(decodeURIComponent(href.slice(1)));
    if (target && target !== own) node.properties!.href = relative(own, target) + href;
  }
  for (const child of node.children ?? []) rewriteLinks(child, own, partOfId);
}

/** A level-2 heading, or the wrapper Starlight's heading links put around one. */
const isSectionHeading = (node: Node) =>
  node.type === "element" &&
  (node.tagName === "h2" ||
    (node.tagName === "div" && (node.children ?? []).some((c) => c.tagName === "h2")));

export function rehypeChapterParts() {
  const nameHeadings = rehypeHeadingIds() as unknown as (tree: Node, file: File) => void;
  // The tree and file are hast's and vfile's; this plugin reads only what Node and File name.
  return (root: unknown, vfile: unknown) => {
    const [tree, file] = [root as Node, vfile as File];
    const source = file.history[0] ?? file.path ?? "";
    if (!CHAPTER_PAGE.test(source)) return;
    const parts = sectionParts(String(file.value));
    if (!parts) return;
    nameHeadings(tree, file);

    // The page's top level: its imports stay there; the text before the first heading is Learn's.
    const children = tree.children ?? [];
    const sections: { part: Part; nodes: Node[] }[] = [{ part: "learn", nodes: [] }];
    const esm: Node[] = [];
    let index = -1;
    for (const node of children) {
      if (node.type === "mdxjsEsm") {
        esm.push(node);
        continue;
      }
      if (isSectionHeading(node)) {
        index += 1;
        const part = parts[index];
        if (part === undefined) break;
        if (part !== sections.at(-1)!.part) sections.push({ part, nodes: [] });
      }
      sections.at(-1)!.nodes.push(node);
    }
    if (index + 1 !== parts.length)
      throw new Error(
        `${source}: the page has ${index + 1} level-2 headings in its Markdown and ${parts.length} in its source; ` +
          "site/lib/chapter-parts.ts cannot tell which part each belongs to.",
      );

    const partOfId = new Map<string, Part>();
    for (const section of sections) {
      const ids = new Set<string>();
      for (const node of section.nodes) collectIds(node, ids);
      for (const id of ids) partOfId.set(id, section.part);
    }
    for (const section of sections)
      for (const node of section.nodes) rewriteLinks(node, section.part, partOfId);

    let from = path.relative(path.dirname(source), COMPONENT).split(path.sep).join("/");
    if (!from.startsWith(".")) from = `./${from}`;
    tree.children = [
      importNode(from),
      ...esm,
      ...sections.filter((s) => s.nodes.length).map((s) => wrapper(s.part, s.nodes)),
    ];
  };
}
