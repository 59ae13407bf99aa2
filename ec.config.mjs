// @ts-check
// Expressive Code (the site's code blocks) for Markdown code fences and the <Code> component alike.
import { defineEcConfig } from "@astrojs/starlight/expressive-code";
import { compactTokens, lazyBlocks } from "./site/lib/ec-plugins.mjs";

export default defineEcConfig({ plugins: [compactTokens(), lazyBlocks()] });
