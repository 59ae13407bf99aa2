// @ts-check
// Expressive Code (the site's code blocks) for Markdown code fences and the <Code> component alike.
import { defineEcConfig } from "@astrojs/starlight/expressive-code";
import { pluginLineNumbers } from "@expressive-code/plugin-line-numbers";
import { pluginFramesTexts } from "astro-expressive-code";
import de from "./i18n/ui.de.json" with { type: "json" };
import en from "./i18n/ui.en.json" with { type: "json" };
import ja from "./i18n/ui.ja.json" with { type: "json" };
import zh from "./i18n/ui.zh.json" with { type: "json" };
import { compactTokens, lazyBlocks } from "./site/lib/ec-plugins.mjs";

// The code blocks' own words (the copy button's tooltip, "Copied!") in each locale, from the UI
// strings. Starlight would read them from src/content/i18n/, which this project does not have;
// this file is plain JavaScript, so it names the four files rather than importing i18n/locales.ts.
const UI = { en, ja, zh, de };
for (const [locale, t] of Object.entries(UI))
  pluginFramesTexts.overrideTexts(locale, {
    copyButtonTooltip: t["expressiveCode.copyButtonTooltip"],
    copyButtonCopied: t["expressiveCode.copyButtonCopied"],
    terminalWindowFallbackTitle: t["expressiveCode.terminalWindowFallbackTitle"],
  });

/** The locale of the page a block is on: from the page's file (chapters/s03-todo-write/de.mdx),
 *  else from its URL (/learn-agent-harness/de/compare/). Starlight's own guess reads the URL's
 *  first segment, which under a base path is the base, so every block came out in English.
 *  @param {{ file: { path?: string; url?: URL } }} block */
function getBlockLocale({ file }) {
  const fromFile = /[\\/](\w+)\.mdx?$/.exec(file.path ?? "")?.[1];
  const fromUrl = file.url?.pathname.split("/").filter(Boolean).slice(0, 2);
  return [fromFile, ...(fromUrl ?? [])].find((part) => part && part in UI) ?? "en";
}

// Line numbers only where a block asks for them (`showLineNumbers`): an excerpt and the full source
// number their lines as the file does (`startLineNumber`), so the two can be read side by side.
export default defineEcConfig({
  plugins: [pluginLineNumbers(), compactTokens(), lazyBlocks()],
  defaultProps: { showLineNumbers: false },
  getBlockLocale,
});
