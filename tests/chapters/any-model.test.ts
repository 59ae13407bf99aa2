// Any model (issue 37): a local server on the Messages API (Ollama, llama.cpp: a token instead of a
// key, no usage or zeros, tool calls streamed), and the second wire format, OpenAI's chat
// completions, through one adapter (chapters/_runner/openai-client.ts), tested against a local fake
// of that protocol that cuts tool-call arguments into pieces, sends no usage, or answers an error.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fc, test as propertyTest } from "@fast-check/vitest";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { chooseModel, describeModelError } from "../../chapters/_runner/model.ts";
import { ChatAnswer, openaiClient, toChatRequest } from "../../chapters/_runner/openai-client.ts";
import type { CreateParams } from "../../chapters/_shared/types.ts";
import { budget } from "../support/budgets.ts";
import {
  endTurn,
  type FakeReply,
  startFakeApi,
  streamed,
  toolUse,
  type FakeApi,
} from "../support/fake-api.ts";
import { chatError, chatStream } from "../support/fake-openai.ts";
import { tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const chunk = (delta: object, finish: string | null = null) =>
  ({
    id: "c",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  }) as ChatCompletionChunk;

/** `text` cut at the given offsets (each taken modulo the length). */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((n) => (text.length ? n % text.length : 0)))].sort(
    (a, b) => a - b,
  );
  const pieces: string[] = [];
  let from = 0;
  for (const p of points) {
    if (p > from) pieces.push(text.slice(from, p));
    from = Math.max(from, p);
  }
  pieces.push(text.slice(from));
  return pieces;
}

describe("chat completions: a Messages API request on the other wire", () => {
  it("maps the system prompt, tool calls and tool results, results first and in order", () => {
    const body = {
      model: "m",
      max_tokens: 100,
      system: [{ type: "text", text: "You are a coding agent." }],
      tools: [{ name: "bash", description: "Run a command", input_schema: { type: "object" } }],
      messages: [
        { role: "user", content: "list the files" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "s" },
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "t1", name: "bash", input: { command: "ls" } },
            { type: "tool_use", id: "t2", name: "bash", input: { command: "pwd" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "a.txt" },
            {
              type: "tool_result",
              tool_use_id: "t2",
              content: [{ type: "text", text: "/w" }],
              is_error: true,
            },
            { type: "text", text: "and now?" },
          ],
        },
      ],
    } as unknown as CreateParams;
    const { messages, tools } = toChatRequest(body);
    expect(messages).toEqual([
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "list the files" },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [
          { id: "t1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          {
            id: "t2",
            type: "function",
            function: { name: "bash", arguments: '{"command":"pwd"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "t1", content: "a.txt" },
      { role: "tool", tool_call_id: "t2", content: "Error: /w" },
      { role: "user", content: "and now?" },
    ]);
    expect(tools).toEqual([
      {
        type: "function",
        function: { name: "bash", description: "Run a command", parameters: { type: "object" } },
      },
    ]);
  });

  // The rule: however a server cuts the text and each call's arguments into chunks, the answer
  // put together is the one it meant, calls in order with their inputs, and the stop reason maps.
  propertyTest.prop(
    [
      fc.string(),
      fc.array(
        fc.record({
          name: fc.constantFrom("bash", "read", "write"),
          input: fc.dictionary(fc.string(), fc.jsonValue()),
          at: fc.array(fc.nat(), { maxLength: 6 }),
        }),
        { maxLength: 3 },
      ),
      fc.array(fc.nat(), { maxLength: 6 }),
    ],
    { numRuns: 200 },
  )("reassembles text and tool calls however the chunks are cut", (text, calls, textCuts) => {
    const answer = new ChatAnswer();
    if (text) for (const piece of cut(text, textCuts)) answer.add(chunk({ content: piece }));
    calls.forEach((call, index) =>
      cut(JSON.stringify(call.input), call.at).forEach((piece, i) =>
        answer.add(
          chunk({
            tool_calls: [
              {
                index,
                ...(i === 0 && { id: `call_${index}`, type: "function" }),
                function: { ...(i === 0 && { name: call.name }), arguments: piece },
              },
            ],
          }),
        ),
      ),
    );
    answer.add(chunk({}, calls.length ? "tool_calls" : "stop"));
    const message = answer.message("m");
    const uses = message.content.filter((b) => b.type === "tool_use");
    expect(uses.map((b) => [b.id, b.name, b.input])).toEqual(
      calls.map((c, i) => [`call_${i}`, c.name, JSON.parse(JSON.stringify(c.input))]),
    );
    expect(message.content.filter((b) => b.type === "text").map((b) => b.text)).toEqual(
      text ? [text] : [],
    );
    expect(message.stop_reason).toBe(calls.length ? "tool_use" : "end_turn");
  });

  it("a call whose arguments are not a JSON object comes through as _unparsed, never a crash", () => {
    for (const args of ['{"path": ', "[1,2]", "null", "nonsense"]) {
      const answer = new ChatAnswer();
      answer.add(
        chunk({ tool_calls: [{ index: 0, id: "x", function: { name: "read", arguments: args } }] }),
      );
      answer.add(chunk({}, "tool_calls"));
      const [use] = answer.message("m").content;
      expect(use).toMatchObject({ type: "tool_use", name: "read", input: { _unparsed: args } });
    }
  });

  it("maps length to max_tokens, and usage (cached tokens apart) when the server sends it", () => {
    const answer = new ChatAnswer();
    answer.add(chunk({ content: "cut" }, "length"));
    answer.add({
      ...chunk({}),
      choices: [],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 7,
        total_tokens: 107,
        prompt_tokens_details: { cached_tokens: 60 },
      },
    } as ChatCompletionChunk);
    const message = answer.message("m");
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage).toMatchObject({
      input_tokens: 40,
      output_tokens: 7,
      cache_read_input_tokens: 60,
    });
    // No usage chunk (many local servers): no counts at all rather than made-up zeros.
    const bare = new ChatAnswer();
    bare.add(chunk({ content: "hi" }, "stop"));
    expect(bare.message("m").usage).toBeUndefined();
  });
});

