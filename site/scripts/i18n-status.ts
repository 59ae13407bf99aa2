// `npm run i18n:status`: which translations are missing, stale (made from an older English page)
// or fresh, per locale. Read-only: for a stale page it prints the English page's current hash to
// paste into the translation's `sourceHash` once the translation is brought up to date.
// Works in a shallow clone: it compares hashes, not git history. Exits 0 either way.
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { summarize, TRANSLATED_LOCALES, translationStatus } from "../lib/translation.ts";

const rows = translationStatus(REPO_ROOT);
const totals = summarize(rows);
const verbose = process.argv.includes("--all");

for (const locale of TRANSLATED_LOCALES) {
  const t = totals[locale];
  console.log(`\n${locale}: ${t.fresh} fresh, ${t.stale} stale, ${t.missing} missing`);
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
const all = Object.values(totals).reduce((sum, t) => sum + t.fresh + t.stale + t.missing, 0);
const fresh = Object.values(totals).reduce((sum, t) => sum + t.fresh, 0);
console.log(
  `\n${fresh} of ${all} translations are up to date.${verbose ? "" : " (--all lists the fresh ones too)"}`,
);
