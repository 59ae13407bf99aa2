// Model errors in every chapter: the first model call fails (bad key, unknown model, rate limit,
// overload, no network), the REPL says so in one sentence, forgets the failed turn and stays
// usable — the next prompt gets an answer — and a team closes cleanly afterwards. The same holds
// when the real client gets an answer that is not a message (an HTML page, `{}`, `content: null`)
// or loses the connection halfway through one: tested against the local fake API.
import { APIConnectionError, APIError } from "@anthropic-ai/sdk";
import { PassThrough, Readable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listChapters, loadChapter } from "../../chapters/_runner/chapters.ts";
import { createIO } from "../../chapters/_runner/printer.ts";
import { describeModelError, realClient } from "../../chapters/_runner/model.ts";
import { LineReader, runRepl } from "../../chapters/_runner/repl.ts";
import { createEnv } from "../../chapters/_runner/runtime.ts";
import type {
  Agent,
  AgentEnv,
  CreateParams,
  Message,
  ModelClient,
} from "../../chapters/_shared/types.ts";
import {
  apiError as fakeError,
  droppedMidBody,
  errorMidStream,
  emptyObject,
  endTurn,
  htmlPage,
  nullContent,
  startFakeApi,
  streamed,
  toolUse,
  type FakeApi,
  type FakeReply,
} from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

const MODEL = "test-model";

const apiError = (status: number, type: string, message: string, details?: object) =>
  APIError.generate(
    status,
    { type: "error", error: { type, message, ...(details && { details }) } },
    message,
    new Headers(),
  );
const SPEND_CAP_MESSAGE =
  "You have reached your API usage limits: your organization has crossed its monthly API usage threshold. You will regain access on 2026-09-01 at 00:00 UTC.";