describe("chat completions: choosing the provider", () => {
  it("uses the Messages API when an Anthropic credential is set, chat completions otherwise", () => {
    expect(chooseModel({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "o" }, false).provider).toBe(
      "anthropic",
    );
    const openai = chooseModel({ OPENAI_BASE_URL: "http://x/v1", MODEL_ID: "qwen" }, false);
    expect(openai).toMatchObject({ provider: "openai", modelId: "qwen", baseURL: "http://x/v1" });
    expect(openai.problem).toBeUndefined();
    expect(
      chooseModel({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "o", MODEL_ID: "g" }, false, "openai")
        .provider,
    ).toBe("openai");
  });

  it("says what is missing in one sentence: a model name, or the credential the provider needs", () => {
    expect(chooseModel({ OPENAI_API_KEY: "o" }, false).problem).toMatch(/Set MODEL_ID/);
    expect(chooseModel({ ANTHROPIC_API_KEY: "k" }, false, "openai").problem).toMatch(
      /needs OPENAI_API_KEY .* or OPENAI_BASE_URL/,
    );
    expect(chooseModel({}, false, "anthropic").problem).toMatch(/needs ANTHROPIC_API_KEY/);
    expect(chooseModel({ OPENAI_API_KEY: "o" }, true).offline).toBe(true);
  });

  it("names the provider's own variables in an error sentence", () => {
    const err = Object.assign(new Error("bad key"), { status: 401, error: {} });
    expect(describeModelError(err, "m", "openai")).toMatch(/Check OPENAI_API_KEY/);
    expect(describeModelError(err, "m")).toMatch(/Check ANTHROPIC_API_KEY/);
  });
});

