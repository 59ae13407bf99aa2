// Where the code that took a step is, recorded with the step (its `at`, chapters/_trace/contract.ts)
// so the site's player shows it beside the step without reading the lessons to guess. Asked only
// when a run is recorded (`npm run traces`, `--record`); the answer is a lesson file of the
// repository and a line in it:
//   a tool call or result → the tool's handler in a table of handlers (`bash: (input, ctx) =>`
//                           in s02's; for `send: this.sendTool(LEAD)`, sendTool's code), else
//                           a function of its name (s01's `bash`), else its definition (`name:
//                           "task"`); an MCP server's tool (made at run time): where handlers
//                           are added; a name no chapter has: none;
//   a model response, or  → the call that answered it, or failed (its agent's latest request);
//   a failed call
//   an event              → the first lesson line on the call stack whose call writes its type
//                           (`this.log("worktree_create", …)`), past functions that pass it on;
//   any other step        → the line of lesson code that took it, from the call stack: the first
//                           frame in a lesson file, past the harness's own code. A function that
//                           only passes on what it was given (`(text) => env.io.note(text)`) is
//                           not where the step was decided: its caller is.
// A stack that reaches code outside the lessons first (a test, a learner's copy) has no spot.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { REPO_ROOT } from "../_shared/paths.ts";
import type { StepAt, TraceEvent } from "../_trace/contract.ts";

const CHAPTERS = path.join(REPO_ROOT, "chapters");
/** A chapter's folder: s02-tool-use, a1-mcp-servers. */
const CHAPTER_FOLDER = /^(?:s\d\d|a\d+)-[\w-]+$/;
/** A frame of a stack: "at fn (file:///…/agent.ts:12:5)" or "at async file:///…:12:5". */
const FRAME = /\(?((?:file:\/\/)?\/[^():]+):(\d+):(\d+)\)?\s*$/;

/** A lesson file's path relative to chapters/ ("s02-tool-use/agent.ts"), or undefined for any
 *  other file: the harness's own folders (_runner, _shared …), a chapter's scenario or exercises. */
function lessonPath(file: string): string | undefined {
  const relative = path.relative(CHAPTERS, file);
  const [folder, name, ...deeper] = relative.split(path.sep);
  if (deeper.length || !name || !CHAPTER_FOLDER.test(folder)) return undefined;
  return name.endsWith(".ts") && name !== "scenario.ts" ? relative : undefined;
}

interface Parsed {
  source: ts.SourceFile;
  lines: readonly number[];
}

