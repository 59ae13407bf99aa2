// `npm run i18n:status`: which translations (chapter, case study, appendix and site pages) are
// missing, stale (made from an older English page) or fresh, per locale; and, per page and locale
// (English included), whether the code the page embeds changed since the page was written
// ("code changed"). For a stale translation it prints
// the English page's current hash to paste into the translation's `sourceHash` once the
// translation is brought up to date. Works in a shallow clone: it compares hashes, not git
// history. Exits 0 whatever it finds (CI fails only on a missing translation, in tests/site/i18n.test.ts).
//
// The hashes (site/lib/translation.ts):
// - `sourceHash` in a translation = the hash of the English page's normalised text (whitespace
//   differences and the sourceHash/codeHash lines do not count).
// - `codeHash` in every page that embeds code = the hash of every <Excerpt chapter region /> and
//   <Source chapter /> (the whole agent.ts) it embeds, as normalised text. Pages without embedded
//   code have none.
//
// Options:
//   --all                       list the fresh pages too
//   --stamp <page> [--locale L] after reviewing a page against its code, record its current code
//                               hash as `codeHash`. <page> is a page id (s10-task-system,
//                               a1-mcp-servers, translators) or a file (chapters/s10-task-system/ja.mdx);
//                               L is en (default), ja, zh, de or all.
//   Example: npm run i18n:status -- --stamp s10-task-system --locale ja
import path from "node:path";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { LOCALES, type Locale } from "../../i18n/locales.ts";
import {
  codeStatus,
  englishPages,
  notesStatus,
  stampCodeHash,
  summarize,
  translationStatus,
  type TranslatedLocale,
} from "../lib/translation.ts";
import { toolWordsStatus } from "../lib/tool-words.ts";
import { stateStrings, stateWordsStatus } from "../lib/state-words.ts";
import { TOOL_WORDS } from "../lib/tool-words-files.ts";
import { allRunnable } from "../../chapters/_runner/chapters.ts";

