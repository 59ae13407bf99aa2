/**
 * s05 · Context compaction
 *
 * Every tool result stays in the conversation, and the whole conversation is sent with every
 * call. A long session fills the context window with output the model has long since used, and
 * then the window is full. Three layers keep it small, from cheap to drastic:
 *   1. micro-compaction, before every call: old, long tool results become a one-line marker;
 *   2. auto-compaction, when the estimated size passes a threshold: the full transcript is saved
 *      to .transcripts/, the model summarises it, and that summary replaces the history;
 *   3. the `compact` tool: the model asks for layer 2 itself, and the turn ends there.
 * Tools: the five base tools of s02 plus `compact`.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import {
  BASE_HANDLERS,
  BASE_TOOLS,
  normalizeMessages,
  writeInside,
  runTool,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import { roughTokens } from "../_shared/tokens.ts";
import type {
  Agent,
  AgentEnv,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files: read before you edit, prefer edit over rewriting whole files. Paths are relative to
the workspace. Old tool results may be cleared to save space: run the tool again if you need one.
When a stretch of work is finished and its details no longer matter, call compact.
When the task is done, say so briefly.`;

// #region micro
/** The most recent results are what the model is working with: they are never cleared. */
export const KEEP_RECENT = 3;
/** Results this short stay: clearing them saves little (the marker is ~45 characters) and a short
 *  result, an exit code or a one-line answer, is often what the model is still reasoning about. */
export const MIN_CLEAR_CHARS = 100;

/** Layer 1, before every call. Replaces the text of old, long tool results with a marker, in the
 *  stored history itself, so each call after this one is smaller too. `read` results stay: the
 *  model reads a file in order to edit it, and clearing it would only make it read it again. */
export function microCompact(messages: MessageParam[]): { tool: string; chars: number }[] {
  const toolName = new Map<string, string>(); // tool_use id → tool name
  const results: ToolResultBlockParam[] = [];
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_use") toolName.set(block.id, block.name);
      if (block.type === "tool_result") results.push(block);
    }
  }
  const cleared: { tool: string; chars: number }[] = [];
  for (const result of results.slice(0, Math.max(0, results.length - KEEP_RECENT))) {
    const tool = toolName.get(result.tool_use_id) ?? "unknown";
    if (
      tool === "read" ||
      typeof result.content !== "string" ||
      result.content.length <= MIN_CLEAR_CHARS
    )
      continue;
    cleared.push({ tool, chars: result.content.length });
    result.content = `[earlier tool result cleared: ${tool}, ${result.content.length} chars]`;
  }
  return cleared;
}
// #endregion micro

// #region auto
/** Compact when the history is estimated to be larger than this (override per agent). */
export const TOKEN_THRESHOLD = 50_000;
export const TRANSCRIPTS_DIR = ".transcripts";

/** Rough but free: about four characters per token. Good enough to decide when to compact. */
export function estimateTokens(messages: MessageParam[]): number {
  return roughTokens(messages); // chapters/_shared/tokens.ts: the JSON's length / 4
}

/** Layers 2 and 3. Keep everything on disk first, then swap the whole history for one user
 *  message holding the model's own summary (and where the full transcript is, should it need it). */
export async function compactHistory(
  env: AgentEnv,
  messages: MessageParam[],
  focus?: string,
): Promise<string> {
  const before = estimateTokens(messages);
  const transcript = saveTranscript(env.workspace, messages);
  env.io.note(
    `transcript of ${messages.length} messages saved to ${transcript}; asking the model for a summary`,
  );
  const summary = await summarize(env, messages, focus);
  // A harness that keeps transcripts in its state folder (appendix B) hands compaction an env
  // whose workspace is that folder, where the model's tools cannot read: then it names no file.
  const where =
    env.workspace === env.stateDir
      ? "The full transcript is kept where your tools cannot read it."
      : `The full transcript is in ${transcript}.`;
  messages.splice(0, messages.length, {
    role: "user",
    content: `[This conversation was compacted. ${where}]\n\n${summary}`,
  });
  const after = estimateTokens(messages);
  env.io.note(`history replaced by one summary message: ~${before} → ~${after} tokens`);
  env.io.event("compacted", { transcript, before, after });
  return transcript;
}

/** One JSON message per line: nothing is lost, only moved out of the context window. */
function saveTranscript(root: string, messages: MessageParam[]): string {
  let stamp = Date.now();
  while (existsSync(path.join(root, TRANSCRIPTS_DIR, `transcript_${stamp}.jsonl`))) stamp++;
  const relative = `${TRANSCRIPTS_DIR}/transcript_${stamp}.jsonl`;
  // Through the jail's race-free open, like the model's write: the workspace is the model's too.
  writeInside(root, relative, messages.map((m) => JSON.stringify(m)).join("\n") + "\n");
  return relative;
}

