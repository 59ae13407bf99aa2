// The site's pure libraries (run-state.ts, player.ts, trace-sequence.ts) read a recorded run with
// small helpers that live in the chapters' lesson files (s10's parseTaskLine, s11's startedJobId,
// a1's parseMcpToolName) and the runner's notes.ts. On the "Open a recording…" page the browser
// runs those same libraries: this Vite plugin lets it, for the client build only. A module of
// chapters/ is declared free of side effects, so only what the page uses of it is bundled (a
// lesson file's Node-only code is dropped with the rest), and what a chapter imports from Node or
// from a server-side package (node:fs, the MCP and Anthropic SDKs) becomes a stub: never called in
// the browser, and a clear error if it ever were.
import { builtinModules } from "node:module";
import type { Plugin } from "vite";

const STUB = "\0lah-browser-stub:";
const inChapters = (id: string) => /[\\/]chapters[\\/]/.test(id) && !/node_modules/.test(id);
const serverOnly = (source: string) =>
  source.startsWith("node:") ||
  builtinModules.includes(source) ||
  /^@(?:modelcontextprotocol|anthropic-ai)\//.test(source);

export function browserSafeChapters(): Plugin {
  return {
    name: "lah-browser-safe-chapters",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (options?.ssr || !importer) return null;
      if (inChapters(importer) && serverOnly(source))
        return { id: STUB + source, moduleSideEffects: false, syntheticNamedExports: true };
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      // A chapter's module, or a package it imports (notes.ts's yaml): kept only if used.
      const keepIfUsed = inChapters(resolved?.id ?? "") || inChapters(importer);
      return resolved && keepIfUsed && !resolved.external
        ? { ...resolved, moduleSideEffects: false }
        : resolved;
    },
    load(id) {
      if (!id.startsWith(STUB)) return null;
      const name = JSON.stringify(id.slice(STUB.length));
      // Whatever a lesson file's top level computes with it (a1's path.join(import.meta.dirname,
      // …)) must not throw as the page loads: every use gives the stub back. A call that matters
      // would show as the stub in the page.
      return `const stub = new Proxy(function stub() {}, {
  get: (_, key) => (key === "__esModule" ? false : key === Symbol.toPrimitive ? () => ${name} : stub),
  apply: () => stub,
  construct: () => stub,
});
export default stub;`;
    },
  };
}
