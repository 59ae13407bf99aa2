// @ts-check
// The checker's type check of a learner's copy, in a process of its own so it runs while the checks
// do: TypeScript's own diagnostics for that one file (its imports read, not reported), each as one
// line "agent.ts:12:5: Type 'string' is not assignable to type 'number'." sent to the parent.
//
// Plain JavaScript (type-checked from its JSDoc), like the runner's cli.js: the child starts
// without the TypeScript loader, which would otherwise be a third of a CPU-second of every
// --check, most of it spent looking at the nine megabytes of the compiler it then loads.
//
// The copy stands in for the chapter's lesson file, and so it does for the type check too: where
// another file of the chapter imports the lesson (s13's extension-points.ts takes a `Team`), it is
// given the copy. Otherwise the copy's class and the chapter's would be two declarations of one
// name, and TypeScript would report the learner's untouched code as not fitting itself.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** @type {ts.CompilerOptions | undefined} */
let options;
/** @returns {ts.CompilerOptions} */
function compilerOptions() {
  if (!options) {
    const config = ts.readConfigFile(path.join(REPO_ROOT, "tsconfig.json"), ts.sys.readFile).config;
    // A stub leaves imports and parameters unused; that is not the learner's mistake.
    options = {
      ...ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT).options,
      noEmit: true,
      skipLibCheck: true,
      noUnusedLocals: false,
      noUnusedParameters: false,
    };
  }
  return options;
}

/** Every file a copy reads but the learner does not write (lib.d.ts, @types/node, the chapter's
 *  other files, _shared …), parsed, by its name and text. A caller that checks many copies in one
 *  process (the every-copy test) passes one cache to every call, so each is parsed once; it is
 *  hundreds of megabytes, so the caller lets go of it when done. */
/** @typedef {Map<string, { text: string; source: ts.SourceFile }>} ParsedFiles */

/** The type errors of `file`, one line each, at most `limit`. With `lesson` (the chapter's file
 *  the copy was made from), imports of the lesson by the chapter's other files read the copy.
 *  @param {string} file
 *  @param {string} [lesson]
 *  @param {number} [limit]
 *  @param {ParsedFiles} [parsed]
 *  @returns {string[]} */
export function typeErrors(file, lesson, limit = 5, parsed = new Map()) {
  const opts = compilerOptions();
  const host = ts.createCompilerHost(opts);
  // As tsc does: no JSDoc parsed in .ts and .d.ts files (it reports no type error there), a
  // tenth of the parsing of the 583 files a copy reads.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  const getSourceFile = host.getSourceFile.bind(host);
  const copyPath = path.resolve(file);
  host.getSourceFile = (name, version, onError, fresh) => {
    if (path.resolve(name) === copyPath) return getSourceFile(name, version, onError, fresh);
    const text = ts.sys.readFile(name);
    if (text === undefined) return getSourceFile(name, version, onError, fresh);
    const cached = parsed.get(name);
    if (cached?.text === text) return cached.source;
    const source = getSourceFile(name, version, onError, fresh);
    if (source) parsed.set(name, { text, source });
    return source;
  };
  const copy = path.resolve(file);
  const original = lesson && path.resolve(lesson);
  host.resolveModuleNames = (names, containing) =>
    names.map((name) => {
      const found = ts.resolveModuleName(name, containing, opts, host).resolvedModule;
      if (found && original && path.resolve(found.resolvedFileName) === original)
        return { ...found, resolvedFileName: copy };
      return found;
    });
  const program = ts.createProgram([file], opts, host);
  const source = program.getSourceFile(file);
  if (!source) return [`${path.basename(file)}: TypeScript could not read the file`];
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
  process.send?.(typeErrors(process.argv[2], process.argv[3] || undefined), () => process.exit(0));
