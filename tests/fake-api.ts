// A local stand-in for the Messages API: records request bodies, answers from a queue.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeReply {
  status?: number;
  body: unknown;
}

export interface FakeApi {
  url: string;
  requests: { headers: IncomingMessage["headers"]; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export const endTurn = (text: string): FakeReply => ({
  body: {
    id: "msg_fake", type: "message", role: "assistant", model: "fake", stop_reason: "end_turn", stop_sequence: null,
    content: [{ type: "text", text }], usage: { input_tokens: 1, output_tokens: 1 },
  },
});

export const apiError = (status: number, type: string, message: string): FakeReply =>
  ({ status, body: { type: "error", error: { type, message } } });

export async function startFakeApi(replies: FakeReply[]): Promise<FakeApi> {
  const requests: FakeApi["requests"] = [];
  const server: Server = createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: data ? JSON.parse(data) : {} });
      const reply = replies.shift() ?? endTurn("(no more replies)");
      res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
