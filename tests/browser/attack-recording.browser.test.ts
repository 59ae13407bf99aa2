// Attack (independent tester): a recording that passes the schema but whose tool input has a
// shape the panels do not expect. `tool_call.input` is "any JSON" (recording.ts's `present`), and
// a real model may well send a malformed call (the tool refuses it, the step still records what
// was sent). run-state.ts reads `item.status` for every todo item and trace-sequence.ts calls
// String() on a spawn's name: a null item, or a name whose toString is not a function, throws in
// the worker, and the whole recording is refused with a raw JavaScript error ("could not be
// read: Cannot read properties of null (reading 'status')") — nothing of the run is shown.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordingHeader } from "../support/recordings.ts";
import { hasChromium } from "../support/chromium.ts";
import { siteForSuite, visit } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

const site = siteForSuite({ when: hasChromium });
const dir = mkdtempSync(path.join(tmpdir(), "lah-attack-open-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const header = (chapter: string, name: string) =>
  recordingHeader({ chapter, name, title: name, model: "claude-test" });

describe.skipIf(!hasChromium)("attack: schema-valid tool inputs of an unexpected shape", () => {
  for (const [what, chapter, name, input] of [
    ["a todo call with a null item", "s03", "s03-todo-write", { items: [null] }],
    ["a spawn whose name is an object", "s13", "s13-agent-teams", { name: { toString: 1 } }],
  ] as const)
    it(`${what}: the run is shown, not refused with a JavaScript error`, async () => {
      const file = path.join(dir, `${chapter}.jsonl`);
      const steps = [
        { kind: "user", agent: "lead", text: "hello" },
        {
          kind: "tool_call",
          agent: "lead",
          id: "t1",
          name: name.startsWith("s03") ? "todo" : "spawn",
          input,
        },
        {
          kind: "tool_result",
          agent: "lead",
          id: "t1",
          name: "todo",
          output: "Error: bad input",
          is_error: true,
        },
        { kind: "response", agent: "lead", stop_reason: "end_turn", text: "done", calls: [] },
      ];
      writeFileSync(
        file,
        [header(chapter, name), ...steps.map((s) => JSON.stringify(s))].join("\n") + "\n",
      );
      const page = await site.tab();
      expect(await visit(page, `${site.server.url}/open/`)).toEqual([]);
      await page.setInputFiles(".lah-open input[type=file]", file);
      await page.waitForFunction(
        () =>
          ["done", "failed"].includes(
            document.querySelector<HTMLElement>(".lah-open")!.dataset.state ?? "",
          ),
        null,
        { timeout: budget({ evaluate: 10 }) }, // a few hundred steps, read in the page's worker
      );
      const problem = (await page.locator(".lah-open-problem").textContent()) ?? "";
      // Seen: state "failed", problem "s03.jsonl could not be read: Cannot read properties of
      // null (reading 'status')" / "… Cannot convert object to primitive value".
      expect(problem).not.toMatch(/Cannot read properties|Cannot convert object/);
      expect(await page.locator(".lah-open").getAttribute("data-state")).toBe("done");
      expect(await page.locator(".lah-open .lah-step").count()).toBe(steps.length);
    });
});
