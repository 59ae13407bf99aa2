// Choosing the model: the real Messages API when a key is set, the scripted model otherwise.
// The SDK is imported only when a real client is made: it is the slowest part of start-up, and
// offline runs do not need it.
import { hasCacheMarks, withPromptCache } from "../_shared/prompt-cache.ts";
import type { CallOptions, CreateParams, Message, ModelClient } from "../_shared/types.ts";

/** A current model; override with MODEL_ID. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** The two wire formats a chapter can run over: the Messages API (Anthropic, and servers that
 *  speak it: Ollama, llama.cpp, gateways) and OpenAI's chat completions (openai-client.ts). */
export type Provider = "anthropic" | "openai";
export const PROVIDERS: readonly Provider[] = ["anthropic", "openai"];

export interface ModelChoice {
  offline: boolean;
  /** Whose wire format the real model is spoken to in (absent offline). */
  provider?: Provider;
  modelId: string;
  /** Why this choice was made, for the banner. */
  reason: string;
  baseURL?: string;
  /** Why no model can be used as asked: the run stops with this sentence. */
  problem?: string;
}

/** The model a run uses: scripted when asked or when no credential is set; else the Messages
 *  API when an Anthropic credential is set, else chat completions when an OpenAI key or base URL
 *  is; `--provider` chooses between the two when both are set. */
export function chooseModel(
  env: NodeJS.ProcessEnv,
  forceOffline: boolean,
  provider?: Provider,
): ModelChoice {
  const set = (name: string) => Boolean(env[name]?.trim());
  const anthropic = set("ANTHROPIC_API_KEY") || set("ANTHROPIC_AUTH_TOKEN");
  const openai = set("OPENAI_API_KEY") || set("OPENAI_BASE_URL");
  const modelId = env.MODEL_ID?.trim() || DEFAULT_MODEL;
  if (forceOffline) return { offline: true, modelId, reason: "--offline was given" };
  const chosen = provider ?? (anthropic ? "anthropic" : openai ? "openai" : undefined);
  if (!chosen)
    return { offline: true, modelId, reason: "no ANTHROPIC_API_KEY (or OPENAI_API_KEY) is set" };
  if (chosen === "openai") {
    const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
    const reason = provider
      ? "--provider openai was given"
      : set("OPENAI_API_KEY")
        ? "OPENAI_API_KEY is set"
        : "OPENAI_BASE_URL is set";
    const problem = !openai
      ? "--provider openai needs OPENAI_API_KEY (OpenAI itself) or OPENAI_BASE_URL (a compatible server)."
      : !env.MODEL_ID?.trim()
        ? "Set MODEL_ID to a model your OpenAI-compatible endpoint serves (for example MODEL_ID=gpt-5-mini, or the name your local server lists)."
        : undefined;
    return {
      offline: false,
      provider: "openai",
      modelId: env.MODEL_ID?.trim() ?? "",
      reason,
      ...(baseURL && { baseURL }),
      ...(problem && { problem }),
    };
  }
  return {
    offline: false,
    provider: "anthropic",
    modelId,
    reason: provider
      ? "--provider anthropic was given"
      : set("ANTHROPIC_API_KEY")
        ? "ANTHROPIC_API_KEY is set"
        : "ANTHROPIC_AUTH_TOKEN is set",
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    ...(!anthropic && {
      problem: "--provider anthropic needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN.",
    }),
  };
}

/** A 200 answer that is not a message: a captive portal's HTML page, a proxy's `{}`, a gateway
 *  that speaks almost the same API. Caught here, it is one sentence; let through, it becomes
 *  "Cannot read properties of undefined (reading 'flatMap')" deep inside a chapter. */
