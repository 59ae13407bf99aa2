// Typing at the harness's prompt (issue 37). Several lines, one prompt: a paste of three lines is one turn sent on Enter, not three
// billed calls each knowing one line; a line ending in a backslash goes on in the next; Ctrl-C
// drops what was not sent. On a real pseudo-terminal, against the local fake Messages API.
import { afterEach, describe, expect, it } from "vitest";
import { endTurn, startFakeApi, type FakeApi } from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { hasPseudoTerminal, render, runCliInTerminal } from "../support/terminal.ts";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const userText = (body: Record<string, unknown>) => {
  const first = (body.messages as { content: unknown }[])[0].content;
  return typeof first === "string"
    ? first
    : (first as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");
};

describe.skipIf(!hasPseudoTerminal)("typing at the prompt (real CLI, pseudo-terminal)", () => {
  const start = async () => {
    api = await startFakeApi([endTurn("First answer."), endTurn("Second answer.")]);
    const run = runCliInTerminal(["s01", "--workspace", tempDir()], {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: api.url,
      MODEL_ID: "claude-sonnet-5-5",
    });
    await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
    return run;
  };

  it("a pasted error of three lines is one prompt, sent when Enter is pressed", async () => {
    const run = await start();
    expect(run.output()).toContain("\x1b[?2004h"); // the terminal is asked to bracket pastes
    run.type(
      `${PASTE_START}TypeError: x is undefined\n  at main (a.js:1)\n  at run (b.js:2)${PASTE_END}`,
    );
    run.type(" why?\r");
    await run.waitForScreen((s) => s.lines.some((l) => l.includes("First answer.")), "the answer");
    expect(api!.requests).toHaveLength(1);
    expect(userText(api!.requests[0].body)).toBe(
      "TypeError: x is undefined\n  at main (a.js:1)\n  at run (b.js:2) why?",
    );
    run.type("q\r");
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain("\x1b[?2004l"); // and told to stop when the harness ends
  });

  it("a line that ends in a backslash goes on in the next; Ctrl-C drops the lines not sent", async () => {
    const run = await start();
    run.type("forget this \\\r");
    await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("  …")), "the continuation");
    run.type("\x03");
    await run.waitForScreen(
      (s) => s.lines.some((l) => l.includes("lines not sent yet are dropped")),
      "the drop",
    );
    run.type("first line \\\r");
    await run.waitForScreen((s) => s.lines.filter((l) => l.startsWith("  …")).length >= 2, "…");
    run.type("second line\r");
    await run.waitForScreen((s) => s.lines.some((l) => l.includes("First answer.")), "the answer");
    expect(api!.requests).toHaveLength(1);
    expect(userText(api!.requests[0].body)).toBe("first line \nsecond line");
    run.type("q\r");
    expect(await run.exited).toBe(0);
  });

  it("Ctrl-D under a line not sent yet (it ended in `\\`): says the lines are dropped, sends nothing", async () => {
    const run = await start();
    run.type("first line \\\r");
    await run.waitForScreen(
      (s) => s.lines.some((l) => l.startsWith("  …")),
      "the next line's prompt",
    );
    run.type("\x04");
    expect(await run.exited).toBe(0);
    const screen = await render(run.output());
    expect(screen.lines).toContain("(1 line not sent is dropped)");
    expect(api!.requests).toHaveLength(0);
  });

  it("Ctrl-D: the session's summary starts on a line of its own, not after the prompt", async () => {
    api = await startFakeApi([
      {
        ...endTurn("Hi."),
        body: { ...(endTurn("Hi.").body as object), usage: { input_tokens: 5, output_tokens: 2 } },
      },
    ]);
    const run = runCliInTerminal(["s01", "--workspace", tempDir()], {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: api.url,
      MODEL_ID: "claude-sonnet-5-5",
    });
    await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
    run.type("hello\r");
    await run.waitForScreen((s) => s.lines.some((l) => l.includes("Hi.")), "the answer");
    run.type("\x04");
    await run.exited;
    const screen = await render(run.output());
    const summary = screen.lines.find((l) => l.includes("session:"));
    expect(summary).toBeDefined();
    expect(summary!.startsWith("session:")).toBe(true);
  });
});
