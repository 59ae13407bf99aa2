import { readFileSync } from "node:fs";
import { importsOf, importedNames } from "/work/wt-a7/site/lib/imports.ts";
const src = readFileSync("/work/wt-a7/chapters/a7-goal-loop/agent.ts", "utf8");
console.log(importsOf(src), [...importedNames(src).entries()].map(([k, v]) => [k, v.length]));
