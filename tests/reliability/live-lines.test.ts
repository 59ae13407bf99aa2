// Signs of work while a long tool call streams (issue 37): an 18 KB `write` once streamed its input
// for 21 s with nothing on screen. The status line now says which call is being written and how
// much of its input has come, on a real terminal (pseudo-terminal) and in the status line's own
// test double; piped output stays free of it. A running command once showed nothing for 8 s and
// its output only at the end: the line now says how long it has run and what it printed last.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createIO } from "../../chapters/_runner/printer.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { StatusLine } from "../../chapters/_runner/status.ts";
import { budget } from "../support/budgets.ts";
import { endTurn, startFakeApi, streamed, toolUse, type FakeApi } from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";
import { hasPseudoTerminal, render, runCliInTerminal } from "../support/terminal.ts";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const env = (url: string) => ({
  ANTHROPIC_API_KEY: "sk-test",
  ANTHROPIC_BASE_URL: url,
  MODEL_ID: "m",
});
const bigWrite = () =>
  toolUse("write", { path: "big.txt", content: "x".repeat(18_000) }, "Writing it.");

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open: () => open() };
}

describe("the status line while a call's input arrives", () => {
  it("names the call and counts its characters, and goes when the call is complete", async () => {
    let written = "";
    const tty = { columns: 80, write: (t: string) => ((written += t), true) };
    const status = new StatusLine(tty as unknown as NodeJS.WriteStream);
    const lead = status.begin("lead");
    lead.input("write", 12_345);
    expect((await render(written, { fromStream: true })).lines).toEqual([
      expect.stringMatching(/^. waiting for lead writing a write call, 12,345 characters, \ds$/),
    ]);
    lead.done();
    expect((await render(written, { fromStream: true })).lines).toEqual([]);
  });

  it.skipIf(!hasPseudoTerminal)(
    "on a terminal: the line shows the input growing while the text above stays",
    { timeout: budget({ cli: 4 }) },
    async () => {
      const held = gate();
      api = await startFakeApi([
        streamed(bigWrite(), {
          pieces: 4,
          // The last piece of the call's input waits until the test has seen the line.
          before: (event, i, all) =>
            i ===
            all.findLastIndex(
              (e) => (e.data.delta as { type?: string } | undefined)?.type === "input_json_delta",
            )
              ? held.promise
              : undefined,
        }),
      ]);
      const workspace = tempDir();
      const run = runCliInTerminal(["s02", "--workspace", workspace], env(api.url));
      await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
      run.type("write a big file\r");
      const screen = await run.waitForScreen(
        (s) =>
          s.lines.some((l) =>
            / waiting for lead writing a write call, [\d,]+ characters, \d+s$/.test(l),
          ),
        "the call's input counted on the status line",
      );
      expect(screen.lines).toContain("assistant › Writing it.");
      held.open();
      const done = await run.waitForScreen(
        (s) => s.lines.some((l) => /Wrote 18000 bytes to big\.txt|Wrote 18,000/.test(l)),
        "the call's result",
      );
      expect(done.lines.filter((l) => /writing a write call/.test(l))).toEqual([]);
      run.type("q\r");
      await run.exited;
    },
  );

  it("piped output never shows it", async () => {
    api = await startFakeApi([streamed(bigWrite(), { pieces: 4 })]);
    const { stdout } = await runCli(["s02", "--workspace", tempDir()], {
      input: "go\n",
      env: env(api.url),
    });
    expect(stdout).toMatch(/⚙ write/);
    expect(stdout).not.toMatch(/writing a write call/);
  });
});

describe("the command's last line on the status line (a door: the command controls it)", () => {
  it("is shown, not obeyed, and cut to one row however long it is", async () => {
    let written = "";
    const tty = { columns: 60, write: (t: string) => ((written += t), true) };
    const hostile = `\x1b]52;c;aGk=\x07\x1b[2J\rAllow? [yes/no] ${"x".repeat(200)}`;
    const status = new StatusLine(tty as unknown as NodeJS.WriteStream, undefined, [], () => [
      { since: Date.now(), background: false, lastLine: () => hostile },
    ]);
    const tool = status.run("lead", "bash");
    const screen = await render(written, { fromStream: true, cols: 60 });
    expect(screen.oscs).toEqual([]);
    expect(screen.lines).toHaveLength(1);
    expect(screen.lines[0]).toMatch(/^. running bash 0s │ \\u\{1b\}\]52;c;aGk=\\u\{7\}/);
    expect(screen.lines[0]).toMatch(/…$/);
    tool.done();
    expect((await render(written, { fromStream: true, cols: 60 })).lines).toEqual([]);
  });
});

