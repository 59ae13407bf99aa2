// The checker's type check of a learner's copy, in a process of its own so it runs while the checks
// do: TypeScript's own diagnostics for that one file (its imports read, not reported), each as one
// line "agent.ts:12:5: Type 'string' is not assignable to type 'number'." sent to the parent.
import path from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "../_shared/paths.ts";

/** The type errors of `file`, one line each, at most `limit`. */
export function typeErrors(file: string, limit = 5): string[] {
  const config = ts.readConfigFile(path.join(REPO_ROOT, "tsconfig.json"), ts.sys.readFile).config;
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT);
  // A stub leaves imports and parameters unused; that is not the learner's mistake.
  const program = ts.createProgram([file], {
    ...options,
    noEmit: true,
    skipLibCheck: true,
    noUnusedLocals: false,
    noUnusedParameters: false,
  });
  const source = program.getSourceFile(file);
  if (!source) return [];
  return ts
    .getPreEmitDiagnostics(program, source)
    .filter((d) => d.category === ts.DiagnosticCategory.Error && d.file === source)
    .slice(0, limit)
    .map((d) => {
      const { line, character } = source.getLineAndCharacterOfPosition(d.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
      return `${path.basename(file)}:${line + 1}:${character + 1}: ${message}`;
    });
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href)
  process.send!(typeErrors(process.argv[2]), () => process.exit(0));