const FAILURES: { name: string; error: () => Error; sentence: RegExp; transient: boolean }[] = [
  {
    name: "401 authentication error",
    transient: false,
    error: () => apiError(401, "authentication_error", "invalid x-api-key"),
    sentence:
      /^The API key was rejected \(401\)\. Check ANTHROPIC_API_KEY, or run with --offline\.$/,
  },
  {
    name: "404 not found",
    transient: false,
    error: () => apiError(404, "not_found_error", `model: ${MODEL}`),
    sentence: /^The model "test-model" was not found \(404\): model: test-model\. Set MODEL_ID/,
  },
  {
    // ANTHROPIC_BASE_URL=http://host/v1: the client adds /v1/messages, the server has no
    // /v1/v1/messages. Its own words are kept, and the model is not blamed.
    name: "404 from a wrong path",
    transient: false,
    error: () => apiError(404, "not_found_error", "Not Found: /v1/v1/messages"),
    sentence:
      /^The endpoint answered 404 \(Not Found: \/v1\/v1\/messages\)\. Check ANTHROPIC_BASE_URL: the client adds \/v1\/messages itself, so it should not end in \/v1\.$/,
  },
  {
    name: "429 rate limit",
    transient: true,
    error: () =>
      apiError(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit"),
    sentence: /^Rate limited \(429\)/,
  },
  {
    // The API's answer for a usage tier's monthly spend cap: a 429 that waiting does not clear.
    name: "429 monthly spend cap",
    transient: false,
    error: () =>
      apiError(429, "rate_limit_error", SPEND_CAP_MESSAGE, {
        error_code: "enforced_spend_limit_reached",
      }),
    sentence:
      /^The organization reached its monthly spend cap \(429\): You have reached .* You will regain access on 2026-09-01 at 00:00 UTC\.$/,
  },
  {
    name: "529 overloaded",
    transient: true,
    error: () => apiError(529, "overloaded_error", "Overloaded"),
    sentence: /^The API is overloaded \(529\)/,
  },
  {
    name: "connection error",
    transient: true,
    error: () => new APIConnectionError({ message: "Connection error." }),
    sentence: /^Could not reach the model API \(network failure\)/,
  },
];

const answer = (text: string): Message =>
  ({
    id: "msg_ok",
    type: "message",
    role: "assistant",
    model: MODEL,
    stop_reason: "end_turn",
    stop_sequence: null,
    content: [{ type: "text", text, citations: null }],
    usage: { input_tokens: 1, output_tokens: 1 },
  }) as unknown as Message;

/** A client whose first call fails with `error`; every later call answers normally. */
function failingOnce(error: Error): ModelClient & { bodies: CreateParams[] } {
  const bodies: CreateParams[] = [];
  return {
    bodies,
    messages: {
      async create(body) {
        bodies.push(structuredClone(body));
        if (bodies.length === 1) throw error;
        return answer(`answer ${bodies.length}`);
      },
    },
  };
}

/** Runs the real REPL over two piped prompts; returns what it printed and its exit code. */
async function repl(
  agent: Agent,
  tools: { name: string }[],
): Promise<{ code: number; printed: string }> {
  let printed = "";
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    printed += String(chunk);
    return true;
  });
  try {
    const lines = new LineReader(
      Readable.from(["first prompt\nsecond prompt\n"]),
      new PassThrough(),
      false,
    );
    const code = await runRepl({
      agent,
      tools: tools as never,
      scenario: { summary: "", prompts: [], script: {} },
      offline: false,
      modelId: MODEL,
      interactive: false,
      debug: false,
      color: false,
      lines,
      demo: false,
    });
    return { code, printed };
  } finally {
    write.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

const chapters = listChapters();

describe("model errors in every chapter", () => {
  it("covers all fifteen chapters", () => {
    expect(chapters.map((c) => c.id)).toEqual(
      Array.from({ length: 15 }, (_, i) => `s${String(i + 1).padStart(2, "0")}`),
    );
  });

  for (const info of chapters) {
    it.each(FAILURES)(
      `${info.id}: $name on the first call`,
      async ({ error: makeError, sentence, transient }) => {
        const { module } = await loadChapter(info);
        const error = makeError();
        const client = failingOnce(error);
        const env = createEnv({
          workspace: tempDir("lah-err-"),
          client,
          modelId: MODEL,
          io: createIO(),
        });
        // s14 retries overloads, rate limits and dropped connections; its waits are skipped here.
        const create = module.createAgent as (env: AgentEnv, options?: object) => Agent;
        const agent = create(env, info.id === "s14" ? { sleep: async () => {} } : undefined);
        const closed = vi.fn(agent.close?.bind(agent));
        if (agent.close) agent.close = closed;

        const { code, printed } = await repl(agent, module.TOOLS);
        const recovered = info.id === "s14" && transient;
        const failures = printed.split("\n").filter((line) => line.startsWith("✗ "));
        if (recovered) {
          // No error reaches the user: a note says what happened, and the retry answered the first prompt.
          expect(failures).toEqual([]);
          expect(code).toBe(0);
          const notes = env.io.trace
            .filter((e) => e.kind === "note")
            .map((e) => (e as { text: string }).text);
          expect(notes.join("\n")).toMatch(/try 1\/3 failed, waiting \d+ ms/);
          expect(client.bodies).toHaveLength(3);
        } else {
          // One sentence, the one describeModelError gives for this error — no stack, no generic fallback.
          const expected = describeModelError(error, MODEL);
          expect(expected).toMatch(sentence);
          expect(failures).toEqual([`✗ ${expected}`]);
          expect(printed).not.toMatch(/\n\s+at /);
          expect(code).toBe(1); // piped input with a failure exits non-zero
          expect(client.bodies).toHaveLength(2);
          // The failed turn was forgotten: the second request carries only the second prompt.
          const sent = JSON.stringify(client.bodies[1].messages);
          expect(sent).toContain("second prompt");
          expect(sent).not.toContain("first prompt");
        }
        // The REPL stayed usable: the second prompt got its answer, and the history ends with it.
        const texts = env.io.trace
          .filter((e) => e.kind === "response")
          .map((e) => (e as { text: string }).text);
        expect(texts.at(-1)).toBe(`answer ${client.bodies.length}`);
        expect(agent.messages.at(-1)).toMatchObject({ role: "assistant" });
        expect(
          agent.messages.filter(
            (m) => m.role === "user" && JSON.stringify(m.content).includes("first prompt"),
          ),
        ).toHaveLength(recovered ? 1 : 0);
        // Chapters with background work (s11) and teams (s13–s15) were closed, and close() returned.
        if (agent.close) expect(closed).toHaveBeenCalledOnce();
      },
    );
  }
});

const NOT_A_MESSAGE =
  /^The API answered with something that is not a message \(.+\); check that ANTHROPIC_BASE_URL points at the Messages API\.$/;
const BAD_ANSWERS: {
  name: string;
  reply: () => FakeReply;
  sentence: RegExp;
  transient: boolean;
}[] = [
  { name: "an HTML page", reply: htmlPage, sentence: NOT_A_MESSAGE, transient: false },
  {
    name: "an HTML page labelled JSON",
    reply: () => ({ ...htmlPage(), contentType: "application/json" }),
    sentence: NOT_A_MESSAGE,
    transient: false,
  },
  { name: "{}", reply: emptyObject, sentence: NOT_A_MESSAGE, transient: false },
  { name: "content: null", reply: nullContent, sentence: NOT_A_MESSAGE, transient: false },
  {
    name: "a tool_use block without input",
    transient: false,
    sentence: NOT_A_MESSAGE,
    reply: () => {
      const body = endTurn("x").body as Record<string, unknown>;
      return {
        body: {
          ...body,
          stop_reason: "tool_use",
          content: [{ type: "tool_use", id: "t1", name: "bash" }],
        },
      };
    },
  },
  {
    name: "a connection dropped mid-body",
    reply: droppedMidBody,
    transient: true,
    sentence:
      /^The connection to the model API broke off in the middle of an answer \(network failure\)\. Check your connection and try again\.$/,
  },
];

describe("the real client against the fake API: one request per call", () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  // The SDK would retry each of these on its own; a chapter's model call must stay one request,
  // so that what a chapter (s14) counts and what its trace shows is what was sent.
  it.each([
    [408, "timeout_error"],
    [409, "conflict_error"],
    [429, "rate_limit_error"],
    [500, "api_error"],
    [529, "overloaded_error"],
  ])("a %i is one request, and reaches the chapter", async (status, type) => {
    api = await startFakeApi([
      fakeError(status, type, "try later", { retryAfterSeconds: 0 }),
      endTurn("a hidden retry would get this"),
    ]);
    const client = await realClient({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url });
    const body = { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
    await expect(client.messages.create(body as CreateParams)).rejects.toMatchObject({ status });
    expect(api.requests).toHaveLength(1);
  });
});

describe("an error event in the middle of a stream, from the real client against the fake API", () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  // Once a stream has begun the API can no longer send an HTTP status: it sends an `error` event.
  // The chapters must see the same error their HTTP twin would be (s14 retries an overload).
  it.each([
    ["overloaded_error", 529, "OverloadedError"],
    ["rate_limit_error", 429, "RateLimitError"],
    ["api_error", 500, "InternalServerError"],
    ["invalid_request_error", 400, "BadRequestError"],
  ])("%s is classified as a %i (%s)", async (type, status, name) => {
    api = await startFakeApi([errorMidStream(type, "Overloaded")]);
    const client = await realClient({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url });
    const body = { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
    const failure = await client.messages.create(body as CreateParams).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(APIError);
    expect(failure).toMatchObject({ status });
    expect((failure as Error).constructor.name).toBe(name);
    expect(api.requests).toHaveLength(1);
  });

  it("a broken event stream is one sentence: the SDK logs nothing of its own to the terminal", async () => {
    api = await startFakeApi([
      {
        body: null,
        contentType: "text/event-stream",
        raw: "event: message_start\ndata: {this is not json\n\n",
      },
    ]);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const client = await realClient({
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: api.url,
      });
      const body = { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
      const failure = await client.messages.create(body as CreateParams).catch((e: unknown) => e);
      expect(describeModelError(failure, MODEL)).toMatch(/^The API answered with something/);
      expect([...logged.mock.calls, ...warned.mock.calls]).toEqual([]);
    } finally {
      logged.mockRestore();
      warned.mockRestore();
    }
  });

  it("a model the SDK lists as deprecated: its warning once per run, not two lines before every call", async () => {
    api = await startFakeApi([
      streamed(toolUse("bash", { command: "echo hi" })),
      streamed(toolUse("bash", { command: "echo again" })),
      streamed(endTurn("Done.")),
    ]);
    const { stdout, stderr } = await runCli(["s01", "--workspace", tempDir()], {
      input: "go\n",
      env: {
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: api.url,
        MODEL_ID: "claude-sonnet-4-5",
      },
    });
    expect(stdout).toContain("Done.");
    expect(api.requests).toHaveLength(3);
    expect(stderr.match(/The model 'claude-sonnet-4-5' is deprecated/g)).toHaveLength(1);
  });

  it("an error event of a type the API does not document stays an error without a status", async () => {
    api = await startFakeApi([errorMidStream("mystery_error", "something odd")]);
    const client = await realClient({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url });
    const body = { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
    const failure = await client.messages.create(body as CreateParams).catch((err: unknown) => err);
    expect(failure).toMatchObject({ status: undefined });
    expect(describeModelError(failure, MODEL)).toBe("The model call failed: something odd");
  });
});

describe("answers that are not messages, from the real client against the fake API", () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  for (const info of chapters) {
    it.each(BAD_ANSWERS)(`${info.id}: $name`, async ({ reply, sentence, transient }) => {
      api = await startFakeApi([
        reply(),
        endTurn("answer A"),
        endTurn("answer B"),
        endTurn("answer C"),
      ]);
      const { module } = await loadChapter(info);
      const client = await realClient({
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: api.url,
      });
      const env = createEnv({
        workspace: tempDir("lah-bad-"),
        client,
        modelId: MODEL,
        io: createIO(),
      });
      const create = module.createAgent as (env: AgentEnv, options?: object) => Agent;
      const agent = create(env, info.id === "s14" ? { sleep: async () => {} } : undefined);

      const { code, printed } = await repl(agent, module.TOOLS);
      const failures = printed.split("\n").filter((line) => line.startsWith("✗ "));
      if (info.id === "s14" && transient) {
        expect(failures).toEqual([]); // s14 retries a dropped connection like any network failure
        expect(code).toBe(0);
      } else {
        expect(failures).toHaveLength(1);
        expect(failures[0].slice(2)).toMatch(sentence);
        expect(printed).not.toMatch(
          /flatMap|terminated|Cannot read properties|is not valid JSON|\n\s+at /,
        );
        expect(code).toBe(1);
      }
      // The REPL stayed usable: the second prompt got an answer from the API.
      const texts = env.io.trace
        .filter((e) => e.kind === "response")
        .map((e) => (e as { text: string }).text);
      expect(texts.at(-1)).toMatch(/^answer [A-C]$/);
      expect(agent.messages.at(-1)).toMatchObject({ role: "assistant" });
    });
  }
});

describe("the REPL in a program that goes on", () => {
  it("hands back the signal listeners it added when it ends (a test worker runs it hundreds of times)", async () => {
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    const before = signals.map((s) => process.listenerCount(s));
    const agent: Agent = { messages: [], send: async () => {} };
    await repl(agent, []);
    expect(signals.map((s) => process.listenerCount(s))).toEqual(before);
  });
});
