// a3's exercises: rebuild the one-match edit and the all-or-nothing patch; extend edit with the
// number of matches the model expects (Gemini CLI's choice). The behaviours are the curriculum's
// for a3, and tests/chapters/a3-edits-that-land.test.ts runs them against the chapter's own code.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sandboxFor } from "../../_shared/shell.ts";
import type { ToolUseBlock } from "../../_shared/types.ts";
import type * as A3 from "../agent.ts";
import { runTool } from "../../s02-tool-use/agent.ts";
import {
  change,
  expectThat,
  NOT_STARTED,
  refusal,
  type Check,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof A3;

const NEEDLE = "X_MARK();";

/** A text with NEEDLE alone on some lines (their numbers, 1-based, in `at`) among lines that
 *  cannot contain it. */
export const placedNeedles = fc
  .array(fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 4 }), {
    minLength: 1,
    maxLength: 5,
  })
  .chain((chunks) =>
    fc.boolean().map((startWithOne) => {
      const lines: string[] = [];
      const at: number[] = [];
      chunks.forEach((chunk, i) => {
        lines.push(...chunk);
        if (i > 0 || startWithOne || chunks.length === 1) {
          lines.push(`  ${NEEDLE}`);
          at.push(lines.length);
        }
      });
      return { text: `${lines.join("\n")}\n`, at };
    }),
  );

const describe = (text: string) =>
  JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}…` : text);

// new_text is taken as it is: "$&", "$'" and "$$" mean something to String.replace, not here.
const NEW = "Y($&$'$$);";

export const oneMatchRule: Check<M> = {
  id: "one-match-or-refused",
  run: async (module) => {
    // Two places that overlap are still two places the model could mean.
    const overlap = refusal(() => module.planEdit("aaa\n", "aa", "b"));
    expectThat(overlap !== undefined, "overlap-landed", {});
    await forAll(placedNeedles, ({ text, at }) => {
      if (at.length === 1) {
        let after: string | undefined;
        const error = refusal(() => (after = module.planEdit(text, NEEDLE, NEW).text));
        expectThat(after === text.split(NEEDLE).join(NEW), "one-match-not-replaced", {
          text: describe(text),
          got: error ?? describe(after ?? ""),
        });
        return;
      }
      const error = refusal(() => module.planEdit(text, NEEDLE, NEW));
      expectThat(error !== undefined, "ambiguous-edit-landed", {
        text: describe(text),
        count: at.length,
      });
      const named = at.every((line) => new RegExp(`\\b${line}\\b`).test(error));
      expectThat(named, "lines-not-named", { lines: at.join(", "), error });
    });
  },
};

export const replaceAllRule: Check<M> = {
  id: "replace-all-every-one",
  run: (module) =>
    forAll(placedNeedles, ({ text, at }) => {
      let all: { text: string; replaced: number } | undefined;
      refusal(() => (all = module.planEdit(text, NEEDLE, NEW, true)));
      expectThat(
        all?.text === text.split(NEEDLE).join(NEW) && all.replaced === at.length,
        "replace-all-wrong",
        { count: at.length, got: JSON.stringify(all) ?? "an error" },
      );
      // No match at all is a mistaken old_text, replace_all or not: "replaced 0" hides it.
      const none = refusal(() => module.planEdit(text, "Z_ABSENT();", NEW, true));
      expectThat(none !== undefined, "replace-all-none-landed", { text: describe(text) });
    }),
};

export const noOpRefused: Check<M> = {
  id: "same-text-refused",
  run: (module) =>
    forAll(placedNeedles, ({ text }) => {
      // An edit that changes nothing is the model's mistake, not a success to report; and an
      // empty old_text names no place at all (it is "found" between every two characters, or
      // once in an empty file), so it is refused whatever the file holds.
      for (const replaceAll of [false, true]) {
        const error = refusal(() => module.planEdit(text, NEEDLE, NEEDLE, replaceAll));
        expectThat(error !== undefined, "same-text-landed", {
          text: describe(text),
          replaceAll: String(replaceAll),
        });
        for (const file of [text, ""]) {
          const empty = refusal(() => module.planEdit(file, "", NEW, replaceAll));
          expectThat(empty !== undefined, "empty-old-landed", {
            text: describe(file),
            replaceAll: String(replaceAll),
          });
        }
      }
    }),
};

export const nearestLinesShown: Check<M> = {
  id: "no-match-shows-nearest",
  run(module) {
    const file = "const a = 1;\nfunction total(items) {\n  return items.length;\n}\n";
    const error = refusal(() => module.planEdit(file, "function totl(items) {", "x"));
    expectThat(error !== undefined, "missing-edit-landed", {});
    expectThat(
      /\b2\b/.test(error) && error.includes("function total(items) {"),
      "nearest-missing",
      {
        error,
      },
    );
  },
};

const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}`, name, input }) as ToolUseBlock;

