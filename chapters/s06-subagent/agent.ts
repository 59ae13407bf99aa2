/**
 * s06 · Subagents
 *
 * Every file the agent reads and every command it runs stays in its conversation. A side
 * question ("what do these modules do?") can fill the context with pages of output the lead
 * needs only one paragraph of. The fix is delegation: a `task` tool that starts a child agent
 * with a fresh conversation, lets it work in its own loop, and hands back only its final text.
 * The child gets the base tools but no `task`, so delegation is one level deep.
 */
import {
  BASE_HANDLERS,
  BASE_TOOLS,
  normalizeMessages,
  runTool,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import type {
  Agent,
  AgentEnv,
  ContentBlock,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files. For a self-contained piece of work that needs a lot of reading or many steps, use
the task tool: a subagent does it in its own context and returns a short summary. When the task
is done, say so briefly.`;

const CHILD_SYSTEM = `You are a subagent: the lead agent gave you one task. Work in the workspace
with your tools until it is done. Your final message is the only thing the lead will see, so end
with a short, complete summary of what you found or changed (files, facts, open problems).`;

// #region tools
const TASK_TOOL: Tool = {
  name: "task",
  description:
    "Delegate a self-contained task to a subagent with a fresh context and the base tools. " +
    "It cannot see this conversation: put everything it needs in the prompt. Returns only its final summary.",
  input_schema: {
    type: "object",
    properties: {
      prompt: { type: "string", description: "The complete instructions for the subagent" },
      description: {
        type: "string",
        description: "A few words shown to the user, e.g. 'survey src/'",
      },
    },
    required: ["prompt"],
  },
};

/** The lead: the five base tools plus `task`. */
export const TOOLS: Tool[] = [...BASE_TOOLS, TASK_TOOL];
/** The child: the five base tools and no `task`, so a subagent cannot start subagents. */
export const CHILD_TOOLS: Tool[] = BASE_TOOLS;
// #endregion tools

// #region subagent
/** A child that never stops must not run forever: after this many model calls it is cut off. */
export const MAX_CHILD_ROUNDS = 30;
const CHILD = "subagent";

const textOf = (content: ContentBlock[]): string =>
  content
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("\n")
    .trim();

/** Runs one child agent to completion and returns its final text — nothing else of its work.
 *  Its messages, tool calls and results live in this function and are dropped when it returns. */
export async function runSubagent(
  env: AgentEnv,
  prompt: string,
  root: string,
  handlers: Record<string, ToolHandler> = BASE_HANDLERS, // the child's tools (a harness may guard them)
): Promise<string> {
  const model = env.modelFor(CHILD);
  const messages: MessageParam[] = [{ role: "user", content: prompt }]; // fresh: none of the lead's history
  let lastText = "";
  for (let round = 1; round <= MAX_CHILD_ROUNDS; round++) {
    const response = await model.messages.create({
      model: env.modelId,
      system: CHILD_SYSTEM,
      messages: normalizeMessages(messages),
      tools: CHILD_TOOLS,
      max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response, CHILD);
    lastText = textOf(response.content) || lastText;
    if (response.stop_reason !== "tool_use") {
      env.io.note(
        `finished after ${round} round(s), ${messages.length} messages; only its final text goes back`,
        CHILD,
      );
      return lastText || "(the subagent finished without a summary)";
    }

    const results: ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block, CHILD);
      const ctx = { root, sandbox: env.sandbox };
      const { output, isError } = await runTool(handlers, block, ctx, CHILD_TOOLS);
      env.io.toolResult(block, output, isError, CHILD);
      results.push({
        type: "tool_result",
        tool_use_id: block.id,
        content: output,
        is_error: isError,
      });
    }
    messages.push({ role: "user", content: results });
  }
  env.io.note(`cut off after ${MAX_CHILD_ROUNDS} rounds`, CHILD);
  return (
    `${lastText || "(no summary yet)"}\n\n(The subagent was stopped after ${MAX_CHILD_ROUNDS} rounds ` +
    "without finishing; this is what it had so far.)"
  );
}
// #endregion subagent

// #region dispatch
/** The lead's dispatch map: the base handlers plus `task`, which needs the env to start a child. */
export function leadHandlers(
  env: AgentEnv,
  childHandlers: Record<string, ToolHandler> = BASE_HANDLERS,
): Record<string, ToolHandler> {
  return {
    ...BASE_HANDLERS,
    task({ prompt, description }, { root }) {
      if (typeof prompt !== "string" || !prompt.trim())
        throw new Error("task needs a non-empty prompt");
      env.io.note(
        `delegating: ${typeof description === "string" && description ? description : prompt.slice(0, 60)}`,
      );
      return runSubagent(env, prompt, root, childHandlers);
    },
  };
}
// #endregion dispatch

// #region loop
export async function agentLoop(
  env: AgentEnv,
  messages: MessageParam[],
  handlers: Record<string, ToolHandler>,
): Promise<void> {
  for (;;) {
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
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      // For `task`, this one call runs a whole child agent; its result is the child's summary.
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
    }
    messages.push({ role: "user", content: results });
  }
}
// #endregion loop

export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  const handlers = leadHandlers(env);
  return {
    messages,
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, handlers);
    },
  };
}
