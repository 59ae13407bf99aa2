// A local stand-in for the Messages API: records request bodies, answers from a queue — a JSON
// body, or (streamed()) the server-sent events of a streamed answer, paced as a test needs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeReply {
  status?: number;
  body: unknown;
  /** Send this text as the body, as is, instead of JSON.stringify(body) (an HTML page, say). */
  raw?: string;
  /** Defaults to application/json, whatever the body is: a broken proxy says so too. */
  contentType?: string;
  /** More response headers, such as retry-after. */
  headers?: Record<string, string>;
  /** Send the headers and the first half of the body, then cut the connection. */
  dropMidBody?: boolean;
  /** Never answer (a model call that hangs, for Ctrl-C). */
  hang?: boolean;
  /** Answer with these server-sent events instead of a body (see streamed()). */
  events?: SseEvent[];
  /** Wait this long before the first event, and between two events. */
  firstDelayMs?: number;
  delayMs?: number;
  /** Send the events up to this index, then hold the connection open (Ctrl-C mid-stream). */
  hangAfter?: number;
  /** Before each event: what to wait for first (a promise the test settles when it has seen
   *  what it wants on screen), so a test orders events by conditions, not by delays. */
  before?: (event: SseEvent, index: number, all: SseEvent[]) => Promise<void> | void;
}

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

export interface FakeApi {
  url: string;
  requests: {
    headers: IncomingMessage["headers"];
    body: Record<string, unknown>;
    /** When the request had arrived whole (Date.now()). */
    at: number;
  }[];
  /** Every streamed event as it was written, with the request it answers (its index). */
  sent: { request: number; event: string; at: number }[];
  close(): Promise<void>;
}

export const endTurn = (text: string): FakeReply => ({
  body: {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "fake",
    stop_reason: "end_turn",
    stop_sequence: null,
    content: [{ type: "text", text }],
    usage: { input_tokens: 1, output_tokens: 1 },
  },
});

export const apiError = (
  status: number,
  type: string,
  message: string,
  more: { errorCode?: string; retryAfterSeconds?: number } = {},
): FakeReply => ({
  status,
  body: {
    type: "error",
    error: { type, message, ...(more.errorCode && { details: { error_code: more.errorCode } }) },
  },
  headers:
    more.retryAfterSeconds === undefined ? {} : { "retry-after": String(more.retryAfterSeconds) },
});

/** A 200 whose body is not a message: what a captive portal, a misconfigured proxy or a
 *  half-compatible gateway sends back. */
export const htmlPage = (): FakeReply => ({
  body: null,
  raw: "<!doctype html><html><body><h1>Welcome to the hotel Wi-Fi</h1></body></html>",
  contentType: "text/html",
});
export const emptyObject = (): FakeReply => ({ body: {} });
export const nullContent = (): FakeReply => ({
  body: { ...(endTurn("x").body as object), content: null },
});
export const hang = (): FakeReply => ({ body: null, hang: true });
/** A reply that calls one tool, after `text` when one is given (as the real API sends both). */
export const toolUse = (
  name: string,
  input: Record<string, unknown>,
  text?: string,
): FakeReply => ({
  body: {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "fake",
    stop_reason: "tool_use",
    stop_sequence: null,
    content: [
      ...(text === undefined ? [] : [{ type: "text", text }]),
      { type: "tool_use", id: `toolu_${Math.random().toString(36).slice(2)}`, name, input },
    ],
    usage: { input_tokens: 1, output_tokens: 1 },
  },
});
/** A stream that starts (message_start, a first piece of text) and then reports an error as an
 *  `error` event, as the real API does for an overload once a stream has begun. */
export const errorMidStream = (type: string, message: string): FakeReply => ({
  body: null,
  events: [
    ...streamed(endTurn("partial answer")).events!.slice(0, 3),
    { event: "error", data: { type: "error", error: { type, message } } },
  ],
});
export const droppedMidBody = (): FakeReply => ({
  ...endTurn("this answer never arrives whole"),
  dropMidBody: true,
});