const FILES = { "a.txt": "1\n2\n3\n", "b.txt": "x\ny\nz\n", "d.txt": "1\n2\n3\n4\n5\n6\n7\n" };
const CHANGE_A = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n";
const changeB = (old: string) =>
  `--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n x\n-${old}\n+why\n z\n`;
const CREATE_C = "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+new\n";

/** A workspace holding FILES, read through the module's own handlers. */
async function readWorkspace(module: M, root: string) {
  for (const [file, text] of Object.entries(FILES)) writeFileSync(path.join(root, file), text);
  const handlers = module.handlersFor(new module.ReadLedger());
  const run = async (name: string, input: Record<string, unknown>) => {
    const out = await runTool(
      handlers,
      call(name, input),
      { root, sandbox: sandboxFor(root) },
      module.TOOLS,
    );
    // A blank still to be written: not started, not a failure of the rule.
    if (out.output.includes(NOT_STARTED)) throw new Error(out.output.replace(/^Error: /, ""));
    return out;
  };
  for (const file of Object.keys(FILES)) await run("read", { path: file });
  const text = (file: string) => readFileSync(path.join(root, file), "utf8");
  return { run, text };
}

/** Lines `git diff` writes around a file's change that change no text themselves: its
 *  `diff --git` line before each file, and last a file whose mode alone changed (a header that
 *  names no file's text). */
const gitLine = (part: string) =>
  part.replace(/^--- (?:a\/|\/dev\/null)[^\n]*\n\+\+\+ b\/([^\n]*)\n/, "diff --git a/$1 b/$1\n$&");
const MODE_ONLY = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";

export const patchLands: Check<M> = {
  id: "patch-lands",
  async run(module, kit) {
    await forAll(
      fc.record({ git: fc.boolean(), modeOnly: fc.boolean(), order: fc.nat(5) }),
      async ({ git, modeOnly, order }) => {
        const root = kit.workspace();
        const { run, text } = await readWorkspace(module, root);
        const parts = [CREATE_C, CHANGE_A, changeB("y")];
        parts.push(...parts.splice(0, order % 3));
        if (order > 2) parts.reverse();
        const patch =
          parts.map((p) => (git ? gitLine(p) : p)).join("") + (modeOnly ? MODE_ONLY : "");
        const out = await run("apply_patch", { patch });
        const got = [
          text("a.txt"),
          text("b.txt"),
          existsSync(path.join(root, "c.txt")) && text("c.txt"),
        ];
        expectThat(
          !out.isError && got.join("|") === "1\ntwo\n3\n|x\nwhy\nz\n|new\n",
          "patch-not-applied",
          { patch: JSON.stringify(patch), result: out.output, files: JSON.stringify(got) },
        );
      },
      { runs: 8 },
    );
    // The handler removes a created file when a later write fails; it knows one by before.
    const plan = module.planPatch(CREATE_C + CHANGE_A, (file) =>
      file === "a.txt" ? FILES["a.txt"] : undefined,
    );
    const befores = plan.map((p) => p.before);
    expectThat(
      befores.length === 2 && befores[0] === undefined && befores[1] === FILES["a.txt"],
      "created-before-set",
      { befores: JSON.stringify(plan.map((p) => ({ path: p.path, before: p.before ?? null }))) },
    );
  },
};

export const patchAllOrNothing: Check<M> = {
  id: "patch-all-or-nothing",
  run: (module, kit) =>
    forAll(
      fc.record({ at: fc.integer({ min: 0, max: 3 }), wrong: fc.constantFrom("q", "Y", "y ") }),
      async ({ at, wrong }) => {
        const root = kit.workspace();
        const { run, text } = await readWorkspace(module, root);
        const parts = [CREATE_C, CHANGE_A, changeB(wrong)];
        // The part that does not fit (b.txt's hunk with a wrong line) sits anywhere in the patch.
        parts.splice(2, 1);
        parts.splice(at % 3, 0, changeB(wrong));
        const patch = parts.join("");
        const out = await run("apply_patch", { patch });
        const untouched =
          text("a.txt") === FILES["a.txt"] &&
          text("b.txt") === FILES["b.txt"] &&
          !existsSync(path.join(root, "c.txt"));
        expectThat(untouched, "patch-half-applied", {
          patch: JSON.stringify(patch),
          result: out.output,
        });
        expectThat(out.isError, "misfit-reported-done", {
          patch: JSON.stringify(patch),
          result: out.output,
        });
        expectThat(out.output.includes("b.txt"), "refusal-unnamed-file", {
          patch: JSON.stringify(patch),
          file: "b.txt",
          result: out.output,
        });
      },
      { runs: 8 },
    ),
};