export class NotAMessageError extends Error {
  name = "NotAMessageError";
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What is wrong with an answer that should be a Message, or undefined if it is one: a content
 *  list of blocks; text blocks with text, tool_use blocks with an id, a name and an input. */
export function notAMessage(answer: unknown): string | undefined {
  if (typeof answer === "string") {
    return answer.trimStart().startsWith("<") ? "an HTML page" : "text that is not JSON";
  }
  if (!isObject(answer)) return `${answer === null ? "null" : typeof answer}, not a JSON object`;
  if (!Array.isArray(answer.content)) return `a JSON object without a "content" list`;
  for (const block of answer.content) {
    if (!isObject(block) || typeof block.type !== "string") return "a content block without a type";
    if (block.type === "text" && typeof block.text !== "string") return "a text block without text";
    // Thinking is kept as it came: the API wants it back, signature and all, in the history.
    if (block.type === "thinking" && typeof block.thinking !== "string")
      return "a thinking block without its thinking";
    if (block.type === "redacted_thinking" && typeof block.data !== "string")
      return "a redacted_thinking block without data";
    const call = block.type === "tool_use";
    if (
      call &&
      (typeof block.id !== "string" || typeof block.name !== "string" || !isObject(block.input))
    ) {
      return "a tool_use block without an id, a name or an input";
    }
  }
  return undefined;
}

/** An error and the errors it wraps (`cause`), outermost first; a few levels are enough. */
function causes(err: unknown): { message?: unknown; code?: unknown }[] {
  const chain: Record<string, unknown>[] = [];
  for (let e = err; isObject(e) && chain.length < 6; e = e.cause) chain.push(e);
  return chain;
}

/** Node's fetch reports a connection cut in the middle of a body as `TypeError: terminated`
 *  (its cause a socket error): a message no one should have to decode. */
export const isDroppedConnection = (err: unknown) =>
  causes(err).some((e) => e.message === "terminated");

/** A socket error that reached us unwrapped: the network, not the API, failed. */
const SOCKET_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
]);
const isSocketError = (err: unknown) => causes(err).some((e) => SOCKET_CODES.has(String(e.code)));

/** The SDK warns of a deprecated model with console.warn on every call, whatever its logLevel:
 *  two lines at the left edge before each answer. Each such warning is said once per run. */
let warningsFiltered = false;
function warnOnlyOnce(): void {
  if (warningsFiltered) return;
  warningsFiltered = true;
  const warn = console.warn.bind(console);
  const said = new Set<string>();
  console.warn = (...args: unknown[]) => {
    const text = args.map(String).join(" ");
    if (/^The model '[^']*' is deprecated/.test(text)) {
      if (said.has(text)) return;
      said.add(text);
    }
    warn(...args);
  };
}

/** The real SDK client. The key (or else the token) is passed explicitly so the SDK never goes looking
 *  for other credentials; ANTHROPIC_BASE_URL points it at a proxy or a local fake server.
 *  The SDK's own retries are off: a chapter's call is one request, and s14 teaches retrying
 *  (a hidden retry would double its tries and make the trace count wrong). Every answer is
 *  checked right here, the one door all chapters' real calls go through.
 *
 *  Every call is streamed, so the terminal can show the answer as it comes (`onStream`); the
 *  chapter still gets the finished Message, the same object a call without streaming returns. */
export async function realClient(env: NodeJS.ProcessEnv): Promise<ModelClient> {
  const { default: Anthropic, APIConnectionError, APIError } = await import("@anthropic-ai/sdk");
  warnOnlyOnce();
  // One credential only: the SDK refuses two ("Pass at most one of apiKey, authToken"), and the
  // banner promises the key wins when both are set. SDK 1.14 sends either as Authorization: Bearer.
  const apiKey = env.ANTHROPIC_API_KEY?.trim() || null;
  const sdk = new Anthropic({
    apiKey,
    authToken: apiKey ? null : env.ANTHROPIC_AUTH_TOKEN?.trim() || null,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: 0,
    fetch: withUsageFilledIn(globalThis.fetch),
    // Every failure reaches the person as one sentence (describeModelError); the SDK's own log
    // lines would come first and bury it. ANTHROPIC_LOG=debug still shows them, for a bug report.
    logLevel: env.ANTHROPIC_LOG ? undefined : "off",
  });
  return {
    messages: {
      async create(body: CreateParams, options?: CallOptions): Promise<Message> {
        let answer: unknown;
        // Every real call reuses the cached prefix of the one before (tools, system, history):
        // most of each request's input at a tenth of the price. A chapter's own marks win (a2).
        const sent = hasCacheMarks(body) ? body : withPromptCache(body);
        try {
          answer = await streamed(sdk, sent, options);
        } catch (err) {
          // A body that does not parse (HTML sent as JSON, an event whose data is not JSON) is not
          // a message either; the stream helper wraps the SyntaxError, so look down the chain.
          if (causes(err).some((e) => e instanceof SyntaxError))
            throw new NotAMessageError("text that is not JSON", { cause: err });
          if (/^stream ended without producing a Message/.test((err as Error)?.message ?? ""))
            throw new NotAMessageError("an event stream that ended before the message did", {
              cause: err,
            });
          // A connection cut mid-answer is a network failure like any other (s14 retries those).
          if (isDroppedConnection(err)) {
            throw new APIConnectionError({
              message: "connection dropped mid-answer",
              cause: err as Error,
            });
          }
          // Once a stream has begun the API reports a failure as an `error` event, with no HTTP
          // status: give it its HTTP twin's status and class, so an overload is retried (s14).
          const twin = err instanceof APIError && err.status === undefined && statusOf(err.type);
          if (twin)
            throw APIError.generate(twin, err.error, undefined, err.headers ?? new Headers());
          throw err;
        }
        const wrong = notAMessage(answer);
        if (wrong) throw new NotAMessageError(wrong);
        return answer as Message;
      },
    },
  };
}

