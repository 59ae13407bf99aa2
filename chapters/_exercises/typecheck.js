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
import { fileURLToPath, pathToFileURL } from "node:url";
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
  return typeErrorsOf([{ file, lesson }], limit, parsed)[0];
}

/** @typedef {{ file: string; lesson?: string }} Copy */

/** The type errors of several copies, each as typeErrors() gives them alone, from as few programs
 *  as that allows (the every-copy test): the files they share are bound and their types worked
 *  out once per program instead of once per copy. Two copies share a program only if neither
 *  reads what the other stands in for; otherwise one would see the other's copy where, checked
 *  alone, it sees the chapter's lesson. Such a copy waits for a program of its own.
 *  @param {Copy[]} copies
 *  @param {number} [limit]
 *  @param {ParsedFiles} [parsed]
 *  @returns {string[][]} */
export function typeErrorsOf(copies, limit = 5, parsed = new Map()) {
  /** @type {string[][]} */
  const errors = copies.map(() => []);
  // A copy that can change what the others see (a script's globals, `declare global`, a module
  // augmentation, a reference directive) is checked on its own.
  const alone =
    copies.length > 1 ? copies.flatMap((c, i) => (sharesNothing(c.file) ? [] : [i])) : [];
  for (const i of alone) errors[i] = typeErrorsOf([copies[i]], limit, parsed)[0];
  let waiting = copies.map((_, i) => i).filter((i) => !alone.includes(i));
  // Where each import leads, found once for every program of this call: finding it again was
  // most of what building a program cost (0.13 s of its 0.15 s).
  const resolutions = ts.createModuleResolutionCache(REPO_ROOT, (f) => f, compilerOptions());
  while (waiting.length) {
    /** @type {number[]} */
    const later = [];
    /** @type {number[]} */
    let group = [];
    const lessons = new Set();
    for (const i of waiting) {
      const lesson = copies[i].lesson && path.resolve(/** @type {string} */ (copies[i].lesson));
      if (lesson && lessons.has(lesson))
        later.push(i); // one copy stands in for a lesson at a time
      else {
        group.push(i);
        if (lesson) lessons.add(lesson);
      }
    }
    // Build, and keep out of this program every copy another one reaches, until none does.
    for (;;) {
      const { program, reached } = programOf(
        group.map((i) => copies[i]),
        parsed,
        resolutions,
      );
      // (Two that reach each other: the first keeps its place, so each round checks one at least.)
      const taken = group.filter(
        (_, k) => reached.has(k) && (k > 0 || reached.size < group.length),
      );
      if (taken.length) {
        later.push(...taken);
        group = group.filter((i) => !taken.includes(i));
        continue;
      }
      for (const i of group) errors[i] = errorsIn(program, copies[i].file, limit);
      break;
    }
    waiting = later;
  }
  return errors;
}

/** Whether a copy is a module that declares nothing outside itself, judged from its text as
 *  TypeScript reads it (an unreadable file is left to the type check to report).
 *  @param {string} file */
function sharesNothing(file) {
  const text = ts.sys.readFile(file);
  if (text === undefined) return true;
  const info = ts.preProcessFile(text, true, true);
  return (
    /^\s*(import|export)\b/m.test(text) &&
    info.referencedFiles.length === 0 &&
    info.typeReferenceDirectives.length === 0 &&
    info.libReferenceDirectives.length === 0 &&
    info.ambientExternalModules === undefined &&
    !/\bdeclare\s+(global|module)\b/.test(text)
  );
}

/** One program for `copies`, and which of them (by index) another copy's imports reach.
 *  @param {Copy[]} copies
 *  @param {ParsedFiles} parsed
 *  @param {ts.ModuleResolutionCache} resolutions */
function programOf(copies, parsed, resolutions) {
  const opts = compilerOptions();
  const host = ts.createCompilerHost(opts);
  // As tsc does: no JSDoc parsed in .ts and .d.ts files (it reports no type error there), a
  // tenth of the parsing of the 583 files a copy reads.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  const getSourceFile = host.getSourceFile.bind(host);
  const copyPaths = copies.map((c) => path.resolve(c.file));
  host.getSourceFile = (name, version, onError, fresh) => {
    if (copyPaths.includes(path.resolve(name))) return getSourceFile(name, version, onError, fresh);
    const text = ts.sys.readFile(name);
    if (text === undefined) return getSourceFile(name, version, onError, fresh);
    const cached = parsed.get(name);
    if (cached?.text === text) return cached.source;
    const source = getSourceFile(name, version, onError, fresh);
    if (source) parsed.set(name, { text, source });
    return source;
  };
  /** lesson → the copy that stands in for it */
  const standIns = new Map(
    copies.flatMap((c, k) => (c.lesson ? [[path.resolve(c.lesson), copyPaths[k]]] : [])),
  );
  /** @type {Map<string, Set<string>>} each file's imports, as resolved */
  const imports = new Map();
  host.resolveModuleNames = (names, containing) =>
    names.map((name) => {
      const found = ts.resolveModuleName(name, containing, opts, host, resolutions).resolvedModule;
      const standIn = found && standIns.get(path.resolve(found.resolvedFileName));
      const resolved = standIn ? { ...found, resolvedFileName: standIn } : found;
      if (resolved) {
        const from = path.resolve(containing);
        if (!imports.has(from)) imports.set(from, new Set());
        imports.get(from)?.add(path.resolve(resolved.resolvedFileName));
      }
      return resolved;
    });
  const program = ts.createProgram(copyPaths, opts, host);
  /** @type {Set<number>} */
  const reached = new Set();
  copyPaths.forEach((start) => {
    const seen = new Set([start]);
    const todo = [start];
    while (todo.length) {
      for (const next of imports.get(/** @type {string} */ (todo.pop())) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        todo.push(next);
        const other = copyPaths.indexOf(next);
        if (other >= 0) reached.add(other);
      }
    }
  });
  return { program, reached };
}

/** The type errors TypeScript reports in `file` of `program`, one line each, at most `limit`.
 *  @param {ts.Program} program
 *  @param {string} file
 *  @param {number} limit */
function errorsIn(program, file, limit) {
  const source = program.getSourceFile(path.resolve(file));
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.send?.(typeErrors(process.argv[2], process.argv[3] || undefined), () => process.exit(0));