/** Finds the spot of each step of one chapter's run (`chapterFolder`: "s13-agent-teams"). */
export function codeSpotter(chapterFolder: string) {
  const parsed = new Map<string, Parsed | null>();
  const parse = (relative: string): Parsed | null => {
    if (!parsed.has(relative)) {
      let text: string | undefined;
      try {
        text = readFileSync(path.join(CHAPTERS, relative), "utf8");
      } catch {
        text = undefined;
      }
      const source =
        text === undefined
          ? undefined
          : ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      parsed.set(relative, source ? { source, lines: source.getLineStarts() } : null);
    }
    return parsed.get(relative)!;
  };
  const lineOf = (file: Parsed, node: ts.Node) =>
    file.source.getLineAndCharacterOfPosition(node.getStart(file.source)).line + 1;

  // The chapter's lesson files, then each chapter they import (newest first) with the chapters
  // that one imports before the next.
  let order: string[] | undefined;
  const searchOrder = () => (order ??= chaptersFrom(chapterFolder, parse));
  const spotOf = (found: { file: string; parsed: Parsed; node: ts.Node } | undefined) =>
    found && { file: `chapters/${found.file}`, line: lineOf(found.parsed, found.node) };

  const handlers = new Map<string, StepAt | undefined>();
  const handlerOf = (name: string): StepAt | undefined => {
    if (!handlers.has(name)) {
      const entry = findNode(searchOrder(), parse, (node, source) =>
        isTableEntry(node, name, source),
      );
      // `send: this.sendTool(LEAD)`: the handler is what the call makes, so its code is there.
      const made =
        entry && ts.isPropertyAssignment(entry.node) && ts.isCallExpression(entry.node.initializer)
          ? calleeName(entry.node.initializer.expression)
          : undefined;
      const found =
        (made ? findNode(searchOrder(), parse, (node) => declares(node, made)) : undefined) ??
        entry ??
        findNode(
          searchOrder(),
          parse,
          (node) => ts.isFunctionDeclaration(node) && node.name?.text === name,
        ) ??
        findNode(searchOrder(), parse, (node) => isDefinition(node, name)) ??
        // A tool made at run time (an MCP server's, `mcp__server__tool`): where it gets its handler.
        (name.startsWith("mcp__") ? findNode(searchOrder(), parse, isRuntimeHandler) : undefined);
      handlers.set(name, spotOf(found));
    }
    return handlers.get(name);
  };

  /** The call a frame is at: the innermost call around its line and column. */
  const callAt = (relative: string, line: number, column: number) => {
    const file = parse(relative);
    if (!file || line > file.lines.length) return undefined;
    const at = file.lines[line - 1] + column - 1;
    let call: ts.CallExpression | undefined;
    const visit = (node: ts.Node) => {
      if (node.getStart(file.source) > at || node.end <= at) return;
      if (ts.isCallExpression(node)) call = node;
      node.forEachChild(visit);
    };
    visit(file.source);
    return call && { call };
  };

  /** Whether a call passes on what it was given: its first argument is a parameter of its
   *  function or of one around it (`(text) => env.io.note(text)`, a7's counting `create(body)`,
   *  a2's `last.then(() => env.ask(question, choices))`), or such a parameter wrapped in one call
   *  (`messages.create(withPromptCache(body), options)`). Such code relays the step; whoever
   *  called it decided it. */
  const relays = ({ call }: { call: ts.CallExpression }) => {
    let first = call.arguments[0];
    if (first && ts.isCallExpression(first)) first = first.arguments[0];
    if (!first || !ts.isIdentifier(first)) return false;
    for (let node: ts.Node | undefined = call; node; node = node.parent)
      if (
        ts.isFunctionLike(node) &&
        node.parameters.some((p) => bindingNames(p.name).includes(first.text))
      )
        return true;
    return false;
  };

  /** Whether a call writes `literal` (an event's type) as a string. */
  const names = (call: ts.CallExpression, literal: string) => {
    let found = false;
    const visit = (node: ts.Node) => {
      if (found) return;
      if (ts.isStringLiteralLike(node) && node.text === literal) found = true;
      else node.forEachChild(visit);
    };
    call.forEachChild(visit);
    return found;
  };

  /** The lesson frames of a stack, innermost first, until code outside the lessons and the
   *  harness (a test, a learner's copy) calls in. Only the synchronous frames: the `async`
   *  ones a runtime adds after an await differ between Node with tsx and vitest. */
  const lessonFrames = (stack: string) => {
    const frames: { at: StepAt; relative: string; line: number; column: number }[] = [];
    for (const frame of stack.split("\n").slice(1)) {
      if (/^\s*at async /.test(frame)) break;
      const m = FRAME.exec(frame);
      if (!m) continue;
      const file = m[1].startsWith("file://") ? fileURLToPath(m[1]) : m[1];
      const relative = lessonPath(file);
      if (!relative) {
        if (harness(file)) continue;
        break;
      }
      const [line, column] = [Number(m[2]), Number(m[3])];
      frames.push({ at: { file: `chapters/${relative}`, line }, relative, line, column });
    }
    return frames;
  };

  /** Where the stack says a step was taken: for an event, the first frame whose call writes its
   *  type (s12 logs `this.log("worktree_create", …)` through two functions that pass it on);
   *  otherwise, or if none does, the first frame that is not a relay. */
  const fromStack = (stack: string, type?: string): StepAt | undefined => {
    const frames = lessonFrames(stack).map((f) => ({
      ...f,
      call: callAt(f.relative, f.line, f.column),
    }));
    const named = type && frames.find((f) => f.call && names(f.call.call, type));
    return (named || frames.find((f) => !f.call || !relays(f.call)))?.at;
  };

  const lastRequest = new Map<string, StepAt | undefined>();
  /** Where `step` was taken; call it where the step is kept, so the stack leads to the lesson. */
  return (step: TraceEvent): StepAt | undefined => {
    switch (step.kind) {
      case "user":
        return undefined; // the person's words, not the code's
      case "tool_call":
      case "tool_result":
        return handlerOf(step.name);
      case "response":
        return lastRequest.get(step.agent);
      default: {
        // A failed model call is the call's own line, which it failed on.
        if (step.kind === "event" && step.type === "model_error")
          return lastRequest.get(step.agent);
        const limit = Error.stackTraceLimit;
        Error.stackTraceLimit = 100;
        const stack = new Error().stack ?? "";
        Error.stackTraceLimit = limit;
        const at = fromStack(stack, step.kind === "event" ? step.type : undefined);
        if (step.kind === "request") lastRequest.set(step.agent, at);
        return at;
      }
    }
  };
}

