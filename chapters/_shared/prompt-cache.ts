// Prompt caching, for every real call (the runner applies it, chapters/_runner/model.ts) and shown
// as a mechanism in a2. The API reads a request as tools, then system, then messages, and keeps the
// prefix up to each block marked `cache_control` for five minutes.
import type { CreateParams, MessageParam } from "./types.ts";

const EPHEMERAL = { type: "ephemeral" } as const;
const markLast = <T>(list: T[], mark: (item: T) => T): T[] =>
  list.map((item, i) => (i === list.length - 1 ? mark(item) : item));

/** Every call re-sends the same tools and system prompt, and the history grows at its end only:
 *  the API can cache such a prefix. It reads a request as tools, then system, then messages, and
 *  keeps the prefix up to each block marked `cache_control` for five minutes. Three marks: the
 *  last tool (the tools never change), the system prompt (it changes when a memory or a skill
 *  does) and the newest message (the next call reads the whole history so far from the cache).
 *  A cached read costs a tenth of the input price, writing one a quarter more; `usage` counts
 *  both (cache_read_input_tokens, cache_creation_input_tokens). */
export function withPromptCache(body: CreateParams): CreateParams {
  const system =
    typeof body.system === "string"
      ? [{ type: "text" as const, text: body.system, cache_control: EPHEMERAL }]
      : body.system;
  const messages = markLast(body.messages, (message) => {
    const content =
      typeof message.content === "string"
        ? [{ type: "text" as const, text: message.content }]
        : message.content;
    // A thinking block cannot carry a mark.
    const marked = markLast(content, (b) =>
      b.type === "thinking" || b.type === "redacted_thinking"
        ? b
        : { ...b, cache_control: EPHEMERAL },
    );
    return { ...message, content: marked } as MessageParam;
  });
  const tools = body.tools && markLast(body.tools, (t) => ({ ...t, cache_control: EPHEMERAL }));
  return { ...body, system, tools, messages } as CreateParams;
}

const marked = (item: unknown) =>
  typeof item === "object" && item !== null && "cache_control" in item;

/** Whether a request already carries cache marks (a chapter that places its own, like a2): on a
 *  system block, a tool or a message's block, not merely the words in some text. */
export const hasCacheMarks = (body: CreateParams): boolean =>
  (Array.isArray(body.system) && body.system.some(marked)) ||
  (body.tools ?? []).some(marked) ||
  body.messages.some((m) => Array.isArray(m.content) && m.content.some(marked));
