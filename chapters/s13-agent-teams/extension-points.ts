/**
 * s13 · Agent teams: the extension points
 *
 * What the chapters built on this one plug into the team of agent.ts, and nothing more: their own
 * model call (s14 makes it survive failures), and more tools for either side of the team — the
 * lead, or every teammate — with their handlers and rules (s15's protocols). Both sides are
 * extended the same way, and `combine` merges two chapters' extensions of one side.
 */
import { APIError } from "@anthropic-ai/sdk/core/error";
import { normalizeMessages, type ToolHandler } from "../s02-tool-use/agent.ts";
import type { AgentEnv, Message, MessageParam, ModelClient, Tool } from "../_shared/types.ts";
import type { Team } from "./agent.ts";
import type { Teammate, Timings } from "./bookkeeping.ts";

// #region extension-points
/** What a later chapter adds to one side of the team: the lead, or every teammate. */
export interface Extension<Caller> {
  tools?: Tool[];
  /** Made for each caller (the lead's name, or the teammate), so a handler knows who calls it.
   *  They win over the team's own handlers of the same name. */
  handlers?: (team: Team, caller: Caller) => Record<string, ToolHandler>;
  /** Rules appended to that side's system prompt. */
  instructions?: string;
}

export interface TeamOptions extends Partial<Timings> {
  /** Every model call, the lead's and each teammate's, goes through this. */
  callModel?: CallModel;
  lead?: Extension<string>;
  teammates?: Extension<Teammate>;
}

/** Two extensions of one side as one, the same way for both sides: both tool lists, both handler
 *  tables (the second wins a name both have), both rules. */
export function combine<Caller>(
  first: Extension<Caller> = {},
  second: Extension<Caller> = {},
): Extension<Caller> {
  return {
    tools: [...(first.tools ?? []), ...(second.tools ?? [])],
    handlers: (team, caller) => ({
      ...first.handlers?.(team, caller),
      ...second.handlers?.(team, caller),
    }),
    instructions: [first.instructions, second.instructions].filter(Boolean).join("\n"),
  };
}

// #endregion extension-points

// #region model-call
/** One model call, described so that a wrapper can retry it or rewrite the history. */
export interface ModelCall {
  agent: string;
  client: ModelClient;
  system: string;
  tools: Tool[];
  /** The live history: a wrapper may change it in place (compact it). */
  messages: MessageParam[];
  /** A teammate's identity block, to put back after a compaction (undefined for the lead). */
  identity?: string;
}
export type CallModel = (env: AgentEnv, call: ModelCall) => Promise<Message>;

/** The plain call every chapter so far made. */
export const plainCall: CallModel = (env, { client, system, tools, messages }) =>
  client.messages.create({
    model: env.modelId,
    system,
    tools,
    messages: normalizeMessages(messages),
    max_tokens: 8000,
  });

/** A failed call in one line, e.g. "529 overloaded_error: Overloaded": what a teammate that gives
 *  up reports to the lead. */
export function errorLine(err: unknown): string {
  if (err instanceof APIError) {
    const detail = (err.error as { error?: { type?: string; message?: string } } | undefined)
      ?.error;
    if (detail?.message) return `${err.status} ${detail.type ?? "error"}: ${detail.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}
// #endregion model-call
