// A local stand-in for the Messages API: records request bodies, answers from a queue.
import { createServer, type IncomingMessage, type Server } from "node:http";
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
}

export interface FakeApi {
  url: string;
  requests: { headers: IncomingMessage["headers"]; body: Record<string, unknown> }[];
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
export const droppedMidBody = (): FakeReply => ({
  ...endTurn("this answer never arrives whole"),
  dropMidBody: true,
});

export async function startFakeApi(replies: FakeReply[]): Promise<FakeApi> {
  const requests: FakeApi["requests"] = [];
  const server: Server = createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: data ? JSON.parse(data) : {} });
      const reply = replies.shift() ?? endTurn("(no more replies)");
      if (reply.hang) return;
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
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