/** Code that is the harness's own, or Node's, or a library's: a stack goes on past it. */
function harness(file: string): boolean {
  if (!path.isAbsolute(file)) return true; // node:internal …
  const relative = path.relative(REPO_ROOT, file);
  if (relative.startsWith("..")) return false;
  return /^(?:node_modules|chapters\/_[\w-]+)\//.test(relative);
}

/** The names a parameter binds (`text`; `{ event, ...data }` binds event and data). */
function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

const nameOf = (name: ts.PropertyName | undefined) =>
  name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;

const isFunction = (node: ts.Node | undefined) =>
  !!node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/** The name a callee or a spread goes by: `sendTool` of `this.sendTool`, `memoryHandlers` of
 *  `s09.memoryHandlers(memory)`, `BASE_HANDLERS`. */
function calleeName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  if (ts.isCallExpression(expression)) return calleeName(expression.expression);
  return undefined;
}

const HANDLERS = /handlers$/i;
const typedAsHandlers = (type: ts.TypeNode | undefined, source: ts.SourceFile) =>
  !!type && /\bToolHandler\b/.test(type.getText(source));

/** Whether an object literal is a table of tool handlers: it spreads one (`...BASE_HANDLERS`,
 *  `...memoryHandlers(memory)`), it is typed as one (`Record<string, ToolHandler>` on its
 *  variable or its function's return), or it is named as one (`handlers: {…}`, `const handlers
 *  = {…}`, `this.leadHandlers = {…}`). An agent's own methods (`send(prompt)`) or a jail's
 *  `read` helper are in no such table. */
function isHandlerTable(table: ts.ObjectLiteralExpression, source: ts.SourceFile): boolean {
  if (
    table.properties.some(
      (p) => ts.isSpreadAssignment(p) && HANDLERS.test(calleeName(p.expression) ?? ""),
    )
  )
    return true;
  let around: ts.Node = table.parent;
  while (ts.isParenthesizedExpression(around) || ts.isAsExpression(around)) around = around.parent;
  if (ts.isVariableDeclaration(around) || ts.isPropertyDeclaration(around))
    return typedAsHandlers(around.type, source) || HANDLERS.test(around.name.getText(source));
  if (ts.isPropertyAssignment(around)) return HANDLERS.test(around.name.getText(source));
  if (ts.isBinaryExpression(around) && around.operatorToken.kind === ts.SyntaxKind.EqualsToken)
    return HANDLERS.test(around.left.getText(source));
  if (ts.isReturnStatement(around) || ts.isArrowFunction(around)) {
    let fn: ts.Node | undefined = around;
    while (fn && !ts.isFunctionLike(fn)) fn = fn.parent;
    return !!fn && typedAsHandlers((fn as ts.SignatureDeclaration).type, source);
  }
  return false;
}

