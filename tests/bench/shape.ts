// Lesson sizes: per chapter, the lines of its lesson files (agent.ts and any .ts beside it but
// scenario.ts, as the site counts them), its base (the highest-numbered chapter they import) and
// the diff against the base's lesson files, paired by name (site/lib/changes.ts).
//   node --import tsx tests/bench/shape.ts [repository root]
import { readFileSync, readdirSync } from "node:fs";
import { filesLineChanges } from "../../site/lib/changes.ts";
import { importedNamesOfFiles } from "../../site/lib/imports.ts";
import { isLessonFile, lessonOrder } from "../../site/lib/regions.ts";

const root = process.argv[2] ?? "/work/main";
const dirs = readdirSync(`${root}/chapters`).filter((d) => /^(s\d\d|a\d)-/.test(d));
const byId = new Map(dirs.map((d) => [d.slice(0, 3).replace(/-$/, ""), d]));
const filesOf = (dir: string) =>
  lessonOrder(
    readdirSync(`${root}/chapters/${dir}`)
      .filter(isLessonFile)
      .map((file) => ({ file, source: readFileSync(`${root}/chapters/${dir}/${file}`, "utf8") })),
  );
const lines = (source: string) => source.split("\n").length;

for (const d of dirs) {
  const files = filesOf(d);
  const imports = [...importedNamesOfFiles(files.map((f) => f.source)).keys()];
  const base = imports.at(-1);
  const { added, removed } = base
    ? filesLineChanges(filesOf(byId.get(base)!), files)
    : { added: 0, removed: 0 };
  const total = files.reduce((sum, f) => sum + lines(f.source), 0);
  const each =
    files.length > 1 ? `  (${files.map((f) => `${f.file} ${lines(f.source)}`).join(", ")})` : "";
  console.log(
    `${d.padEnd(26)} lines ${String(total).padStart(4)} base ${base ?? "-"} +${added}/-${removed}${each}`,
  );
}
