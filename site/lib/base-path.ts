// Where the site lives: its base path ("/" or "/learn-agent-harness/", from BASE_PATH) and links
// under it. Astro and Starlight already put the base in front of the links they make (sidebar,
// pagination, language picker, search, the assets Vite bundles); links written by hand start at
// "/" — in the pages' Markdown and MDX, in a hero's actions, in our components — and go through
// withBase: the rehype plugin below for page content, the route middleware for heroes, and
// localePrefix (site/lib/i18n.ts) for components. Plain TypeScript: astro.config.mjs imports it.

/** "/" or "/sub/path/": a leading and a trailing slash, nothing doubled. */
export function normalizeBase(base: string | undefined): string {
  const trimmed = (base ?? "").trim().replace(/^\/+|\/+$/g, "");
  return trimmed ? `/${trimmed}/` : "/";
}

/** A root-relative link ("/ja/s01-agent-loop/") moved under the base. Anything else — full URLs,
 *  "//host", "#anchors", relative paths, links already under the base — comes back unchanged. */
export function withBase(href: string, base: string): string {
  if (!href.startsWith("/") || href.startsWith("//")) return href;
  const prefix = normalizeBase(base).slice(0, -1);
  if (prefix === "" || href === prefix || href.startsWith(`${prefix}/`)) return href;
  return prefix + href;
}

// The few hast / MDX node shapes the plugin touches (the types packages are not dependencies).
interface Node {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  attributes?: { type: string; name?: string; value?: unknown }[];
  children?: Node[];
}

const LINK_PROPERTIES = ["href", "src"];
/** Props of MDX components that take a link: <LinkCard href>, <LinkButton href>, <img src>... */
const LINK_ATTRIBUTES = new Set(["href", "src", "link"]);

/** A rehype plugin: every root-relative href/src in a page's Markdown and its MDX components'
 *  string props goes under the base. With base "/" it changes nothing. */
export function rehypeBasePath(options: { base: string }) {
  const base = normalizeBase(options.base);
  const visit = (node: Node) => {
    if (node.type === "element" && node.properties) {
      for (const key of LINK_PROPERTIES) {
        const value = node.properties[key];
        if (typeof value === "string") node.properties[key] = withBase(value, base);
      }
    }
    if (node.type === "mdxJsxFlowElement" || node.type === "mdxJsxTextElement") {
      for (const attribute of node.attributes ?? []) {
        if (
          attribute.type === "mdxJsxAttribute" &&
          LINK_ATTRIBUTES.has(attribute.name ?? "") &&
          typeof attribute.value === "string"
        )
          attribute.value = withBase(attribute.value, base);
      }
    }
    for (const child of node.children ?? []) visit(child);
  };
  return () => (tree: Node) => {
    if (base !== "/") visit(tree);
  };
}