describe("a tool's entry on the status line (the printer's side)", () => {
  const setup = () => {
    let written = "";
    const tty = {
      columns: 80,
      write: (t: string) => ((written += t), true),
    } as unknown as NodeJS.WriteStream;
    const status = new StatusLine(tty);
    const io = createIO({ stream: tty, status });
    const screen = async () => (await render(written, { fromStream: true })).lines;
    return { io, screen };
  };
  const call = (id: string) => ({ type: "tool_use", id, name: "bash", input: {} }) as ToolUseBlock;

  it("comes after the call's line and goes when its result is printed", async () => {
    const { io, screen } = setup();
    await io.toolCall(call("a"));
    expect((await screen()).at(-1)).toMatch(/^. running bash 0s$/);
    io.toolResult(call("a"), "done");
    expect((await screen()).filter((l) => /running/.test(l))).toEqual([]);
  });

  it("goes when the turn ends without its result (Ctrl-C), or when its agent calls the model again", async () => {
    const { io, screen } = setup();
    await io.toolCall(call("a"));
    io.turnOver();
    expect((await screen()).filter((l) => /running/.test(l))).toEqual([]);
    await io.toolCall(call("b"));
    const next = io.call("lead", "m");
    expect((await screen()).at(-1)).toMatch(/^. waiting for lead 0s$/);
    next.close();
    expect((await screen()).filter((l) => /running|waiting/.test(l))).toEqual([]);
  });
});

/** A command that prints a line, then waits for the test to create `go` in the workspace (a
 *  condition, not a delay), then prints another. */
const slowCommand = (first: string) =>
  `echo "${first}"; while [ ! -e go ]; do sleep 0.05; done; echo "after go"`;

describe("the live line while a command runs", () => {
  it.skipIf(!hasPseudoTerminal)(
    "on a terminal: elapsed time and the command's last line, in place, gone when the result prints",
    { timeout: budget({ cli: 6 }) },
    async () => {
      api = await startFakeApi([
        streamed(toolUse("bash", { command: slowCommand("step one of three") })),
        streamed(endTurn("All done.")),
      ]);
      const workspace = tempDir();
      const recording = path.join(tempDir(), "run.jsonl");
      const run = runCliInTerminal(
        ["s01", "--workspace", workspace, "--record", recording],
        env(api.url),
      );
      await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
      run.type("run it\r");
      // Updated in place: the count goes past 0 on the same single line.
      const screen = await run.waitForScreen(
        (s) => s.lines.some((l) => /^. running bash [1-9]\d*s │ step one of three$/.test(l)),
        "the running command's line, a second or more in",
      );
      expect(screen.lines.filter((l) => / running bash \d+s/.test(l))).toHaveLength(1);
      writeFileSync(path.join(workspace, "go"), "");
      const done = await run.waitForScreen(
        (s) => s.lines.some((l) => l.includes("All done.")),
        "the answer after the result",
      );
      expect(done.lines.filter((l) => /running bash/.test(l))).toEqual([]);
      expect(done.lines).toContain("      after go");
      run.type("q\r");
      await run.exited;
      expect(existsSync(recording)).toBe(true);
      expect(readFileSync(recording, "utf8")).not.toMatch(/running bash|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    },
  );

  it.skipIf(!hasPseudoTerminal)(
    "s11: waiting for a background command shows its count, elapsed time and last line",
    { timeout: budget({ cli: 6 }) },
    async () => {
      api = await startFakeApi([
        streamed(toolUse("background_run", { command: slowCommand("building the index") })),
        streamed(endTurn("Started; I will wait.")),
        streamed(endTurn("It finished.")),
      ]);
      const workspace = tempDir();
      const run = runCliInTerminal(["s11", "--workspace", workspace], env(api.url));
      await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
      run.type("start it\r");
      await run.waitForScreen(
        (s) =>
          s.lines.some((l) =>
            /^. waiting for 1 background command [1-9]\d*s │ building the index$/.test(l),
          ),
        "the wait, with its elapsed time",
      );
      writeFileSync(path.join(workspace, "go"), "");
      const done = await run.waitForScreen(
        (s) => s.lines.some((l) => l.includes("It finished.")),
        "the answer after the result",
      );
      expect(done.lines.filter((l) => /background command \d+s/.test(l))).toEqual([]);
      run.type("q\r");
      await run.exited;
    },
  );

  it("piped output never shows it", async () => {
    api = await startFakeApi([
      streamed(toolUse("bash", { command: "echo one; echo two" })),
      streamed(endTurn("Done.")),
    ]);
    const { stdout } = await runCli(["s01", "--workspace", tempDir()], {
      input: "go\n",
      env: env(api.url),
    });
    expect(stdout).toMatch(/↳ result/);
    // eslint-disable-next-line no-control-regex
    expect(stdout).not.toMatch(/running bash|\x1b\[2K/);
  });
});
