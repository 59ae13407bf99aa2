// a3 · Edits that land: an edit needs exactly one match, a patch applies whole or not at all, a
// file changed since the model read it is refused, and the checker's verdict rides in the result.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect, it } from "vitest";
import * as a3 from "../../chapters/a3-edits-that-land/agent.ts";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { playChapter } from "../../chapters/_runner/chapters.ts";
import type { Env } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { runTool } from "../../chapters/s02-tool-use/agent.ts";
import { budget } from "../support/budgets.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";
import { scriptedEnv, tempDir, toolNames, toolAt } from "../support/helpers.ts";

const SEED = 34;
const UNIT = budget({ unit: 1 });
const CHECKED = budget({ command: 2 });

let n = 0;
const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}_${++n}`, name, input }) as ToolUseBlock;

/** A workspace with `files`, and the a3 tools over it with a fresh ledger. */
function kit(files: Record<string, string> = {}) {
  const root = tempDir("lah-a3-");
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const ledger = new a3.ReadLedger();
  const handlers = a3.handlersFor(ledger);
  const run = (name: string, input: Record<string, unknown>) =>
    runTool(handlers, call(name, input), toolAt(root), a3.TOOLS);
  const text = (file: string) => readFileSync(path.join(root, file), "utf8");
  return { root, ledger, run, text };
}

describe("a3 edits that land", () => {
  it("offers s02's five tools and apply_patch, and answers to its id and slug", async () => {
    const env = scriptedEnv([say("hi")]);
    await a3.createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.a3.lead);
    expect(findChapter("a3")?.name).toBe("a3-edits-that-land");
    expect(findChapter("edits-that-land")?.id).toBe("a3");
  });

  describe("the scenario", () => {
    let env: Env;
    let ws: string;
    beforeAll(
      async () => {
        ws = tempDir("lah-a3-scenario-");
        ({ env } = await playChapter(findChapter("a3")!, ws));
      },
      budget({ chapterRun: 1, command: 6 }),
    );

    const results = (name: string) =>
      env.io.trace.flatMap((e) =>
        e.kind === "tool_result" && e.name === name ? [{ out: e.output, err: !!e.is_error }] : [],
      );

    it("plays to its end and leaves the files as the model meant them", () => {
      expect(env.scripted!.finished).toBe(true);
      const price = readFileSync(path.join(ws, "src/price.ts"), "utf8");
      expect(price).toContain("return amount * (1 + VAT_RATE);");
      // net kept its body: the ambiguous edit did not land on the first match.
      expect(price).toMatch(/net\(amount: number\): number \{\n {2}return amount;\n\}/);
      expect(readFileSync(path.join(ws, "src/report.ts"), "utf8")).toContain("total: string");
      expect(readFileSync(path.join(ws, "src/vat.ts"), "utf8")).toBe(
        "export const VAT_RATE = 0.2;\n",
      );
    });

    it("an ambiguous edit is refused with its line numbers, then fixed", () => {
      const [ambiguous, fixed] = results("edit");
      expect(ambiguous).toEqual({ err: true, out: expect.stringContaining("(lines 3, 8)") });
      expect(fixed.err).toBe(false);
      expect(fixed.out).toContain("Type check of src/price.ts: no errors.");
    });

    it("a patch to a file changed since it was read is refused whole, then lands after a read", () => {
      const [stale, landed] = results("apply_patch");
      expect(stale).toEqual({
        err: true,
        out: expect.stringContaining("changed since you last read it"),
      });
      expect(landed.err).toBe(false);
    });

    it("the type error the patch made is in the patch's result, and the repair checks clean", () => {
      const [, landed] = results("apply_patch");
      expect(landed.out).toContain("src/report.ts:4:14 error TS2322");
      expect(results("edit").at(-1)!.out).toContain("Type check of src/report.ts: no errors.");
    });

    it("reports each new version of a file the model saw, for the player's panel", () => {
      const versions = env.io.trace.flatMap((e) =>
        e.kind === "event" && e.type === "file_version" && e.data.path === "src/price.ts"
          ? [[e.data.version, e.data.by]]
          : [],
      );
      expect(versions).toEqual([
        [1, "read"],
        [2, "edit"],
        [3, "read"],
        [4, "apply_patch"],
      ]);
    });
  });

  describe("edit needs exactly one match", () => {
    // Texts in which `needle` sits at chosen lines, among lines that cannot contain it.
    const filler = fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 6 });
    const needle = "X_MARK();";
    const placed = fc.tuple(fc.array(filler, { minLength: 1, maxLength: 6 })).map(([chunks]) => {
      const lines: string[] = [];
      const at: number[] = [];
      chunks.forEach((chunk, i) => {
        lines.push(...chunk);
        if (i < chunks.length - 1 || chunks.length === 1) {
          lines.push(`  ${needle}`);
          at.push(lines.length);
        }
      });
      return { text: `${lines.join("\n")}\n`, at };
    });

    test.prop([placed], { seed: SEED, numRuns: 60 })(
      "one match is replaced; several change nothing and name every line; replace_all changes all",
      ({ text, at }) => {
        if (at.length === 1) {
          const { text: after } = a3.planEdit(text, needle, "Y();");
          expect(after).toBe(text.replace(needle, "Y();"));
        } else {
          expect(() => a3.planEdit(text, needle, "Y();")).toThrow(
            `matches ${at.length} places in the file (lines ${at.join(", ")})`,
          );
        }
        const all = a3.planEdit(text, needle, "Y();", true);
        expect(all).toEqual({ text: text.split(needle).join("Y();"), replaced: at.length });
      },
    );

    it("overlapping matches count as several places", () => {
      expect(a3.matchesOf("aaa", "aa")).toEqual([0, 1]);
      expect(() => a3.planEdit("aaa\n", "aa", "b")).toThrow("matches 2 places");
    });

    it(
      "a refused edit leaves the file byte for byte as it was",
      async () => {
        const before = "a();\nb();\na();\n";
        const { run, text } = kit({ "x.js": before });
        await run("read", { path: "x.js" });
        const out = await run("edit", { path: "x.js", old_text: "a();", new_text: "c();" });
        expect(out).toEqual({ isError: true, output: expect.stringContaining("(lines 1, 3)") });
        expect(text("x.js")).toBe(before);
        const all = await run("edit", {
          path: "x.js",
          old_text: "a();",
          new_text: "c();",
          replace_all: true,
        });
        expect(all.output).toContain("Edited x.js (2 places)");
        expect(text("x.js")).toBe("c();\nb();\nc();\n");
      },
      UNIT,
    );

    it("no match is an error that shows the lines most like old_text, numbered", () => {
      const file = "const a = 1;\nfunction total(items) {\n  return items.length;\n}\n";
      expect(() => a3.planEdit(file, "function totl(items) {\n  return items.size;", "x")).toThrow(
        /not in the file\. The lines most like it:\n\s+2 {2}function total\(items\) \{\n\s+3 {4}return items\.length;/,
      );
    });

    it("an empty old_text, or one equal to new_text, is a clear error", () => {
      expect(() => a3.planEdit("a", "", "b")).toThrow("old_text is empty");
      expect(() => a3.planEdit("a", "a", "a")).toThrow("nothing to change");
    });
  });

  describe("a file changed since the model last read it is refused", () => {
    it(
      "edit, write and apply_patch refuse a file never read, and one changed after the read",
      async () => {
        const { root, run, text } = kit({ "a.txt": "one\n" });
        const patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";
        for (const [name, input] of [
          ["edit", { path: "a.txt", old_text: "one", new_text: "two" }],
          ["write", { path: "a.txt", content: "two\n" }],
          ["apply_patch", { patch }],
        ] as const) {
          expect((await run(name, input)).output).toContain("read a.txt before you change it");
        }
        await run("read", { path: "a.txt" });
        writeFileSync(path.join(root, "a.txt"), "one!\n"); // someone else: a command, a person
        for (const [name, input] of [
          ["edit", { path: "a.txt", old_text: "one", new_text: "two" }],
          ["write", { path: "a.txt", content: "two\n" }],
          ["apply_patch", { patch }],
        ] as const) {
          const out = await run(name, input);
          expect(out).toEqual({
            isError: true,
            output: expect.stringContaining("changed since you last read it"),
          });
        }
        expect(text("a.txt")).toBe("one!\n");
        expect((await run("read", { path: "a.txt" })).output).toContain("(version 2)");
        expect(
          (await run("edit", { path: "a.txt", old_text: "one!", new_text: "two" })).isError,
        ).toBe(false);
      },
      UNIT,
    );

    it(
      "a change of the model's own counts as seen: it can edit twice without reading again",
      async () => {
        const { run, text } = kit({ "a.txt": "one two\n" });
        await run("read", { path: "a.txt" });
        await run("edit", { path: "a.txt", old_text: "one", new_text: "1" });
        const second = await run("edit", { path: "a.txt", old_text: "two", new_text: "2" });
        expect(second.isError).toBe(false);
        expect(text("a.txt")).toBe("1 2\n");
      },
      UNIT,
    );

    it(
      "one file under two spellings is one file",
      async () => {
        const { run } = kit({ "src/a.txt": "x\n" });
        await run("read", { path: "./src/../src/a.txt" });
        expect(
          (await run("edit", { path: "src/a.txt", old_text: "x", new_text: "y" })).isError,
        ).toBe(false);
      },
      UNIT,
    );

    it(
      "/files lists each file read with the version the model last saw",
      async () => {
        const ws = tempDir("lah-a3-");
        writeFileSync(path.join(ws, "a.txt"), "one\n");
        const env = scriptedEnv(
          [
            use("read", { path: "a.txt" }),
            use("edit", { path: "a.txt", old_text: "one", new_text: "two" }),
            say("done"),
          ],
          { workspace: ws },
        );
        const agent = a3.createAgent(env);
        expect(await agent.commands!.files.run("")).toBe("(no file read yet)");
        await agent.send("go");
        expect(await agent.commands!.files.run("")).toMatch(/^a\.txt {2}version 2 {2}[0-9a-f]{8}$/);
      },
      UNIT,
    );

    it(
      "creating a new file needs no read",
      async () => {
        const { run, text } = kit();
        expect((await run("write", { path: "new.txt", content: "hi\n" })).isError).toBe(false);
        expect(text("new.txt")).toBe("hi\n");
      },
      UNIT,
    );
  });

  describe("apply_patch applies all of a patch or none of it", () => {
    const files = { "a.txt": "1\n2\n3\n", "b.txt": "x\ny\nz\n" };
    const hunkA = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n";
    const hunkB = (old: string) =>
      `--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n x\n-${old}\n+why\n z\n`;
    const create = "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+new\n";

    it(
      "a multi-file patch lands in every file, and creates the new one",
      async () => {
        const { run, text } = kit(files);
        await run("read", { path: "a.txt" });
        await run("read", { path: "b.txt" });
        const out = await run("apply_patch", { patch: create + hunkA + hunkB("y") });
        expect(out).toEqual({ isError: false, output: "Patched c.txt, a.txt, b.txt" });
        expect([text("a.txt"), text("b.txt"), text("c.txt")]).toEqual([
          "1\ntwo\n3\n",
          "x\nwhy\nz\n",
          "new\n",
        ]);
      },
      UNIT,
    );

    // Whichever part of the patch does not fit (and wherever it sits), no file changes.
    test.prop([fc.constantFrom(0, 1, 2), fc.constantFrom("q", "Y", "y ", "")], {
      seed: SEED,
      numRuns: 12,
    })(
      "one hunk that does not match changes no file and creates none",
      async (brokenAt, wrongLine) => {
        const { root, run, text } = kit(files);
        await run("read", { path: "a.txt" });
        await run("read", { path: "b.txt" });
        const parts = [create, hunkA, hunkB("y")];
        parts.splice(brokenAt, 0, hunkB(wrongLine).replace(/b\.txt/g, "a.txt"));
        const out = await run("apply_patch", { patch: parts.join("") });
        expect(out.isError).toBe(true);
        expect(out.output).toMatch(/does not match the file|changes a\.txt twice/);
        expect([text("a.txt"), text("b.txt")]).toEqual([files["a.txt"], files["b.txt"]]);
        expect(existsSync(path.join(root, "c.txt"))).toBe(false);
      },
    );

    it("names the hunk that does not fit", () => {
      const patch = `--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n@@ -3,1 +3,1 @@\n-nope\n+three\n`;
      expect(() => a3.planPatch(patch, () => files["a.txt"])).toThrow(
        "hunk 2 of a.txt (@@ -3,1 +3,1 @@) does not match the file",
      );
    });

    it("tolerates hunk line numbers that are off, never context that differs", () => {
      const patch = "--- a/a.txt\n+++ b/a.txt\n@@ -7,3 +7,3 @@\n 1\n-2\n+two\n 3\n";
      expect(a3.planPatch(patch, () => files["a.txt"])[0].after).toBe("1\ntwo\n3\n");
    });

    it("refuses what it cannot do whole, with a clear error: text that is no patch, deletes, renames, a file created twice", () => {
      const read = (file: string) => (file === "a.txt" ? files["a.txt"] : undefined);
      expect(() => a3.planPatch("please change line 2", read)).toThrow("changes nothing");
      expect(() =>
        a3.planPatch("--- a/a.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-1\n-2\n-3\n", read),
      ).toThrow("does not delete");
      expect(() => a3.planPatch(hunkA.replace("+++ b/a.txt", "+++ b/z.txt"), read)).toThrow(
        "does not rename",
      );
      expect(() => a3.planPatch(create.replace(/c\.txt/, "a.txt"), read)).toThrow("exists already");
      expect(() => a3.planPatch(hunkA.replace(/a\.txt/g, "gone.txt"), read)).toThrow(
        "does not exist",
      );
    });
  });

  describe("the checker's verdict rides in the result", () => {
    it(
      "a type error an edit causes is in that edit's result",
      async () => {
        const { run } = kit({ "n.ts": "export const n: number = 1;\n" });
        await run("read", { path: "n.ts" });
        const out = await run("edit", { path: "n.ts", old_text: "= 1", new_text: '= "one"' });
        expect(out.isError).toBe(false);
        expect(out.output).toContain(
          "n.ts:1:14 error TS2322: Type 'string' is not assignable to type 'number'.",
        );
      },
      CHECKED,
    );

    it(
      "reports the changed files only, not errors that were there before elsewhere",
      async () => {
        const { run } = kit({
          "old.ts": 'export const broken: number = "already";\n',
          "new.ts": "export const ok = 1;\n",
        });
        await run("read", { path: "new.ts" });
        const out = await run("edit", { path: "new.ts", old_text: "1", new_text: "2" });
        expect(out.output).toContain("Type check of new.ts: no errors.");
      },
      CHECKED,
    );

    it(
      "for other files runs the command .checks.json names, with the files as quoted arguments",
      async () => {
        const hostile = "it's $(touch pwned).md";
        const { root, run } = kit({
          ".checks.json": JSON.stringify({ command: "printf 'checked <%s>\\n'" }),
          [hostile]: "# hi\n",
        });
        await run("read", { path: hostile });
        const out = await run("edit", { path: hostile, old_text: "hi", new_text: "hello" });
        expect(out.output).toContain(`Checker (printf 'checked <%s>\\n') on ${hostile}: exit 0`);
        expect(out.output).toContain(`checked <${hostile}>`);
        expect(existsSync(path.join(root, "pwned"))).toBe(false);
      },
      CHECKED,
    );

    it(
      "a checker that runs too long is stopped, and its verdict called unknown",
      async () => {
        const root = tempDir("lah-a3-");
        writeFileSync(
          path.join(root, ".checks.json"),
          JSON.stringify({ command: "while :; do :; done;" }),
        );
        writeFileSync(path.join(root, "a.md"), "x\n");
        const out = await a3.runChecks(toolAt(root), ["a.md"], { timeoutMs: 200 });
        expect(out).toContain("stopped after 0.2 s; its verdict is unknown");
      },
      CHECKED,
    );

    it(
      "a broken .checks.json is named in the result of the change, which is made",
      async () => {
        const { run, text } = kit({ ".checks.json": "{ nope", "a.md": "x\n" });
        await run("read", { path: "a.md" });
        const out = await run("edit", { path: "a.md", old_text: "x", new_text: "y" });
        expect(out.isError).toBe(false);
        expect(out.output).toMatch(/^Edited a\.md\n\nChecker: \.checks\.json is not JSON/);
        expect(text("a.md")).toBe("y\n");
      },
      UNIT,
    );
  });

  describe("the attacker's cases", () => {
    it(
      "a patch to a path outside the workspace, or through a symlink out of it, writes nothing",
      async () => {
        const outside = tempDir("lah-a3-outside-");
        writeFileSync(path.join(outside, "secret.txt"), "s\n");
        const { root, run, text } = kit({ "a.txt": "1\n2\n3\n" });
        symlinkSync(outside, path.join(root, "link"));
        await run("read", { path: "a.txt" });
        const good = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n";
        for (const target of ["../x.txt", `${outside}/new.txt`, "link/new.txt"]) {
          const evil = `--- /dev/null\n+++ b/${target}\n@@ -0,0 +1 @@\n+pwned\n`;
          const out = await run("apply_patch", { patch: good + evil });
          expect(out.isError).toBe(true);
          expect(out.output).toMatch(/escapes the workspace/);
        }
        const change = "--- a/link/secret.txt\n+++ b/link/secret.txt\n@@ -1 +1 @@\n-s\n+pwned\n";
        expect((await run("apply_patch", { patch: change })).output).toMatch(
          /escapes the workspace/,
        );
        expect(text("a.txt")).toBe("1\n2\n3\n");
        expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("s\n");
        expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
      },
      UNIT,
    );

    it(
      "an edit through a symlink out of the workspace is refused before anything is read",
      async () => {
        const outside = tempDir("lah-a3-outside-");
        writeFileSync(path.join(outside, "t.txt"), "t\n");
        const { root, run } = kit();
        symlinkSync(path.join(outside, "t.txt"), path.join(root, "t.txt"));
        const out = await run("edit", { path: "t.txt", old_text: "t", new_text: "u" });
        expect(out.output).toMatch(/escapes the workspace/);
        expect(readFileSync(path.join(outside, "t.txt"), "utf8")).toBe("t\n");
      },
      UNIT,
    );

    it(
      "a file name with quotes and $( ) reaches the type check as a name, not as code",
      async () => {
        const name = "a'$(touch pwned)'.ts";
        const { root, run } = kit({ [name]: "export const a: number = 1;\n" });
        await run("read", { path: name });
        const out = await run("edit", { path: name, old_text: "1", new_text: "2" });
        expect(out.output).toContain(`Type check of ${name}: no errors.`);
        expect(existsSync(path.join(root, "pwned"))).toBe(false);
      },
      CHECKED,
    );
  });
});
