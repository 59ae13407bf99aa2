// Pages that cannot go stale by naming things (issue 33): every page, in every locale, and the README
// and docs name tests, files, functions and flags. Each such name is checked against the code, so a
// rename that leaves a page behind fails here instead of misleading a reader. No build needed.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { EXERCISES } from "../../chapters/_exercises/catalog.ts";

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");
const files = (patterns: string[]) =>
  globSync(patterns, {
    cwd: REPO_ROOT,
    ignore: ["**/node_modules/**", "chapters/*/workspace/**", ".workspace/**", "workbench/**"],
  }).sort();

const PAGES = files(["chapters/**/*.mdx", "site/**/*.mdx", "README.md", "docs/*.md"]);
/** Everything a page may name: the code, the tests, the scripts and the project's config. */
const CODE = files([
  "chapters/**/*.{ts,js,mjs,json,yaml}",
  "site/**/*.{ts,js,mjs,astro}",
  "tests/**/*.ts",
  "*.{json,mjs,ts}",
  ".ci/run",
])
  .map(read)
  .join("\n");

/** Names a page may use that live outside this repository's code: the protocols and tools it
 *  explains. Each with why, so the list stays short. */
const EXTERNAL = new Map([
  ["readOnlyHint", "an MCP tool annotation (the MCP specification)"],
  ["listChanged", "an MCP server capability (the MCP specification)"],
  ["includeIf", "a git config section (git-config(1))"],
]);

/** The text inside `backticks` on a page, with the page. */
function codeSpans(): { page: string; span: string }[] {
  return PAGES.flatMap((page) =>
    [...read(page).matchAll(/`([^`\n]+)`/g)].map((m) => ({ page, span: m[1] })),
  );
}

/** A file the chapter's own run makes in its workspace (s15's teammate writes tests/slug.test.js). */
function writtenByScenario(page: string, file: string): boolean {
  const scenario = path.join(path.dirname(page), "scenario.ts");
  return page.startsWith("chapters/") && existsSync(path.join(REPO_ROOT, scenario))
    ? read(scenario).includes(file)
    : false;
}

/** "The test "…"" in each locale's own quotation marks. */
const TEST_TITLE = [
  /\b[Tt]he test "([^"\n]+)"/g,
  /\bDer Test „([^“\n]+)“/g,
  /テスト「([^」\n]+)」/g,
  /测试“([^”\n]+)”/g,
];

describe("page claims: what a page names exists", () => {
  it("every file path a page names exists (placeholders like sNN or <id> aside)", () => {
    const missing: string[] = [];
    let checked = 0;
    for (const { page, span } of codeSpans())
      for (const m of span.matchAll(
        /\b((?:chapters|tests|site|docs|i18n|assets|\.ci)\/[\w./@-]+?\.(?:ts|js|mjs|json|yaml|md|mdx|svg))(?![\w])/g,
      )) {
        const file = m[1];
        if (/sNN|<|\bNN\b/.test(file)) continue;
        checked++;
        if (existsSync(path.join(REPO_ROOT, file)) || writtenByScenario(page, file)) continue;
        missing.push(`${page}: ${file}`);
      }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(100); // the check looked at something
  });

  it("every function, constant or variable a page names in code style is in the code", () => {
    const missing: string[] = [];
    let checked = 0;
    for (const { page, span } of codeSpans())
      for (const m of span.matchAll(
        /(?<![\w.$-])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)(?![\w-])/g,
      )) {
        const name = m[1];
        if (EXTERNAL.has(name)) continue;
        checked++;
        // `LC_CTYPE` is built as `LC_${category}`: look for the category.
        const needle = name.startsWith("LC_") ? `"${name.slice(3)}"` : name;
        // `GIT_AUTHOR_*` names a family: its prefix must be in the code.
        const end = needle.endsWith("_") ? "" : "(?![\\w$])";
        if (!new RegExp(`(?<![\\w$])${needle.replace(/[$]/g, "\\$")}${end}`).test(CODE))
          missing.push(`${page}: ${name}`);
      }
    expect([...new Set(missing)]).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });

  it('every test a page names by its title exists ("behaviour: <check>" is a check of an exercise)', () => {
    const checks = new Set(EXERCISES.flatMap((e) => e.checks.map((c) => c.id)));
    const tests = files(["tests/**/*.ts"]).map(read).join("\n");
    const missing: string[] = [];
    let checked = 0;
    for (const page of PAGES)
      for (const m of TEST_TITLE.flatMap((pattern) => [...read(page).matchAll(pattern)])) {
        const title = m[1];
        checked++;
        const ok = title.startsWith("behaviour: ")
          ? checks.has(title.slice("behaviour: ".length))
          : tests.includes(title);
        if (!ok) missing.push(`${page}: ${title}`);
      }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(4); // s11's exercise hint, in four locales
  });

  it("every flag a page passes to npm run chapter or npm run exercise is one the command's --help lists", () => {
    const help = (args: string[]) =>
      execFileSync(process.execPath, args, { cwd: REPO_ROOT, encoding: "utf8" });
    const known = {
      chapter: help(["chapters/_runner/cli.js", "--help"]),
      exercise: help(["--import", "tsx", "chapters/_exercises/cli.ts", "--help"]),
    };
    const unknown: string[] = [];
    let checked = 0;
    for (const page of PAGES)
      for (const m of read(page).matchAll(/npm run (chapter|exercise)\b([^`\n]*)/g)) {
        const command = m[1] as keyof typeof known;
        for (const [flag] of m[2].matchAll(/(?<=\s)--[a-z][a-z-]*/g)) {
          checked++;
          if (!new RegExp(`(^|\\s)${flag}\\b`, "m").test(known[command]))
            unknown.push(`${page}: npm run ${command} … ${flag}`);
        }
      }
    expect(unknown).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});
