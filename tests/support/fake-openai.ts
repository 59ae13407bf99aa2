// Answers in OpenAI's chat-completions wire format, for the fake server of fake-api.ts (which
// serves any body as given): a streamed completion as server-sent `data:` lines ending in
// `[DONE]`, with text and tool-call arguments cut into pieces the way real servers send them.
import type { FakeReply } from "./fake-api.ts";

export interface ChatScript {
  text?: string[];
  /** Each call's arguments as the pieces they arrive in (their concatenation is the JSON). */
  calls?: { id: string; name: string; args: string[] }[];
  finish?: "stop" | "tool_calls" | "length" | "content_filter";
  /** Left out, the stream has no usage chunk (as many local servers do). */
  usage?: { prompt_tokens: number; completion_tokens: number; cached?: number };
}

export function chatStream(script: ChatScript): FakeReply {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake" };
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: object[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of script.text ?? []) chunks.push(chunk({ content: piece }));
  (script.calls ?? []).forEach((call, index) => {
    call.args.forEach((piece, i) =>
      chunks.push(
        chunk({
          tool_calls: [
            {
              index,
              ...(i === 0 && { id: call.id, type: "function" }),
              function: { ...(i === 0 && { name: call.name }), arguments: piece },
            },
          ],
        }),
      ),
    );
  });
  chunks.push(chunk({}, script.finish ?? (script.calls?.length ? "tool_calls" : "stop")));
  if (script.usage)
    chunks.push({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: script.usage.prompt_tokens,
        completion_tokens: script.usage.completion_tokens,
        total_tokens: script.usage.prompt_tokens + script.usage.completion_tokens,
        ...(script.usage.cached !== undefined && {
          prompt_tokens_details: { cached_tokens: script.usage.cached },
        }),
      },
    });
  return {
    body: null,
    raw: `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`,
    contentType: "text/event-stream",
  };
}

/** An error answer as OpenAI-compatible servers send one. */
export const chatError = (status: number, message: string, type = "server_error"): FakeReply => ({
  status,
  body: { error: { message, type, code: null, param: null } },
});