const MAX_SUMMARY_INPUT = 80_000;

/** A separate call, without tools: the conversation goes in as text, a summary comes out. */
async function summarize(env: AgentEnv, messages: MessageParam[], focus?: string): Promise<string> {
  let conversation = JSON.stringify(messages);
  if (conversation.length > MAX_SUMMARY_INPUT) {
    // Keep the start (the goal) and the end (where the work is now).
    const head = MAX_SUMMARY_INPUT / 4;
    conversation = `${conversation.slice(0, head)}\n…\n${conversation.slice(-(MAX_SUMMARY_INPUT - head))}`;
  }
  const response = await env.model.messages.create({
    model: env.modelId,
    max_tokens: 2000,
    system: "You summarise coding-agent sessions so the work can continue from the summary alone.",
    messages: [
      {
        role: "user",
        content:
          "Summarise this conversation. Keep the user's goal, what was done (files, commands, results), " +
          "decisions and why, open problems, and the next step." +
          (focus ? ` Pay special attention to: ${focus}.` : "") +
          `\n\n<conversation>\n${conversation}\n</conversation>`,
      },
    ],
  });
  env.io.assistant(response);
  return (
    response.content
      .flatMap((b) => (b.type === "text" ? [b.text] : []))
      .join("\n")
      .trim() || "(empty summary)"
  );
}
// #endregion auto

// #region tool
export const COMPACT_TOOL: Tool = {
  name: "compact",
  description:
    "Summarise the conversation so far and replace it with the summary, freeing context. " +
    "The full transcript is kept on disk. Ends the current turn.",
  input_schema: {
    type: "object",
    properties: { focus: { type: "string", description: "What the summary must keep (optional)" } },
  },
};
export const TOOLS: Tool[] = [...BASE_TOOLS, COMPACT_TOOL];
// #endregion tool

export interface CompactOptions {
  /** Auto-compact when the estimated history passes this many tokens. */
  tokenThreshold?: number;
}

// #region loop
export async function agentLoop(
  env: AgentEnv,
  messages: MessageParam[],
  tokenThreshold: number,
): Promise<void> {
  // The compact tool's own work happens below, after its result is in the history.
  const handlers: Record<string, ToolHandler> = {
    ...BASE_HANDLERS,
    compact: () => "Compacting the conversation.",
  };
  for (;;) {
    const cleared = microCompact(messages);
    if (cleared.length) {
      env.io.note(
        `micro-compaction: cleared ${cleared.map((c) => `${c.tool} (${c.chars} chars)`).join(", ")}`,
      );
    }
    const tokens = estimateTokens(messages);
    // More than one message: a history that is only a summary cannot be compacted further.
    if (tokens > tokenThreshold && messages.length > 1) {
      env.io.note(`auto-compaction: ~${tokens} tokens is over the threshold of ${tokenThreshold}`);
      await compactHistory(env, messages);
    }

    const response = await env.model.messages.create({
      model: env.modelId,
      system: SYSTEM,
      messages: normalizeMessages(messages),
      tools: TOOLS,
      max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") return;

    const results: ToolResultBlockParam[] = [];
    let compactFocus: string | undefined;
    let compactAsked = false;
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { output, isError } = await runTool(
        handlers,
        block,
        { root: env.workspace, sandbox: env.sandbox },
        TOOLS,
      );
      env.io.toolResult(block, output, isError);
      results.push({
        type: "tool_result",
        tool_use_id: block.id,
        content: output,
        is_error: isError,
      });
      if (block.name === "compact") {
        compactAsked = true;
        const { focus } = block.input as { focus?: unknown };
        if (typeof focus === "string" && focus.trim()) compactFocus = focus.trim();
      }
    }
    messages.push({ role: "user", content: results });
    if (compactAsked) {
      // Manual compaction ends the turn: the summary is the last word until the user speaks.
      await compactHistory(env, messages, compactFocus);
      return;
    }
  }
}
// #endregion loop

// #region agent
export function createAgent(
  env: AgentEnv,
  { tokenThreshold = TOKEN_THRESHOLD }: CompactOptions = {},
): Agent {
  const messages: MessageParam[] = [];
  return {
    messages,
    commands: {
      "/tokens": {
        help: "estimated size of the conversation, and the auto-compaction threshold",
        run: () =>
          `~${estimateTokens(messages)} tokens in ${messages.length} messages (auto-compaction above ${tokenThreshold})`,
      },
    },
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, tokenThreshold);
    },
  };
}
// #endregion agent