describe(
  "chat completions: a chapter run against a local fake server",
  { timeout: budget({ cli: 4 }) },
  () => {
    it("s02 writes a file from a call whose arguments came in pieces, and sends its result back", async () => {
      const args = JSON.stringify({ path: "hello.txt", content: "hi from a chat model\n" });
      api = await startFakeApi([
        chatStream({
          text: ["I'll ", "write it."],
          calls: [{ id: "call_w", name: "write", args: cut(args, [3, 11, 19, 30]) }],
        }),
        chatStream({ text: ["Done."], usage: { prompt_tokens: 50, completion_tokens: 3 } }),
      ]);
      const workspace = tempDir();
      const env = { OPENAI_BASE_URL: `${api.url}/v1`, MODEL_ID: "local-model" };
      const { code, stdout } = await runCli(["s02", "--workspace", workspace], {
        input: "write hello.txt\n",
        env,
      });
      expect(code).toBe(0);
      expect(stdout).toMatch(
        /model: local-model over chat completions \(OpenAI-compatible\) at http:\/\/127/,
      );
      expect(readFileSync(path.join(workspace, "hello.txt"), "utf8")).toBe(
        "hi from a chat model\n",
      );
      expect(stdout).toMatch(/Done\./);
      const [first, second] = api.requests;
      expect(first.body.model).toBe("local-model");
      expect(
        (first.body.tools as { function: { name: string } }[]).map((t) => t.function.name),
      ).toEqual(["bash", "read", "write", "edit", "glob"]);
      const messages = second.body.messages as { role: string; tool_call_id?: string }[];
      expect(messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_w" });
    });

    it("s14 retries an overload the server reports as 503, then answers", async () => {
      api = await startFakeApi([
        chatError(503, "The server is overloaded"),
        chatStream({ text: ["Back again."] }),
      ]);
      const { code, stdout } = await runCli(["s14", "--workspace", tempDir()], {
        input: "hello\n",
        env: { OPENAI_BASE_URL: `${api.url}/v1`, MODEL_ID: "m" },
      });
      expect(code).toBe(0);
      expect(stdout).toMatch(/Back again\./);
      expect(api.requests).toHaveLength(2);
    });

    it("a rejected key is one sentence naming OPENAI_API_KEY, and the REPL carries on", async () => {
      api = await startFakeApi([
        chatError(401, "Incorrect API key provided", "invalid_request_error"),
        chatStream({ text: ["Still here."] }),
      ]);
      const { code, stdout } = await runCli(["s01", "--workspace", tempDir()], {
        input: "hello\nagain\n",
        env: { OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_API_KEY: "sk-wrong", MODEL_ID: "m" },
      });
      expect(stdout).toMatch(/The API key was rejected \(401\)\. Check OPENAI_API_KEY/);
      expect(stdout).toMatch(/Still here\./);
      // Piped input with a failed turn exits 1 at the end, so a script sees the failure.
      expect(code).toBe(1);
    });

    it("refuses an unknown --provider, and one with no model named, before anything runs", async () => {
      const bad = await runCli(["s01", "--provider", "gemini"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/Unknown provider "gemini": use anthropic or openai/);
      const noModel = await runCli(["s01", "--workspace", tempDir()], {
        env: { OPENAI_API_KEY: "sk" },
      });
      expect(noModel.code).toBe(2);
      expect(noModel.stderr).toMatch(/Set MODEL_ID/);
    });

    it("the adapter's client answers a direct call the way the chapters expect a Message", async () => {
      api = await startFakeApi([
        chatStream({ text: ["ok"], usage: { prompt_tokens: 3, completion_tokens: 1 } }),
      ]);
      const client = await openaiClient({ OPENAI_BASE_URL: `${api.url}/v1` });
      const seen: string[] = [];
      const message = await client.messages.create(
        { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
        { onStream: (e) => seen.push(e.type) },
      );
      expect(message).toMatchObject({
        role: "assistant",
        stop_reason: "end_turn",
        content: [{ type: "text", text: "ok" }],
      });
      expect(seen).toEqual(["answer", "text", "block"]);
      expect(api.requests[0].body).toMatchObject({ max_tokens: 10, stream: true });
    });
  },
);

/** A streamed answer as a local server may send it: `usage` left out of message_start and
 *  message_delta ("absent"), or every count 0 ("zero"). */
function localServer(reply: FakeReply, usage: "absent" | "zero"): FakeReply {
  const out = streamed(reply);
  for (const { event, data } of out.events!) {
    const target = event === "message_start" ? (data.message as Record<string, unknown>) : data;
    if (event !== "message_start" && event !== "message_delta") continue;
    if (usage === "absent") delete target.usage;
    else
      target.usage =
        event === "message_start" ? { input_tokens: 0, output_tokens: 0 } : { output_tokens: 0 };
  }
  return out;
}

describe(
  "a local model on the Messages API (Ollama, llama.cpp)",
  { timeout: budget({ cli: 4 }) },
  () => {
    for (const usage of ["absent", "zero"] as const)
      it(`runs a tool call and says "tokens unknown" when the server's counts are ${usage}`, async () => {
        api = await startFakeApi([
          localServer(toolUse("write", { path: "a.txt", content: "local\n" }), usage),
          localServer(endTurn("written"), usage),
        ]);
        const workspace = tempDir();
        // As Ollama's documentation tells Claude Code users to set it up: a token, an empty key.
        const { code, stdout } = await runCli(["s02", "--workspace", workspace], {
          input: "go\n",
          env: {
            ANTHROPIC_BASE_URL: api.url,
            ANTHROPIC_AUTH_TOKEN: "ollama",
            ANTHROPIC_API_KEY: "",
            MODEL_ID: "qwen3-coder",
          },
        });
        expect(stdout).not.toMatch(/Cannot read properties/);
        expect(code).toBe(0);
        expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("local\n");
        expect(stdout).toMatch(/tokens: unknown \(the server sent no counts\)/);
        expect(stdout).not.toMatch(/0 in · 0 out/);
        expect(api.requests[0].headers.authorization).toBe("Bearer ollama");
      });
  },
);
