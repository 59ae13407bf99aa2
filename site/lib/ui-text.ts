// The site's UI strings outside Astro: a page's script (or worker) gets its locale's strings as
// data and fills them as Starlight's translator does (site/lib/i18n.ts): `{{name}}` placeholders
// (or `{name}`, as a page carries them: a built page shows no `{{name}}`, tests/site check), and
// for a `count`, the `_one`/`_other` form the language's plural rules pick. Values go in as
// they are: whoever shows the text sets it as text (textContent), never as HTML. Pure.
export type Strings = Record<string, string>;

export function translator(strings: Strings, lang: string) {
  const plural = new Intl.PluralRules(lang);
  return (key: string, vars: Record<string, string | number> = {}): string => {
    let text = strings[key];
    if (text === undefined && typeof vars.count === "number")
      text = strings[`${key}_${plural.select(vars.count)}`] ?? strings[`${key}_other`];
    return (text ?? key).replace(
      /\{\{\s*(\w+)\s*\}\}|\{(\w+)\}/g,
      (whole, double: string | undefined, single: string | undefined) => {
        const name = (double ?? single)!;
        return name in vars ? String(vars[name]) : whole;
      },
    );
  };
}

/** A string as a page carries it: i18next's `{{name}}` as `{name}`. */
export const singleBraces = (text: string) => text.replace(/\{\{\s*(\w+)\s*\}\}/g, "{$1}");
