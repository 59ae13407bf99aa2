// What a chapter's lesson files (agent.ts, and any other .ts beside it but scenario.ts) take from
// earlier chapters, read with the TypeScript parser: which chapters they import, which names from
// each, and where the chapter that exports a name declares it. Pure functions over source text (no Vite imports), so the site's "What changed" and the
// tests read the code the same way. The rule that picks a chapter's base from these imports is
// in chapters.ts.
import ts from "typescript";

/** A name a chapter takes from one of another chapter's lesson files. */
export interface ImportedName {
  /** The name as the other chapter exports it (`runTool`, even if imported `as run`). */
  name: string;
  /** The other chapter's file it comes from: "agent.ts", "mailbox.ts" (s13). */
  file: string;
  /** Only used as a type (`import type { ToolHandler }`, `import { type Team }`). */
  type: boolean;
  /** The name it goes by in the importing file, where that differs (`LEAD_TOOLS as TEAM_LEAD_TOOLS`). */
  local?: string;
  /** Taken from an appendix imported whole (`import * as a2`): a harness the chapter runs (a6's
   *  eval), not one it builds on. */
  whole?: true;
}

/** "../s02-tool-use/agent.ts" → s02's agent.ts, "../s13-agent-teams/mailbox.ts" → s13's
 *  mailbox.ts; undefined for anything that is not a lesson file of a chapter (its scenario.ts is
 *  not one, nor is a file of this chapter's own folder). */
const CHAPTER_MODULE = /^\.\.\/(s\d\d|a\d+)-[\w-]+\/(?!scenario\b)([\w-]+)(?:\.ts)?$/;

/** A chapter's place in the course: s01 … s15, then the appendices a1, a2 … (a7 builds on a5). */
export const chapterRank = (id: string) => (id.startsWith("a") ? 100 : 0) + Number(id.slice(1));

const parse = (source: string) =>
  ts.createSourceFile("agent.ts", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** The names taken from each chapter, by chapter id in number order, each chapter's names in the
 *  order the import lists them. A namespace import (`import * as s07 from …`, as the appendices
 *  write) takes the members the code uses (`s07.checkPermission`), in alphabetical order. */
export function importedNames(source: string): Map<string, ImportedName[]> {
  const file = parse(source);
  const found = new Map<string, ImportedName[]>();
  // local namespace name → the chapter id and its file
  const namespaces = new Map<string, { chapter: string; file: string; whole: boolean }>();
  const add = (chapter: string, name: ImportedName) => {
    const names = found.get(chapter) ?? [];
    const seen = names.find((n) => n.name === name.name);
    if (!seen) names.push(name);
    else seen.type &&= name.type; // used as a value anywhere: a value
    found.set(chapter, names);
  };

  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier))
      continue;
    const [, chapter, module] = CHAPTER_MODULE.exec(statement.moduleSpecifier.text) ?? [];
    const clause = statement.importClause;
    if (!chapter || !clause) continue;
    const bindings = clause.namedBindings;
    const file = `${module}.ts`;
    if (!found.has(chapter)) found.set(chapter, []);
    if (bindings && ts.isNamespaceImport(bindings))
      namespaces.set(bindings.name.text, { chapter, file, whole: chapter.startsWith("a") });
    else if (bindings)
      for (const element of bindings.elements) {
        const name = (element.propertyName ?? element.name).text;
        const local = element.name.text;
        add(chapter, {
          name,
          file,
          type: clause.isTypeOnly || element.isTypeOnly,
          ...(local !== name && { local }),
        });
      }
  }

  if (namespaces.size) {
    const visit = (node: ts.Node): void => {
      // s07.checkPermission(…) as a value; s07.Rule, or `interface … extends s07.Options`, as a type.
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
        const from = namespaces.get(node.expression.text);
        const heritage = ts.isExpressionWithTypeArguments(node.parent)
          ? node.parent.parent
          : undefined;
        const type =
          heritage !== undefined &&
          ts.isHeritageClause(heritage) &&
          (heritage.token === ts.SyntaxKind.ImplementsKeyword ||
            ts.isInterfaceDeclaration(heritage.parent));
        if (from)
          add(from.chapter, {
            name: node.name.text,
            file: from.file,
            type,
            ...(from.whole && { whole: true as const }),
          });
      } else if (ts.isQualifiedName(node) && ts.isIdentifier(node.left)) {
        const from = namespaces.get(node.left.text);
        if (from)
          add(from.chapter, {
            name: node.right.text,
            file: from.file,
            type: true,
            ...(from.whole && { whole: true as const }),
          });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    // A namespace's members in alphabetical order, as a named import would list them.
    for (const chapter of new Set([...namespaces.values()].map((n) => n.chapter)))
      found.get(chapter)?.sort((a, b) => a.name.localeCompare(b.name, "en"));
  }

  return new Map([...found].sort(([a], [b]) => a.localeCompare(b, "en")));
}

/** Earlier chapters whose lesson files this source imports ("s02", "s10" …), in number order. */
export function importsOf(source: string): string[] {
  return [...importedNames(source).keys()];
}

/** The line (1-based) of each name the source exports, where its declaration starts (after its
 *  doc comment): `export function`, `class`, `interface`, `type`, `enum`, each `const`/`let` of an
 *  `export const` statement, and names exported by `export { local as name }`. */
export function exportedDeclarations(source: string): Map<string, number> {
  const file = parse(source);
  const lineOf = (node: ts.Node) =>
    file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const locals = new Map<string, number>();
  const lines = new Map<string, number>();

  for (const statement of file.statements) {
    const names: [string, number][] = [];
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name))
          names.push([declaration.name.text, lineOf(statement)]);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.push([statement.name.text, lineOf(statement)]);
    }
    for (const [name, line] of names) {
      if (!locals.has(name)) locals.set(name, line);
      if (exported(statement) && !lines.has(name)) lines.set(name, line);
    }
  }
  // `export { local as name }` (no module: a re-export from elsewhere is not declared here).
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier) continue;
    const clause = statement.exportClause;
    if (!clause || !ts.isNamedExports(clause)) continue;
    for (const element of clause.elements) {
      const line = locals.get((element.propertyName ?? element.name).text);
      if (line !== undefined && !lines.has(element.name.text)) lines.set(element.name.text, line);
    }
  }
  return lines;
}

/** The rule: of the chapters a source imports, the latest one ("s02", "s10" → "s10"; "s07", "a5" → "a5"). */
export function baseOf(imported: readonly string[]): string | undefined {
  return [...imported].sort((a, b) => chapterRank(a) - chapterRank(b)).at(-1);
}

/** The base of a chapter from what it imports: the latest chapter it takes names from, leaving
 *  out appendices it only runs whole (a6 runs a2 and a3; a7 builds on a5). */
export const baseOfImports = (imports: Map<string, ImportedName[]>) =>
  baseOf([...imports].filter(([, names]) => !names.every((n) => n.whole)).map(([id]) => id));

/** importedNames over several files (a chapter's lesson files, agent.ts first): each chapter
 *  once, in number order, its names in the order they are first met. */
export function importedNamesOfFiles(sources: readonly string[]): Map<string, ImportedName[]> {
  const merged = new Map<string, ImportedName[]>();
  for (const source of sources)
    for (const [chapter, names] of importedNames(source)) {
      const list = merged.get(chapter) ?? [];
      for (const n of names) {
        const seen = list.find((m) => m.name === n.name);
        if (!seen) list.push(n);
        else seen.type &&= n.type;
      }
      merged.set(chapter, list);
    }
  return new Map([...merged].sort(([a], [b]) => chapterRank(a) - chapterRank(b)));
}
