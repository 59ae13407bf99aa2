// The state panels' own words in the reader's language. The state after a step (run-state.ts)
// keeps its data as data: a name, an id, a path, a command or a number is a string, shown as it
// is in every locale. What we say about it (a status, "owner: alice", "blocked by #1", a goal's
// budget) is a Phrase: a key of the UI strings under `state.value.` with its values (which may be
// phrases too), worded only when it is shown, from the reader's locale (i18n/ui.<locale>.json).
// So one timeline, built once per chapter, serves every language. A word the locale has no string
// for is shown in English and flagged, never silently (the panel says it is not translated yet).
// Pure: the player's panels, the recording page's worker and the tests use it.
import { translator, type Strings } from "./ui-text";

/** Our words: a key under `state.value.` and the values it is filled with. */
export type Phrase = [key: string, vars?: Record<string, string | number | Phrase>];
/** A cell of a state panel: data as it is, or our words (several are joined by `state.value.sep`). */
export type Cell = string | Phrase[];

/** The prefix of the state panels' words among the UI strings. */
export const STATE_WORDS = "state.value.";

/** Statuses and states the chapters record, each worded as `state.value.is.<status>`: a status a
 *  recording holds that is not one of these (a learner's own harness may have its own) is data. */
export const STATUSES = [
  "running",
  "completed",
  "failed",
  "timeout",
  "open",
  "removed",
  "working",
  "idle",
  "shutdown",
  "pending",
  "approved",
  "rejected",
  "expired",
  "allowed",
  "refused",
  "error",
  "interrupted",
  "backoff",
  "continue",
  "stop",
  "identity_reinjected",
  "start",
  "resume",
  "fork",
  "met",
  "not_met",
] as const;
const KNOWN = new Set<string>(STATUSES);

/** A status in our words when it is one the chapters have, else the value itself. */
export const statusCell = (value: string): Cell => (KNOWN.has(value) ? [[`is.${value}`]] : value);

/** The `state.value.*` strings of a locale's UI strings (what a player needs to word its state). */
export const stateStrings = (strings: Record<string, string>): Strings =>
  Object.fromEntries(Object.entries(strings).filter(([key]) => key.startsWith(STATE_WORDS)));

/** Words a cell in a locale: `own` are the locale's strings, `english` the English ones. */
export function stateWording(own: Strings, english: Strings, lang: string) {
  const local = translator(own, lang);
  const fallback = translator(english, "en");
  // A key with plural forms has no string of its own, only `_one`, `_other` …
  const has = (strings: Strings, key: string) =>
    Object.hasOwn(strings, key) || Object.hasOwn(strings, `${key}_other`);
  return (cell: Cell): { text: string; english: boolean } => {
    if (typeof cell === "string") return { text: cell, english: false };
    let english = false;
    const say = ([key, vars = {}]: Phrase): string => {
      const filled = Object.fromEntries(
        Object.entries(vars).map(([name, value]) => [
          name,
          Array.isArray(value) ? say(value) : value,
        ]),
      );
      const full = STATE_WORDS + key;
      if (has(own, full)) return local(full, filled);
      english = true;
      return fallback(full, filled);
    };
    const parts = cell.map(say);
    const sep = parts.length > 1 ? say(["sep"]) : "";
    return { text: parts.join(sep), english };
  };
}

/** Every cell of a snapshot as text in a locale (the tests read the panels so). */
export function snapshotText(
  snapshot: Partial<Record<string, Cell[][]>>,
  word: ReturnType<typeof stateWording>,
): Record<string, string[][]> {
  return Object.fromEntries(
    Object.entries(snapshot).map(([panel, rows]) => [
      panel,
      rows!.map((row) => row.map((cell) => word(cell).text)),
    ]),
  );
}

/** Per locale: how many of the state panels' English words have a translation, which have none
 *  (shown in English, flagged) and which translate no English word any more. */
export function stateWordsStatus(
  english: Record<string, string>,
  locales: Record<"ja" | "zh" | "de", Record<string, string>>,
): Record<"ja" | "zh" | "de", { fresh: number; missing: string[]; unused: string[] }> {
  const wanted = Object.keys(stateStrings(english));
  const status = (own: Record<string, string>) => {
    const have = stateStrings(own);
    const missing = wanted.filter((key) => !have[key]?.trim());
    return {
      fresh: wanted.length - missing.length,
      missing,
      unused: Object.keys(have).filter((key) => !Object.hasOwn(english, key)),
    };
  };
  return { ja: status(locales.ja), zh: status(locales.zh), de: status(locales.de) };
}

/** The `state.value.*` strings these cells can use (with their plural forms, the separator and
 *  the "not translated yet" notice): what a chapter's player data carries of a locale. */
export function stringsFor(cells: Iterable<Cell>, strings: Strings): Strings {
  const keys = new Set(["sep", "english"]);
  const walk = ([key, vars = {}]: Phrase): void => {
    keys.add(key);
    for (const value of Object.values(vars)) if (Array.isArray(value)) walk(value);
  };
  for (const cell of cells) if (typeof cell !== "string") cell.forEach(walk);
  return Object.fromEntries(
    Object.entries(stateStrings(strings)).filter(([full]) => {
      const key = full.slice(STATE_WORDS.length);
      return keys.has(key) || keys.has(key.replace(/_[a-z]+$/, ""));
    }),
  );
}