/** Patches apply_patch must refuse whole, each beside parts that would fit: what it cannot do
 *  (delete), what would lose text (create over a file, change one file twice) and what does
 *  not match exactly (a context line off, which fuzz would accept), or a patch of nothing. */
const REFUSED: Record<string, (wrong: string) => string[]> = {
  deletes: () => [CHANGE_A, "--- a/b.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-x\n-y\n-z\n"],
  "creates a file that exists": () => [
    CHANGE_A,
    "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n",
  ],
  "changes a file twice": () => [
    CHANGE_A,
    "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n 2\n-3\n+three\n",
  ],
  "has a context line that does not match": (wrong) => [
    CHANGE_A,
    `--- a/d.txt\n+++ b/d.txt\n@@ -2,5 +2,5 @@\n 2\n 3\n-4\n+four\n 5\n ${wrong}\n`,
  ],
  "has no hunks": (wrong) => [`${wrong}\n`, "--- a/a.txt\n+++ b/a.txt\n"],
  // A header with no change under it: the model meant to change a.txt and the hunks are lost.
  "names a file with no hunks": () => [changeB("y"), "--- a/a.txt\n+++ b/a.txt\n"],
  "is no diff at all": (wrong) => [`${wrong}\n`],
  // b.txt renamed to d.txt, its hunk fitting d.txt: applied, it would change d.txt instead.
  renames: () => [CHANGE_A, "--- a/b.txt\n+++ b/d.txt\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n"],
  // A change (not a creation) to a file that is not there, with a hunk that only adds lines.
  // A hunk with no file header above it: which file it was meant for, nothing says.
  "has a hunk under no file header": (wrong) => [
    CHANGE_A,
    `@@ -1,3 +1,3 @@\n x\n-y\n+${wrong}\n z\n`,
  ],
  "changes a file that does not exist": (wrong) => [
    CHANGE_A,
    `--- a/e.txt\n+++ b/e.txt\n@@ -0,0 +1 @@\n+${wrong}\n`,
  ],
};

/** The file each refused patch must name: the handler shows the model the error, and the model
 *  must know which part to write again. */
const REFUSED_FILE: Record<string, string | undefined> = {
  deletes: "b.txt",
  "creates a file that exists": "b.txt",
  "changes a file twice": "a.txt",
  "has a context line that does not match": "d.txt",
  "has no hunks": undefined,
  "names a file with no hunks": "a.txt",
  "is no diff at all": undefined,
  renames: "b.txt",
  "changes a file that does not exist": "e.txt",
  "has a hunk under no file header": undefined,
};

export const patchRefused: Check<M> = {
  id: "patch-refused",
  run: (module, kit) =>
    forAll(
      // Every kind in every case: each is one rule, and a sample could leave one out.
      fc.record({
        wrong: fc.constantFrom("9", "6 ", "six"),
        create: fc.boolean(),
        first: fc.boolean(),
      }),
      async ({ wrong, create, first }) => {
        for (const [kind, partsOf] of Object.entries(REFUSED)) {
          const root = kit.workspace();
          const { run, text } = await readWorkspace(module, root);
          const parts = partsOf(wrong);
          if (first) parts.reverse();
          if (create && kind !== "is no diff at all") parts.push(CREATE_C);
          const patch = parts.join("");
          const out = await run("apply_patch", { patch });
          const untouched =
            Object.entries(FILES).every(([file, was]) => text(file) === was) &&
            !existsSync(path.join(root, "c.txt"));
          expectThat(untouched, "refused-patch-changed-files", {
            patch: JSON.stringify(patch),
            result: out.output,
          });
          expectThat(out.isError, "refused-patch-reported-done", {
            patch: JSON.stringify(patch),
            result: out.output,
          });
          const file = REFUSED_FILE[kind];
          if (file)
            expectThat(out.output.includes(file), "refusal-unnamed-file", {
              patch: JSON.stringify(patch),
              file,
              result: out.output,
            });
        }
      },
      { runs: 6 },
    ),
};

