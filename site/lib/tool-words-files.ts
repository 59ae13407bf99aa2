// i18n/tools.<locale>.json, for the site (site/lib/tool-words.ts reads them).
import de from "../../i18n/tools.de.json" with { type: "json" };
import ja from "../../i18n/tools.ja.json" with { type: "json" };
import zh from "../../i18n/tools.zh.json" with { type: "json" };
import type { ToolWords } from "./tool-words.ts";

export const TOOL_WORDS: ToolWords = { ja, zh, de };
