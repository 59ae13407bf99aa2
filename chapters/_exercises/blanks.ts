// Cutting an exercise out of a lesson file, and putting the answer back, by name: the bodies of the
// named functions (or methods) become a stub that compiles, states the contract and throws "not
// started"; the answer is the chapter's own declaration of the same name. Read with the
// TypeScript parser, so the cut follows the code as it stays, whatever else changes around it.
import { createRequire } from "node:module";
import type ts from "typescript";
import { NOT_STARTED, type Blank } from "./kit.ts";

// The parser is loaded when a blank is first cut or put back, not with the command line:
// TypeScript is nine megabytes to load, and --check, --status and --help cut nothing.
let parser: typeof ts | undefined;
const typescript = () => (parser ??= createRequire(import.meta.url)("typescript") as typeof ts);

interface Found {
  /** The whole declaration (function, method, or `const name = (…) => …`), with its comment. */
  node: ts.Node;
  /** Its body, `{ … }`; for an arrow function with an expression body, that expression. */
  body: ts.Node;
}

function find(source: ts.SourceFile, name: string): Found[] {
  const ts = typescript();
  const found: Found[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) &&
      node.name?.getText(source) === name &&
      node.body
    )
      found.push({ node, body: node.body });
    else if (
      ts.isVariableDeclaration(node) &&
      node.name.getText(source) === name &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      found.push({ node: node.parent.parent, body: node.initializer.body });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const parse = (text: string) => {
  const ts = typescript();
  return ts.createSourceFile("lesson.ts", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
};

/** Replaces spans of `text`, given as [start, end, replacement], from the last to the first. */
function splice(text: string, edits: [number, number, string][]): string {
  return edits
    .sort((a, b) => b[0] - a[0])
    .reduce((out, [start, end, value]) => out.slice(0, start) + value + out.slice(end), text);
}

/** The indentation of the line `pos` is on. */
function indentAt(text: string, pos: number): string {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

function exactlyOne(found: Found[], name: string): Found {
  if (found.length !== 1)
    throw new Error(
      `the lesson has ${found.length} declarations named ${name}; an exercise needs one`,
    );
  return found[0];
}

/** The lesson with each blank's body replaced by its stub. */
export function cutBlanks(text: string, blanks: Blank[]): string {
  const source = parse(text);
  const edits = blanks.map((blank): [number, number, string] => {
    const { body } = exactlyOne(find(source, blank.name), blank.name);
    const indent = indentAt(text, body.getStart(source));
    const inner = `${indent}  `;
    const contract = blank.contract
      .split("\n")
      .map((line) => `${inner}// ${line}`.trimEnd())
      .join("\n");
    const stub = `{\n${inner}// TO DO (npm run exercise): ${blank.name}\n${contract}\n${inner}throw new Error("${NOT_STARTED} ${blank.name}");\n${indent}}`;
    return [body.getStart(source), body.getEnd(), stub];
  });
  return splice(text, edits);
}

/** `mine` with each blank's whole declaration replaced by the one in `reference`. */
export function putBack(mine: string, reference: string, names: string[]): string {
  const ours = parse(reference);
  const theirs = parse(mine);
  const edits = names.map((name): [number, number, string] => {
    const answer = exactlyOne(find(ours, name), name);
    const found = find(theirs, name);
    if (found.length !== 1)
      throw new Error(`your file has ${found.length} declarations named ${name}; expected one`);
    return [found[0].node.getStart(theirs), found[0].node.getEnd(), answer.node.getText(ours)];
  });
  return splice(mine, edits);
}

/** Where each blank's body is in the lesson, by line (1-based, inclusive): what a mutation tool
 *  may change (npm run mutation), the same bodies a rebuild cuts out. */
export function blankLines(
  text: string,
  names: string[],
): { name: string; from: number; to: number }[] {
  const source = parse(text);
  return names.map((name) => {
    const { body } = exactlyOne(find(source, name), name);
    const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
    return { name, from: line(body.getStart(source)), to: line(body.getEnd()) };
  });
}

/** The reference's whole declaration of the blank `name` (what --solution puts back). */
export function answerOf(reference: string, name: string): string {
  const source = parse(reference);
  return exactlyOne(find(source, name), name).node.getText(source);
}