/** Servers that speak the Messages API for local models (Ollama, llama.cpp) may leave `usage` out
 *  of a stream's message_start and message_delta events; the SDK's stream reader then fails on
 *  `usage.output_tokens`. This fetch fills in zeros, which the printer shows as "unknown"
 *  (io.ts): the answer is kept, and no count is made up. Other events pass through untouched. */
export function withUsageFilledIn(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream"))
      return response;
    let carry = "";
    const lines = new TransformStream<string, string>({
      transform(chunk, out) {
        const parts = (carry + chunk).split("\n");
        carry = parts.pop()!;
        for (const line of parts) out.enqueue(`${fillUsage(line)}\n`);
      },
      flush(out) {
        if (carry) out.enqueue(fillUsage(carry));
      },
    });
    const body = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(lines)
      .pipeThrough(new TextEncoderStream());
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** One line of a Messages API stream, with zero counts where a server left `usage` out. */
function fillUsage(line: string): string {
  if (!line.startsWith("data:") || !/"message_(start|delta)"/.test(line)) return line;
  try {
    const data = JSON.parse(line.slice(5)) as Record<string, unknown>;
    if (data.type === "message_start" && isObject(data.message) && !isObject(data.message.usage))
      data.message.usage = { input_tokens: 0, output_tokens: 0 };
    else if (data.type === "message_delta" && !isObject(data.usage))
      data.usage = { output_tokens: 0 };
    else return line;
    return `data: ${JSON.stringify(data)}`;
  } catch {
    return line; // not JSON: the SDK reports it as it would have
  }
}

/** The HTTP status the Messages API gives each error type it documents. */
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};
const statusOf = (type: string | null | undefined) =>
  type && Object.hasOwn(ERROR_STATUS, type) ? ERROR_STATUS[type] : undefined;

type Sdk = InstanceType<(typeof import("@anthropic-ai/sdk"))["default"]>;

/** One streamed call: the events go to `onStream`, the accumulated message comes back. A server
 *  that answers with something other than a stream (a gateway that ignores `stream: true`, an
 *  HTML page, `{}`) is read as a plain answer instead, JSON or text, for notAMessage to judge. */
