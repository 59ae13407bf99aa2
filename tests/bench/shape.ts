import { readFileSync, readdirSync } from "node:fs";
import { diffLines } from "diff";
import { importedNames } from "../../site/lib/imports.ts";
const root = process.argv[2] ?? "/work/main";
const dirs = readdirSync(`${root}/chapters`).filter((d) => /^(s\d\d|a\d)-/.test(d));
const byId = new Map(dirs.map((d) => [d.slice(0, 3).replace(/-$/, ""), d]));
for (const d of dirs) {
  const src = readFileSync(`${root}/chapters/${d}/agent.ts`, "utf8");
  const imps = [...importedNames(src).keys()].sort((a, b) => +a.slice(1) - +b.slice(1));
  const base = imps.at(-1);
  let add = 0,
    del = 0;
  if (base) {
    const b = readFileSync(`${root}/chapters/${byId.get(base)}/agent.ts`, "utf8");
    for (const p of diffLines(b, src)) {
      if (p.added) add += p.count!;
      if (p.removed) del += p.count!;
    }
  }
  console.log(
    `${d.padEnd(26)} lines ${String(src.split("\n").length).padStart(4)} base ${base ?? "-"} +${add}/-${del}`,
  );
}
