// The offline model: it plays a chapter's scripted scenario so the harness runs for real
// (files written, commands run) without a key or a network. It is plumbing, not the lesson.
import type {
  ContentBlock,
  CreateParams,
  Message,
  ModelClient,
  ScriptedTurn,
  TurnContext,
} from "../_shared/types.ts";

export const SCRIPT_OVER =
  "(scripted model) That is the end of this chapter's scenario. Set ANTHROPIC_API_KEY to keep " +
  "going with a real model, or run again with --reset to replay it.";

/** Raised when a scenario is wrong for its chapter (for example it names a missing tool). */
export class ScenarioError extends Error {
  name = "ScenarioError";
}

export interface RecordedRequest {
  agent: string;
  body: CreateParams;
}

function resultText(block: object): string {
  const c = (block as { content?: unknown }).content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p: { text?: string }) => p.text ?? "").join("");
  return "";
}

export class ScriptedModel {
  /** Every request any agent sent, in order: tests read tools and messages from here. */
  readonly requests: RecordedRequest[] = [];
  private readonly position = new Map<string, number>();
  private ids = 0;

  constructor(private readonly script: Record<string, ScriptedTurn[]>) {}

  /** A client for one agent; each agent walks its own list of turns. */
  for(agent = "lead"): ModelClient {
    return { messages: { create: (body) => this.reply(agent, body) } };
  }

  /** True once every agent has used all of its turns. */
  get finished(): boolean {
    return Object.entries(this.script).every(
      ([a, turns]) => (this.position.get(a) ?? 0) >= turns.length,
    );
  }

  private async reply(agent: string, body: CreateParams): Promise<Message> {
    this.requests.push({ agent, body: structuredClone(body) });
    const key = agent in this.script ? agent : "*";
    const turns = this.script[key] ?? [];
    const index = this.position.get(key) ?? 0;
    this.position.set(key, index + 1);
    // Let other agents (teammates running "concurrently") interleave like a real network call.
    await new Promise((r) => setImmediate(r));

    const turn = turns[index];
    if (turn === undefined)
      return this.message(body, [{ type: "text", text: SCRIPT_OVER, citations: null }], "end_turn");
    const reply = typeof turn === "function" ? turn(contextOf(agent, body)) : turn;

    if (reply.error) {
      const { status, type, message, retryAfterSeconds } = reply.error;
      const headers = new Headers(
        retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
      );
      const { APIError } = await import("@anthropic-ai/sdk/core/error"); // loaded only when a scenario needs a failure
      throw APIError.generate(
        status,
        { type: "error", error: { type, message } },
        message,
        headers,
      );
    }
    const known = new Set((body.tools ?? []).map((t) => ("name" in t ? t.name : "")));
    const content: ContentBlock[] = [];
    if (reply.text) content.push({ type: "text", text: reply.text, citations: null });
    for (const call of reply.calls ?? []) {
      if (!known.has(call.name)) {
        throw new ScenarioError(
          `scenario turn ${index + 1} of "${agent}" calls the tool "${call.name}", which this agent does not have ` +
            `(its tools: ${[...known].join(", ") || "none"})`,
        );
      }
      content.push({
        type: "tool_use",
        id: `toolu_${agent}_${++this.ids}`,
        name: call.name,
        input: call.input,
        caller: { type: "direct" },
      });
    }
    const stop = reply.stop_reason ?? (reply.calls?.length ? "tool_use" : "end_turn");
    return this.message(body, content, stop);
  }

  private message(
    body: CreateParams,
    content: ContentBlock[],
    stop: Message["stop_reason"],
  ): Message {
    const size = JSON.stringify(body.messages).length;
    return {
      id: `msg_scripted_${++this.ids}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: {
        input_tokens: Math.ceil(size / 4),
        output_tokens: Math.ceil(JSON.stringify(content).length / 4),
      },
    } as Message;
  }
}

function contextOf(agent: string, request: CreateParams): TurnContext {
  const results = () =>
    request.messages.flatMap((m) =>
      Array.isArray(m.content)
        ? m.content.filter((b) => b.type === "tool_result").map(resultText)
        : [],
    );
  return { agent, request, results, lastResult: () => results().at(-1) ?? "" };
}
