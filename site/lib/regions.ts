// Marked regions of a chapter's agent.ts (`// #region name` … `// #endregion name`). Plain code
// with no Vite imports, so the site's <Excerpt> (through chapters.ts) and the Node-run
// translation check (translation.ts, `npm run i18n:status`) cut a region out the same way.

/** The lines between `// #region name` and `// #endregion name`, de-indented. */
export function region(source: string, name: string): string {
  const lines = source.split("\n");
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  if (start < 0 || end < 0) throw new Error(`region "${name}" not found`);
  const body = lines.slice(start + 1, end).filter((l) => !/^\s*\/\/ #(end)?region /.test(l));
  const indent = Math.min(...body.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length));
  return body.map((l) => l.slice(indent)).join("\n");
}
