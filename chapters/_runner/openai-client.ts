// The other wire format: a model client for the OpenAI-compatible chat-completions protocol
// (OpenAI itself, Gemini's compatible endpoint, LM Studio, vLLM, Ollama's /v1). The chapters keep
// speaking the Messages API's shapes; this one adapter translates a request into a chat
// completion and the answer back, so the agent loop does not change — only the wire does.
//
//   Messages API                          chat completions
//   system (string or text blocks)    →   a first { role: "system" } message
//   tool_use block in an assistant turn → tool_calls[] { id, function: { name, arguments: JSON } }
//   tool_result block in a user turn  →   a { role: "tool", tool_call_id } message of its own
//   thinking blocks                   →   left out (the protocol has no field for them)
//   stop_reason end_turn / tool_use / max_tokens ← finish_reason stop / tool_calls / length
//   usage input / output / cache read ← prompt_tokens (less cached) / completion_tokens / cached_tokens
//
// Errors come back as the Anthropic SDK's own classes (an APIError with the HTTP status, an
// APIConnectionError), so s14 retries an overload and describeModelError words it the same way.
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CallOptions, CreateParams, Message, ModelClient } from "../_shared/types.ts";

type ChatMessage = import("openai/resources/chat/completions").ChatCompletionMessageParam;
type ChatTool = import("openai/resources/chat/completions").ChatCompletionTool;
type ContentBlock = Message["content"][number];

/** A block's text, for the places the chat protocol takes text only (a tool's result). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string }) =>
      b.type === "text"
        ? (b.text ?? "")
        : `[${b.type ?? "block"} left out: not sent over this protocol]`,
    )
    .join("\n");
}

/** The Messages API request as a chat completion's messages and tools. */
export function toChatRequest(body: CreateParams): {
  messages: ChatMessage[];
  tools: ChatTool[] | undefined;
} {
  const messages: ChatMessage[] = [];
  const system = typeof body.system === "string" ? body.system : textOf(body.system ?? []);
  if (system) messages.push({ role: "system", content: system });
  for (const turn of body.messages) {
    if (typeof turn.content === "string") {
      messages.push({ role: turn.role, content: turn.content });
      continue;
    }
    if (turn.role === "assistant") {
      const text = turn.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      const calls = turn.content.flatMap((b) =>
        b.type === "tool_use"
          ? [
              {
                id: b.id,
                type: "function" as const,
                function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
              },
            ]
          : [],
      );
      messages.push({
        role: "assistant",
        content: text || null,
        ...(calls.length && { tool_calls: calls }),
      });
      continue;
    }
    // A user turn: each tool result is a message of its own, and they come first, right after
    // the assistant message whose calls they answer (the protocol requires that order).
    for (const b of turn.content)
      if (b.type === "tool_result") {
        const text = textOf(b.content ?? "");
        messages.push({
          role: "tool",
          tool_call_id: b.tool_use_id,
          content: b.is_error ? `Error: ${text}` : text,
        });
      }
    const text = turn.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    if (text) messages.push({ role: "user", content: text });
  }
  const tools = body.tools?.flatMap((t) =>
    "input_schema" in t
      ? [
          {
            type: "function" as const,
            function: {
              name: t.name,
              description: t.description ?? "",
              parameters: t.input_schema as Record<string, unknown>,
            },
          },
        ]
      : [],
  );
  return { messages, tools: tools?.length ? tools : undefined };
}

const STOP: Record<string, Message["stop_reason"]> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

/** The chunks of a streamed chat completion, put together as one Messages API answer. */
export class ChatAnswer {
  private text = "";
  private calls: { id: string; name: string; args: string }[] = [];
  private finish: string | null = null;
  private usage: ChatCompletionChunk["usage"] | undefined;
  model = "";
  id = "";