/** `bash: (input, ctx) => …`, `send: this.sendTool(LEAD)` or `async read(input) {…}` in a
 *  table of handlers. */
function isTableEntry(node: ts.Node, name: string, source: ts.SourceFile): boolean {
  if (!ts.isPropertyAssignment(node) && !ts.isMethodDeclaration(node)) return false;
  if (nameOf(node.name) !== name || !ts.isObjectLiteralExpression(node.parent)) return false;
  if (
    ts.isPropertyAssignment(node) &&
    !isFunction(node.initializer) &&
    !ts.isCallExpression(node.initializer)
  )
    return false;
  return isHandlerTable(node.parent, source);
}

/** The declaration of the function or method `name` (`sendTool(from: string): ToolHandler {`). */
function declares(node: ts.Node, name: string): boolean {
  return (
    (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) &&
    !!node.name &&
    nameOf(node.name) === name
  );
}

/** `name: "bash"`: the tool's definition, for a tool no handler table names (s06's `task`, which
 *  the loop runs itself). */
function isDefinition(node: ts.Node, name: string): boolean {
  return (
    ts.isPropertyAssignment(node) &&
    nameOf(node.name) === "name" &&
    ts.isStringLiteralLike(node.initializer) &&
    node.initializer.text === name
  );
}

/** `handlers[name] = …`: where tools made at run time (an MCP server's) get their handler. */
function isRuntimeHandler(node: ts.Node): boolean {
  return (
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
    ts.isElementAccessExpression(node.left) &&
    ts.isIdentifier(node.left.expression) &&
    node.left.expression.text === "handlers"
  );
}

/** The lesson files to search, chapter by chapter: `first`'s, then each chapter its files
 *  import (newest first), with the chapters that one imports before the next (depth first). */
function chaptersFrom(first: string, parse: (relative: string) => Parsed | null): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const rank = (folder: string) =>
    (folder.startsWith("a") ? 100 : 0) + Number(/^[sa](\d+)/.exec(folder)![1]);
  const visit = (folder: string) => {
    if (seen.has(folder)) return;
    seen.add(folder);
    let names: string[];
    try {
      names = readdirSorted(path.join(CHAPTERS, folder));
    } catch {
      return;
    }
    const own = names
      .map((n) => `${folder}/${n}`)
      .filter((relative) => lessonPath(path.join(CHAPTERS, relative)));
    files.push(...own);
    const imported = new Set<string>();
    for (const relative of own) {
      const file = parse(relative);
      for (const statement of file?.source.statements ?? [])
        if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
          const m = /^\.\.\/((?:s\d\d|a\d+)-[\w-]+)\//.exec(statement.moduleSpecifier.text);
          if (m) imported.add(m[1]);
        }
    }
    for (const next of [...imported].sort((a, b) => rank(b) - rank(a))) visit(next);
  };
  visit(first);
  return files;
}

/** A folder's .ts files, agent.ts first (a chapter's main lesson), the others by name. */
function readdirSorted(folder: string): string[] {
  return readdirSync(folder)
    .filter((n) => n.endsWith(".ts"))
    .sort((a, b) => (a === "agent.ts" ? -1 : b === "agent.ts" ? 1 : a.localeCompare(b)));
}

/** The first node, in search order, that `matches`. */
function findNode(
  files: string[],
  parse: (relative: string) => Parsed | null,
  matches: (node: ts.Node, source: ts.SourceFile) => boolean,
): { file: string; parsed: Parsed; node: ts.Node } | undefined {
  for (const file of files) {
    const parsed = parse(file);
    if (!parsed) continue;
    let found: ts.Node | undefined;
    const visit = (node: ts.Node) => {
      if (found) return;
      if (matches(node, parsed.source)) found = node;
      else node.forEachChild(visit);
    };
    visit(parsed.source);
    if (found) return { file, parsed, node: found };
  }
  return undefined;
}
