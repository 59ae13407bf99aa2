// Text for mermaid sequence diagrams that mermaid draws exactly as written.
//
// In a sequence diagram a message or note label ends at the first `#` (the rest of the line is a
// comment) or `;` (a statement separator), `%%{...}%%` is a directive, `<br>` is a line break and
// other tags are sanitised away, and a label starting with `wrap:` loses that word. Mermaid reads
// entity codes instead: `#35;` is drawn as '#', `#59;` as ';', `#lt;` as '<' (it turns `#name;`
// into `&name;` after parsing). Hand-written diagrams in the pages use the same codes.

const CODES: Record<string, string> = {
  "#": "#35;",
  ";": "#59;",
  "%": "#37;",
  "<": "#lt;",
  ">": "#gt;",
  "{": "#123;",
  "}": "#125;",
};

/** A label (message, note or participant alias) that mermaid shows character for character.
 *  Whitespace runs become one space, as mermaid would draw them anyway; a line break becomes
 *  mermaid's `<br>`. */
export function mermaidText(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) =>
      line
        .replace(/\s+/g, " ")
        .trim()
        .replace(/[#;%<>{}]/g, (c) => CODES[c])
        // "wrap:" / "nowrap:" at the start of a label is an option, not text
        .replace(/^((?:no)?wrap):/i, "$1#58;"),
    )
    .join("<br>");
}

/** Participant ids mermaid accepts. */
export function mermaidId(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_]/g, "_") || "_";
  // An agent named "end" or "loop" would be read as the keyword (in any case).
  return KEYWORDS.has(id.toLowerCase()) ? `_${id}` : id;
}

/** Words a sequence diagram reads as its own (mermaid matches them in any case). */
const KEYWORDS = new Set(
  (
    "end note loop box alt else opt par and rect critical break option participant actor as " +
    "activate deactivate autonumber title links link properties details create destroy over " +
    "left right of sequencediagram"
  ).split(" "),
);