  /** Takes one chunk; says what the terminal may show of it. */
  add(chunk: ChatCompletionChunk, tell?: CallOptions["onStream"]): void {
    this.id ||= chunk.id;
    this.model ||= chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (delta.content) {
      if (!this.text && !this.calls.length) tell?.({ type: "answer" });
      this.text += delta.content;
      tell?.({ type: "text", text: delta.content });
    }
    // A call's arguments arrive in pieces, keyed by the call's index; its id and name come once.
    for (const part of delta.tool_calls ?? []) {
      const call = (this.calls[part.index] ??= { id: "", name: "", args: "" });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.args += part.function.arguments;
      tell?.({ type: "input", name: call.name, characters: call.args.length });
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  /** The answer as the Messages API would have sent it. A call whose arguments are not a JSON
   *  object gets `{}` and the raw text under `_unparsed`, so the chapter's input check refuses it
   *  with a reason the model can read, instead of the harness crashing. */
  message(fallbackModel: string): Message {
    const content: ContentBlock[] = [];
    if (this.text) content.push({ type: "text", text: this.text, citations: null });
    this.calls.forEach((call, i) => {
      let input: unknown;
      try {
        input = call.args.trim() ? JSON.parse(call.args) : {};
      } catch {
        input = undefined;
      }
      const object = typeof input === "object" && input !== null && !Array.isArray(input);
      content.push({
        type: "tool_use",
        id: call.id || `call_${i}`,
        name: call.name,
        input: object ? input : { _unparsed: call.args },
      } as ContentBlock);
    });
    const cached = this.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const stop =
      (this.finish && STOP[this.finish]) ?? (this.calls.length ? "tool_use" : "end_turn");
    return {
      id: this.id || "chat",
      type: "message",
      role: "assistant",
      model: this.model || fallbackModel,
      content,
      stop_reason: stop,
      stop_sequence: null,
      // A server that sends no usage (many local ones) leaves it out: no counts beat made-up ones.
      usage: (this.usage
        ? {
            input_tokens: Math.max(0, (this.usage.prompt_tokens ?? 0) - cached),
            output_tokens: this.usage.completion_tokens ?? 0,
            cache_read_input_tokens: cached,
            cache_creation_input_tokens: null,
          }
        : undefined) as Message["usage"],
    } as Message;
  }
}

/** A chat-completions client speaking to the chapters in Messages API shapes. OPENAI_BASE_URL
 *  points it at any compatible server; OPENAI_API_KEY is optional for a local one. */
export async function openaiClient(env: NodeJS.ProcessEnv): Promise<ModelClient> {
  const {
    default: OpenAI,
    APIError: ChatError,
    APIConnectionError: ChatConnectionError,
  } = await import("openai");
  const { APIError, APIConnectionError } = await import("@anthropic-ai/sdk");
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  const sdk = new OpenAI({
    // A local server takes any key; the SDK insists on one.
    apiKey: env.OPENAI_API_KEY?.trim() || "no-key",
    baseURL,
    maxRetries: 0, // s14 teaches retrying; the SDK's own would hide it
    logLevel: env.OPENAI_LOG ? undefined : "off",
  });
  // OpenAI's own newer models refuse `max_tokens`; compatible servers know only that name.
  const limitField = baseURL ? "max_tokens" : "max_completion_tokens";
  return {
    messages: {
      async create(body: CreateParams, options?: CallOptions): Promise<Message> {
        const { messages, tools } = toChatRequest(body);
        const answer = new ChatAnswer();
        try {
          const stream = await sdk.chat.completions.create(
            {
              model: body.model,
              messages,
              ...(tools && { tools }),
              [limitField]: body.max_tokens,
              stream: true,
              stream_options: { include_usage: true },
            },
            { signal: options?.signal },
          );
          for await (const chunk of stream) answer.add(chunk, options?.onStream);
        } catch (err) {
          if (err instanceof ChatConnectionError)
            throw new APIConnectionError({ message: err.message, cause: err });
          if (err instanceof ChatError && err.status !== undefined)
            throw APIError.generate(
              err.status,
              {
                error: { type: String(err.type ?? err.code ?? "api_error"), message: err.message },
              },
              err.message,
              new Headers(err.headers as HeadersInit | undefined),
            );
          throw err;
        }
        const message = answer.message(body.model);
        for (const block of message.content) options?.onStream?.({ type: "block", block });
        return message;
      },
    },
  };
}