/** Every description of every chapter's TOOLS, once each, as the code has them. */
async function chapterToolDescriptions(): Promise<string[]> {
  const all = new Set<string>();
  for (const c of allRunnable()) {
    const { TOOLS } = (await import(path.join(c.dir, "agent.ts"))) as {
      TOOLS: { description?: string }[];
    };
    for (const tool of TOOLS) if (tool.description) all.add(tool.description);
  }
  return [...all];
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

const stamp = option("--stamp");
if (args.includes("--stamp")) {
  if (!stamp) throw new Error("--stamp needs a page id or a file");
  const localeArg = option("--locale") ?? "en";
  if (localeArg !== "all" && !(LOCALES as readonly string[]).includes(localeArg))
    throw new Error(`--locale must be one of ${LOCALES.join(", ")} or all`);
  let files: string[];
  if (stamp.endsWith(".mdx")) {
    files = [path.relative(REPO_ROOT, path.resolve(REPO_ROOT, stamp)).split(path.sep).join("/")];
  } else {
    const page = englishPages(REPO_ROOT).find((p) => p.page === stamp);
    if (!page) throw new Error(`no page "${stamp}" (npm run i18n:status -- --all lists them)`);
    const locales = localeArg === "all" ? LOCALES : [localeArg as Locale];
    files = locales.map((l) =>
      l === "en" ? page.english : page.translation(l as TranslatedLocale),
    );
  }
  for (const file of files) {
    const hash = stampCodeHash(file, REPO_ROOT);
    console.log(`${file}: codeHash ${hash === "" ? "(no embedded code)" : `"${hash}"`}`);
  }
  process.exit(0);
}

const rows = translationStatus(REPO_ROOT);
const code = codeStatus(REPO_ROOT);
const totals = summarize(rows);
const verbose = args.includes("--all");

for (const locale of LOCALES) {
  const changed = code.filter((c) => c.locale === locale && c.changed);
  if (locale === "en") {
    console.log(`\nen: ${changed.length} with code changed`);
  } else {
    const t = totals[locale];
    console.log(
      `\n${locale}: ${t.fresh} fresh, ${t.stale} stale, ${t.missing} missing, ${changed.length} with code changed`,
    );
    for (const row of rows.filter((r) => r.locale === locale)) {
      if (row.status === "fresh" && !verbose) continue;
      const mark = { fresh: "  ok     ", stale: "  STALE  ", missing: "  MISSING" }[row.status];
      const detail =
        row.status === "stale"
          ? `sourceHash "${row.recordedHash ?? "(none)"}" → update it to "${row.currentHash}" after translating the changes in ${row.english}`
          : row.status === "missing"
            ? `translate ${row.english}; its sourceHash is "${row.currentHash}"`
            : "";
      console.log(`${mark} ${row.translation.padEnd(42)} ${detail}`);
    }
  }
  for (const c of changed) {
    console.log(
      `  CODE     ${c.file.padEnd(42)} code changed since this page was written: codeHash "${c.recordedCodeHash ?? "(none)"}", now "${c.currentCodeHash}"; review the page against the code, then npm run i18n:status -- --stamp ${c.page} --locale ${c.locale}`,
    );
  }
}
// Step notes and the exercises' words: the same states, reported per chapter; a missing
// translation shows English.
for (const [what, folder] of [
  ["step notes", "notes"],
  ["exercise words", "exercises"],
] as const) {
  const rows = notesStatus(REPO_ROOT, folder);
  const rowTotals = summarize(rows);
  console.log(
    `\n${what}: ${rows.length / 3} chapters; ` +
      Object.entries(rowTotals)
        .map(([l, t]) => `${l} ${t.fresh} fresh, ${t.stale} stale, ${t.missing} missing`)
        .join("; "),
  );
  for (const row of rows) {
    if (row.status === "fresh" && !verbose) continue;
    const mark = { fresh: "  ok     ", stale: "  STALE  ", missing: "  MISSING" }[row.status];
    const detail =
      row.status === "fresh"
        ? ""
        : `translate ${row.english}${row.status === "stale" ? " (changes since)" : ""}, then set sourceHash: "${row.currentHash}"`;
    console.log(`${mark} ${row.translation.padEnd(42)} ${detail}`);
  }
}

// The tools' descriptions (i18n/tools.<locale>.json): keyed by the English text the code has.
{
  const descriptions = await chapterToolDescriptions();
  const status = toolWordsStatus(TOOL_WORDS, descriptions);
  console.log(
    `\ntool descriptions: ${descriptions.length}; ` +
      Object.entries(status)
        .map(
          ([l, s]) =>
            `${l} ${s.fresh} fresh, ${s.missing.length} missing, ${s.unused.length} unused`,
        )
        .join("; "),
  );
  for (const [locale, s] of Object.entries(status)) {
    for (const d of s.missing)
      console.log(`  MISSING  i18n/tools.${locale}.json  ${JSON.stringify(d)}`);
    for (const d of s.unused)
      console.log(
        `  UNUSED   i18n/tools.${locale}.json  ${JSON.stringify(d)} (no tool has it now: remove it)`,
      );
  }
}

// The state panels' words (state.value.* in i18n/ui.<locale>.json): a missing one is shown in
// English, flagged in the panel.
{
  const ui = {
    en: (await import("../../i18n/ui.en.json", { with: { type: "json" } })).default,
    ja: (await import("../../i18n/ui.ja.json", { with: { type: "json" } })).default,
    zh: (await import("../../i18n/ui.zh.json", { with: { type: "json" } })).default,
    de: (await import("../../i18n/ui.de.json", { with: { type: "json" } })).default,
  } as Record<Locale, Record<string, string>>;
  const status = stateWordsStatus(ui.en, ui);
  console.log(
    `\nplayer state words: ${Object.keys(stateStrings(ui.en)).length}; ` +
      Object.entries(status)
        .map(
          ([l, s]) =>
            `${l} ${s.fresh} fresh, ${s.missing.length} missing, ${s.unused.length} unused`,
        )
        .join("; "),
  );
  for (const [locale, s] of Object.entries(status)) {
    for (const key of s.missing) console.log(`  MISSING  i18n/ui.${locale}.json  ${key}`);
    for (const key of s.unused)
      console.log(`  UNUSED   i18n/ui.${locale}.json  ${key} (not in ui.en.json: remove it)`);
  }
}

const all = Object.values(totals).reduce((sum, t) => sum + t.fresh + t.stale + t.missing, 0);
const fresh = Object.values(totals).reduce((sum, t) => sum + t.fresh, 0);
const changedPages = code.filter((c) => c.changed).length;
const codeLine =
  changedPages === 0
    ? "No page explains code that changed since it was written."
    : `${changedPages} of ${code.length} pages explain code that changed since they were written.`;
console.log(
  `\n${fresh} of ${all} translations are up to date. ${codeLine}${verbose ? "" : " (--all lists the fresh ones too)"}`,
);
