// What a run written down for others must not name: the folders and names that say whose machine
// it ran on. One function replaces them in every string of a step, keys too (a tool's input is
// the model's JSON, and a key can be a path); a recording (recording.ts, which finds this
// machine's) and a committed trace (site/lib/trace-normalize.ts) both use it. Pure, and part of
// the trace contract (contract.ts): it imports nothing of the runner's or the site's.

/** A text as a pattern that matches it literally. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One thing to replace: a path wherever it occurs, or a name as a whole word. */
export interface Secret {
  text: string;
  placeholder: string;
  /** Only where it stands alone: not inside a longer word, a path segment or a host name. */
  word?: boolean;
}

/** A function that replaces `secrets` in every string of a value, object keys included. A longer
 *  one goes first, so a workspace inside the repository inside the home folder is named as the
 *  workspace, and the repository's path is never cut into `<home>/…`. */
export function scrubber(secrets: readonly Secret[]): <T>(value: T) => T {
  const seen = new Map<string, Secret>();
  for (const s of secrets) if (!seen.has(s.text)) seen.set(s.text, s);
  // A path of one character (`/`) or a one-letter name would blank ordinary text, not hide anyone.
  const list = [...seen.values()]
    .filter((s) => s.text.length > 1)
    .sort((a, b) => b.text.length - a.text.length);
  if (!list.length) return (value) => value;
  // One pass with one pattern: a placeholder is never searched again (`<user>` in `<workspace>`).
  // A name is whole when no letter, digit, `_`, `-` or `.` touches it ("root" in "root-commit",
  // "vm" in "vm.example" or "nvm" are not names).
  // A path ends where its name ends ("/root" is not in "/rootfs"; "<workspace>.harness" is its
  // state folder, and says so).
  const WORD = "[\\p{L}\\p{N}_-]";
  const pattern = new RegExp(
    list
      .map((s) =>
        s.word
          ? `(?<![\\p{L}\\p{N}_.-])${escapeRegExp(s.text)}(?!${WORD}|\\.\\w)`
          : `${escapeRegExp(s.text)}(?!${WORD})`,
      )
      .join("|"),
    "gu",
  );
  const byText = new Map(list.map((s) => [s.text, s.placeholder]));
  const clean = (text: string) => text.replace(pattern, (found) => byText.get(found) ?? found);
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return clean(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), walk(v)]));
    return value;
  };
  return <T>(value: T) => walk(value) as T;
}