/** A message reply (endTurn, toolUse, ...) sent as the Messages API streams it: message_start,
 *  each block's start, deltas (text in `pieces` chunks, tool input as partial JSON) and stop,
 *  message_delta with the stop reason and output tokens, message_stop. `thinking` adds a thinking
 *  block first; `usage` replaces the counts. */
export function streamed(
  reply: FakeReply,
  opts: {
    pieces?: number;
    thinking?: string;
    usage?: Record<string, number>;
    firstDelayMs?: number;
    delayMs?: number;
    hangAfter?: number;
    before?: FakeReply["before"];
  } = {},
): FakeReply {
  const message = structuredClone(reply.body) as Record<string, unknown> & {
    content: Record<string, unknown>[];
    usage: Record<string, number>;
  };
  if (opts.usage) message.usage = opts.usage;
  if (opts.thinking !== undefined)
    message.content.unshift({ type: "thinking", thinking: opts.thinking, signature: "sig_fake" });
  const pieces = opts.pieces ?? 3;
  const split = (text: string) => {
    const size = Math.max(1, Math.ceil(text.length / pieces));
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  };
  const { output_tokens, ...startUsage } = message.usage;
  const events: SseEvent[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...startUsage, output_tokens: 1 },
        },
      },
    },
  ];
  message.content.forEach((block, index) => {
    const start =
      block.type === "text"
        ? { ...block, text: "" }
        : block.type === "thinking"
          ? { ...block, thinking: "", signature: "" }
          : { ...block, input: {} };
    events.push({
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: start },
    });
    const deltas =
      block.type === "text"
        ? split(block.text as string).map((text) => ({ type: "text_delta", text }))
        : block.type === "thinking"
          ? [
              ...split(block.thinking as string).map((thinking) => ({
                type: "thinking_delta",
                thinking,
              })),
              { type: "signature_delta", signature: block.signature },
            ]
          : split(JSON.stringify(block.input)).map((partial_json) => ({
              type: "input_json_delta",
              partial_json,
            }));
    for (const delta of deltas)
      events.push({
        event: "content_block_delta",
        data: { type: "content_block_delta", index, delta },
      });
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push(
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence ?? null },
        usage: { output_tokens },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return {
    body: message,
    events,
    firstDelayMs: opts.firstDelayMs,
    delayMs: opts.delayMs,
    hangAfter: opts.hangAfter,
    before: opts.before,
  };
}

export async function startFakeApi(replies: FakeReply[]): Promise<FakeApi> {
  const requests: FakeApi["requests"] = [];
  const sent: FakeApi["sent"] = [];
  const wait = (ms = 0) => new Promise((r) => setTimeout(r, ms));
  const sendEvents = async (reply: FakeReply, res: ServerResponse, request: number) => {
    res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream" });
    await wait(reply.firstDelayMs);
    for (const [i, { event, data }] of reply.events!.entries()) {
      if (i > 0) await wait(reply.delayMs);
      await reply.before?.(reply.events![i], i, reply.events!);
      if (res.destroyed) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      sent.push({ request, event, at: Date.now() });
      if (i === reply.hangAfter) return;
    }
    res.end();
  };
  const server: Server = createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: data ? JSON.parse(data) : {}, at: Date.now() });
      const reply = replies.shift() ?? endTurn("(no more replies)");
      if (reply.hang) return;
      if (reply.events) return void sendEvents(reply, res, requests.length - 1);
      const text = reply.raw ?? JSON.stringify(reply.body);
      if (reply.dropMidBody) {
        // Promise the whole body, send half of it, and hang up.
        res.writeHead(reply.status ?? 200, {
          "content-type": reply.contentType ?? "application/json",
          "content-length": Buffer.byteLength(text),
        });
        res.write(text.slice(0, text.length >> 1), () => res.socket?.destroy());
        return;
      }
      res.writeHead(reply.status ?? 200, {
        "content-type": reply.contentType ?? "application/json",
        ...reply.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sent,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