async function streamed(sdk: Sdk, body: CreateParams, options?: CallOptions): Promise<unknown> {
  const stream = sdk.messages.stream(body, { signal: options?.signal });
  let plain: Response | undefined;
  stream.on("connect", () => {
    const response = stream.response;
    // A copy, taken before the stream reader starts on the body (it finds no events in it).
    if (response && !response.headers.get("content-type")?.includes("text/event-stream"))
      plain = response.clone();
  });
  const tell = options?.onStream;
  if (tell) {
    // A tool call's input can take many seconds to arrive (a whole file for `write`): its size
    // so far is told as it grows, so the terminal shows work instead of silence.
    const inputs = new Map<number, { name: string; characters: number }>();
    stream.on("streamEvent", (event) => {
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
        const input = inputs.get(event.index);
        if (!input) return;
        input.characters += event.delta.partial_json.length;
        return tell({ type: "input", ...input });
      }
      if (event.type !== "content_block_start") return;
      const block = event.content_block;
      if (block.type === "tool_use") {
        inputs.set(event.index, { name: block.name, characters: 0 });
        return tell({ type: "input", name: block.name, characters: 0 });
      }
      const kind = block.type;
      tell({ type: kind === "thinking" || kind === "redacted_thinking" ? "thinking" : "answer" });
    });
    stream.on("text", (text) => tell({ type: "text", text }));
    stream.on("contentBlock", (block) => tell({ type: "block", block: wire(block) }));
  }
  const message = await stream.finalMessage().catch((err: unknown) => {
    if (!plain) throw err;
  });
  if (plain) {
    const text = await plain.text();
    return plain.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
  }
  const { parsed_output: _, ...rest } = wire(message!);
  return rest;
}

/** What the API sent, as plain JSON: the stream helper's snapshot carries getters and hidden
 *  fields (a tool input's raw JSON, `parsed_output`) that a non-streamed answer does not. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** One clear sentence for a failed model call, instead of a stack trace; it names the variables
 *  of the provider the run speaks to. */
export function describeModelError(
  err: unknown,
  modelId: string,
  provider: Provider = "anthropic",
): string {
  const [KEY, BASE_URL] =
    provider === "openai"
      ? ["OPENAI_API_KEY", "OPENAI_BASE_URL"]
      : ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"];
  if (err instanceof NotAMessageError) {
    return (
      `The API answered with something that is not a message (${err.message}); ` +
      `check that ${BASE_URL} points at the ${provider === "openai" ? "chat completions API" : "Messages API"}.`
    );
  }
  if (isDroppedConnection(err)) {
    return (
      "The connection to the model API broke off in the middle of an answer (network failure). " +
      "Check your connection and try again."
    );
  }
  // The SDK's error classes, recognised by name so this module need not load the SDK.
  const kind = (err as object | null)?.constructor?.name ?? "";
  if (kind === "APIConnectionTimeoutError")
    return "The model did not answer in time. Check your network and try again.";
  if (kind === "APIConnectionError" || isSocketError(err)) {
    return `Could not reach the model API (network failure). Check your connection or ${BASE_URL}.`;
  }
  if (err instanceof Error && "status" in err && "error" in err) {
    const apiError = err as Error & { status?: number; error?: { error?: { message?: string } } };
    const detail = apiError.error?.error?.message ?? err.message;
    switch (apiError.status) {
      case 400:
        return `The API rejected the request: ${detail}`;
      case 401:
        return `The API key was rejected (401). Check ${KEY}, or run with --offline.`;
      case 403:
        return "This key may not use that model or endpoint (403). Check your account's permissions.";
      case 404:
        // The API names the model it could not find; any other 404 is a path that does not exist.
        if (detail.includes(modelId) || /\bmodel\b/i.test(detail))
          return `The model "${modelId}" was not found (404): ${detail}. Set MODEL_ID to a model your account can use.`;
        return provider === "openai"
          ? `The endpoint answered 404 (${detail}). Check OPENAI_BASE_URL: it ends where /chat/completions is added, usually in /v1 (http://localhost:1234/v1).`
          : `The endpoint answered 404 (${detail}). Check ANTHROPIC_BASE_URL: the client adds /v1/messages itself, so it should not end in /v1.`;
      case 413:
        return "The request was too large for the API (413). Start a fresh session or compact the history.";
      case 429:
        // The usage tier's monthly spend cap answers 429 too, until next month: waiting is no help.
        if ((err as { errorCode?: unknown }).errorCode === "enforced_spend_limit_reached")
          return `The organization reached its monthly spend cap (429): ${detail}`;
        return "Rate limited (429): too many requests. Wait a moment and try again.";
      case 529:
        return "The API is overloaded (529). Wait a moment and try again.";
      default:
        if (apiError.status && apiError.status >= 500)
          return `The API had a server error (${apiError.status}). Try again shortly.`;
        return `The model call failed: ${detail}`;
    }
  }
  return `The model call failed: ${err instanceof Error ? err.message : String(err)}`;
}
