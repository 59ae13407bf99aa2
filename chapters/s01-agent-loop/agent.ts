/**
 * s01 · The agent loop
 *
 * A coding agent is a loop: send the conversation to the model; if it asks for tools, run them,
 * append their results, and ask again; stop when it answers without asking for a tool.
 * This chapter has exactly one tool, `bash`, and nothing else — the loop is the whole lesson.
 */
import { runCommand, type Sandbox } from "../_shared/shell.ts";
import type {
  Agent,
  AgentEnv,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use the bash tool to inspect
and change files. Act, don't explain what you would do. When the task is done, say so briefly.`;

// #region tools
/** What the model sees: a name, what the tool does, and a JSON schema for its input. */
export const TOOLS: Tool[] = [
  {
    name: "bash",
    description: "Run a shell command in the workspace and return its output.",
    input_schema: {
      type: "object",
      properties: { command: { type: "string", description: "The command to run" } },
      required: ["command"],
    },
  },
];
// #endregion tools

// #region bash
/** Commands we never run, whatever the model says. A tiny deny-list: s07 builds a real gate. */
export const BLOCKED = [
  /\brm\s+-[a-z]*r[a-z]*f?\s+\/(\s|$)/,
  /\bsudo\b/,
  /\bshutdown\b/,
  /\breboot\b/,
  /:\(\)\s*\{/,
  /\bmkfs\b/,
];
export const BASH_TIMEOUT_MS = 30_000;
export const MAX_OUTPUT = 50_000;

/** Runs a command in `cwd`. The deny-list is a courtesy; the real limit is the sandbox the
 *  runner hands the agent (`env.sandbox`, s07 explains it): the command may write only in `cwd`
 *  and `writable`, sees no secrets and no network. */
export async function bash(
  command: string,
  cwd: string,
  sandbox: Sandbox,
  { timeoutMs = BASH_TIMEOUT_MS, writable = [] as string[] } = {},
): Promise<{ output: string; isError: boolean }> {
  if (BLOCKED.some((pattern) => pattern.test(command))) {
    return { output: `Error: blocked dangerous command: ${command}`, isError: true };
  }
  const result = await runCommand(command, {
    sandbox,
    cwd,
    timeoutMs,
    maxOutput: MAX_OUTPUT,
    writable,
  });
  if (result.refused) return { output: result.output, isError: true };
  if (result.timedOut)
    return { output: `Error: command timed out after ${timeoutMs / 1000}s`, isError: true };
  let output = result.output.trim() || "(no output)";
  if (result.truncated) output += `\n… (output capped at ${MAX_OUTPUT} characters)`;
  return { output, isError: false };
}
// #endregion bash

// #region loop
/** The whole agent: call the model while it asks for tools; run them; append the results. */
export async function agentLoop(env: AgentEnv, messages: MessageParam[]): Promise<void> {
  for (;;) {
    const response = await env.model.messages.create({
      model: env.modelId,
      system: SYSTEM,
      messages,
      tools: TOOLS,
      max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") return; // the model answered: this turn is over

    // Every tool_use gets exactly one tool_result with the same id, all in one user message.
    const results: ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { command } = block.input as { command?: unknown };
      // The model can name a tool we do not have, or leave out the command: say so, run nothing.
      const { output, isError } =
        block.name !== "bash"
          ? { output: `Error: unknown tool "${block.name}"; the only tool is bash`, isError: true }
          : typeof command !== "string" || !command.trim()
            ? { output: "Error: bash needs a command (a non-empty string)", isError: true }
            : await bash(command, env.workspace, env.sandbox);
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
  return {
    messages,
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages);
    },
  };
}
