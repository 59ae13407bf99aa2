// Independent attack 2: what the person sees when asked. Filed as open; it passed on the code when
// issue 32's fixes began (question.ts fits every question to its terminal), and fails with that
// fitting switched off — so it moved here from tests/open-doors/.
import { budget } from "../support/budgets.ts";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import xterm from "@xterm/headless";
import { afterEach, describe, expect, it } from "vitest";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import { endTurn, startFakeApi, toolUse, type FakeApi } from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { hasPseudoTerminal, runCliInTerminal } from "../support/terminal.ts";

const { Terminal } = xterm;

/** The 40 rows a 120×40 terminal shows once `output` is written: what the person sees. */
async function viewport(output: string): Promise<string[]> {
  const term = new Terminal({ cols: 120, rows: 40, scrollback: 5000, allowProposedApi: true });
  await new Promise<void>((done) => term.write(output, done));
  const buffer = term.buffer.active;
  const rows: string[] = [];
  for (let y = buffer.baseY; y < buffer.baseY + 40; y++)
    rows.push(buffer.getLine(y)?.translateToString(true) ?? "");
  term.dispose();
  return rows;
}

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe.runIf(hasPseudoTerminal)("attack2: the permission question", () => {
  // Plan: visible() shows control and format characters, and the question is one line — but a
  // line as long as the model likes. Spaces are ordinary characters: `touch pwned.txt;` then
  // 6,000 spaces, then `ls -la`. The question wraps over 50 rows of a 120×40 terminal; its head
  // (`? Allow bash "touch pwned.txt;`) and the tool line above it scroll away, and what the
  // person sees is blank rows ending in `ls -la"? [yes/no/always]`. (The threat model's open
  // door is text padded to the width to start a line at column 0; this is the real question
  // padded until its subject is off the screen.)
  it(
    "the question shows what will run, whatever padding the command holds (s07, real CLI)",
    async () => {
      const ws = tempDir();
      prepareWorkspace(ws);
      writeFileSync(
        path.join(stateDirFor(ws), "permissions.json"),
        JSON.stringify({ mode: "default", allow: [], deny: [] }),
      );
      const command = `touch pwned.txt;${" ".repeat(6000)}ls -la`;
      api = await startFakeApi([toolUse("bash", { command }), endTurn("done")]);
      const run = runCliInTerminal(["s07", "--workspace", ws], {
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: api.url,
      });
      await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
      run.type("list the files\r");
      await run.waitForScreen(
        () => /ls -la"\? \[yes\/no\/always\]/.test(run.output()),
        "the question",
      );
      const seen = (await viewport(run.output())).join("\n");
      run.type("no\r");
      await run.waitForScreen((s) => s.lines.some((l) => l.includes("done")), "the end");
      run.type("q\r");
      await run.exited;
      expect(existsSync(path.join(ws, "pwned.txt"))).toBe(false);
      expect(seen).toMatch(/ls -la"\? \[yes\/no\/always\]/); // the question is on screen…
      expect(seen).toContain("touch pwned.txt"); // …and so is what it would run
    },
    budget({ cli: 4 }),
  );
});