// The extend: edit takes expected_matches, the number of places the model means.
const EXPECTED_FIELD = `      replace_all: { type: "boolean" },
      expected_matches: { type: "integer" },`;
const EXPECTED_RULE = `  if (expected !== undefined && found.length !== expected) {
    const lines = [...new Set(found.map((at) => lineAt(text, at)))];
    throw new Error(
      \`old_text matches \${found.length} places in \${shown} (lines \${lines.join(", ")}), not \` +
        \`the \${expected} you expected: nothing was changed.\`,
    );
  }
  if (replaceAll || expected !== undefined) {`;

export const expectedMatches: Check<M> = {
  id: "expected-matches",
  async run(module, kit) {
    const edit = module.TOOLS.find((t) => t.name === "edit");
    const offered = Object.keys(edit?.input_schema.properties ?? {});
    expectThat(offered.includes("expected_matches"), "no-expected-field", {
      fields: offered.join(", "),
    });
    await forAll(
      placedNeedles.chain((placed) =>
        fc.integer({ min: 1, max: 6 }).map((expected) => ({ ...placed, expected })),
      ),
      async ({ text, at, expected }) => {
        const root = kit.workspace();
        writeFileSync(path.join(root, "f.txt"), text);
        const handlers = module.handlersFor(new module.ReadLedger());
        const run = (name: string, input: Record<string, unknown>) =>
          runTool(handlers, call(name, input), { root, sandbox: sandboxFor(root) }, module.TOOLS);
        await run("read", { path: "f.txt" });
        const out = await run("edit", {
          path: "f.txt",
          old_text: NEEDLE,
          new_text: "Y();",
          expected_matches: expected,
        });
        const now = readFileSync(path.join(root, "f.txt"), "utf8");
        if (expected === at.length)
          expectThat(
            !out.isError && now === text.split(NEEDLE).join("Y();"),
            "expected-not-replaced",
            {
              count: at.length,
              result: out.output,
            },
          );
        else
          expectThat(
            out.isError && now === text && at.every((l) => out.output.includes(String(l))),
            "expected-wrong-count-landed",
            {
              count: at.length,
              expected,
              result: out.output,
            },
          );
      },
      { runs: 20 },
    );
  },
};

export const exercises: Exercise<M>[] = [
  {
    id: "a3",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "planEdit",
        contract: [
          "The text after replacing oldText by newText, and how many places were replaced.",
          "Exactly one match (matchesOf counts overlapping ones) is replaced. None: throw an Error",
          "with nearestLines(text, oldText). Several: throw an Error naming every match's line",
          "number (lineAt), unless replaceAll, which replaces every match. An empty oldText, or",
          "one equal to newText, is an Error too.",
        ].join("\n"),
      },
      {
        name: "planPatch",
        contract: [
          "Every file a unified diff changes, as { path, before, after }, computed in memory:",
          "parsePatch, then applyPatch(before, file, { fuzzFactor: 0 }) per file (patchPaths gives",
          "its path; read(path) its text now, undefined if none; an entry naming no file and no",
          "hunk, such as git's line for a mode change, is no file). If any file does not fit, or the",
          "patch deletes, renames, creates a file that exists, changes one twice or one that is",
          "not there, names one with no hunks or changes nothing, throw an Error naming the file:",
          "the handler then writes nothing at all.",
        ].join("\n"),
      },
    ],
    checks: [
      oneMatchRule,
      replaceAllRule,
      noOpRefused,
      nearestLinesShown,
      patchLands,
      patchAllOrNothing,
      patchRefused,
    ],
  },
  {
    id: "a3.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      edit: (reference) =>
        change(
          '  replaceAll = false,\n  shown = "the file",\n): { text: string; replaced: number } {',
          '  replaceAll = false,\n  shown = "the file",\n  expected?: number,\n): { text: string; replaced: number } {',
        )(change("  if (replaceAll) {", EXPECTED_RULE)(reference)),
      tools: change('      replace_all: { type: "boolean" },', EXPECTED_FIELD),
      handlers: (reference) =>
        change(
          "async edit({ path: p, old_text, new_text, replace_all }, { root, sandbox }) {",
          "async edit({ path: p, old_text, new_text, replace_all, expected_matches }, { root, sandbox }) {",
        )(
          change(
            "replace_all === true,\n          String(p),\n        );",
            'replace_all === true,\n          String(p),\n          typeof expected_matches === "number" ? expected_matches : undefined,\n        );',
          )(reference),
        ),
    },
    checks: [expectedMatches, oneMatchRule],
  },
];
