// a4's snapshot, measured: a workspace of 10,000 files (and an ignored node_modules of 5,000 that
// no snapshot copies), snapshotted once (the shadow repository is made and every file hashed),
// then again after ten files changed, as before each prompt. Goal: under 1 s after the first.
// `npm run bench` prints it; `node --import tsx tests/bench/checkpoints.ts` prints only this.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { shadowFor, snapshot } from "../../chapters/a4-checkpoints/agent.ts";
import { sandboxFor } from "../../chapters/_shared/shell.ts";

export const FILES = 10_000;

export function measureSnapshots(runs = 5): { first: number; after: number[] } {
  const root = mkdtempSync(path.join(tmpdir(), "bench-a4-"));
  const workspace = path.join(root, "ws");
  try {
    for (let i = 0; i < FILES; i++) {
      const dir = path.join(workspace, `src/m${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(8));
    }
    writeFileSync(path.join(workspace, ".gitignore"), "node_modules/\n");
    for (let i = 0; i < 5_000; i++) {
      const dir = path.join(workspace, `node_modules/p${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `i${i}.js`), "module.exports = 1;\n");
    }
    const shadow = shadowFor(path.join(root, "ws.harness"), workspace, sandboxFor(workspace));
    const timed = (label: string) => {
      const start = performance.now();
      snapshot(shadow, label);
      return performance.now() - start;
    };
    const first = timed("first");
    const after: number[] = [];
    for (let run = 0; run < runs; run++) {
      for (let i = 0; i < 10; i++) {
        const n = (run * 10 + i) * 97;
        const file = path.join(workspace, `src/m${Math.floor(n / 100)}/f${n}.ts`);
        writeFileSync(file, `export const v${n} = ${run};\n`);
      }
      after.push(timed(`run ${run}`));
    }
    return { first, after };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function snapshotRow(): [string, string] {
  const { first, after } = measureSnapshots();
  const median = [...after].sort((a, b) => a - b)[Math.floor(after.length / 2)];
  return [
    `a4 snapshot of a ${FILES.toLocaleString("en")}-file workspace (goal after the first: < 1 s)`,
    `first ${(first / 1000).toFixed(2)} s; after 10 files changed, median of ${after.length}: ${(median / 1000).toFixed(2)} s`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [what, value] = snapshotRow();
  console.log(`${what}: ${value}`);
}
