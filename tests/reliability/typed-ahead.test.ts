// Typing while an answer streams (issue 37 item 6): the typed line must not garble the answer on
// screen, and it is sent as the next prompt once the turn ends, shown as queued meanwhile.
import { afterEach, describe, expect, it } from "vitest";
import { budget } from "../support/budgets.ts";
import { endTurn, startFakeApi, streamed, type FakeApi } from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { hasPseudoTerminal, runCliInTerminal } from "../support/terminal.ts";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open: () => open() };
}

describe.skipIf(!hasPseudoTerminal)("typing while the answer streams", () => {
  it(
    "keeps the answer whole on screen and sends the typed line next",
    { timeout: budget({ cli: 4 }) },
    async () => {
      const held = gate();
      const said = "The first answer arrives in pieces.";
      api = await startFakeApi([
        streamed(endTurn(said), {
          pieces: 3,
          before: (_, i, all) =>
            i === all.findLastIndex((e) => e.event === "content_block_delta")
              ? held.promise
              : undefined,
        }),
        streamed(endTurn("Second answer.")),
      ]);
      const run = runCliInTerminal(["s01", "--workspace", tempDir()], {
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: api.url,
        MODEL_ID: "m",
      });
      await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
      run.type("first\r");
      await run.waitForScreen(
        (s) => s.lines.some((l) => l.startsWith("assistant › The")),
        "streaming",
      );
      run.type("second\r");
      held.open();
      const screen = await run.waitForScreen(
        (s) =>
          s.lines.some((l) => l.includes("Second answer.")) && s.lines.at(-1)?.trim() === "you ›",
        "the second answer, then the prompt",
      );
      expect(screen.lines).toContain(`assistant › ${said}`);
      // The typed line is the next prompt, on a line of its own, and the answer after it.
      const at = screen.lines.indexOf("you › second");
      expect(screen.lines.filter((l) => /^you › /.test(l))).toEqual([
        "you › first",
        "you › second",
      ]);
      expect(screen.lines[at + 1]).toBe("assistant › Second answer.");
      run.type("q\r");
      await run.exited;
    },
  );
});
