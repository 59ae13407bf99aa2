// @ts-check
// The type check a3 runs after every change to a .ts file. It runs inside the command sandbox with
// the workspace as its folder, so it reads what the model could read and writes nothing: the
// harness passes this file and its own TypeScript in, read-only. Arguments: the changed files.
// Output: one JSON line per diagnostic in those files (the rest of the project is not reported:
// the model asked about its change, not about the errors that were there before).
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import path from "node:path";

/** @type {typeof import("typescript")} */
const ts = createRequire(import.meta.url)("typescript");

const changed = process.argv.slice(2).map((file) => path.resolve(file));

/** The workspace's own tsconfig.json, if it has one at its top (never one in a folder above it). */
function compilerOptions() {
  const defaults = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: [],
  };
  if (!existsSync("tsconfig.json")) return defaults;
  const parsed = ts.getParsedCommandLineOfConfigFile(
    "tsconfig.json",
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  return parsed ? { ...parsed.options, skipLibCheck: true } : defaults;
}

const program = ts.createProgram(changed, { ...compilerOptions(), noEmit: true });
for (const file of changed) {
  const source = program.getSourceFile(file);
  if (!source) continue;
  const found = [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ];
  for (const d of found) {
    const at =
      d.start === undefined
        ? { line: 0, character: 0 }
        : source.getLineAndCharacterOfPosition(d.start);
    const line = {
      file: path.relative(process.cwd(), file),
      line: at.line + 1,
      column: at.character + 1,
      code: `TS${d.code}`,
      message: ts.flattenDiagnosticMessageText(d.messageText, " "),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}
