// Writing a scenario: helpers that make the scripted model's turns read like a conversation.
// The model that plays them is plumbing, in chapters/_runner/scripted-model.ts.
import type { ScriptedReply } from "./types.ts";

export const say = (text: string): ScriptedReply => ({ text });
export const use = (
  name: string,
  input: Record<string, unknown>,
  text?: string,
): ScriptedReply => ({ text, calls: [{ name, input }] });
export const useAll = (
  calls: { name: string; input: Record<string, unknown> }[],
  text?: string,
): ScriptedReply => ({ text, calls });
/** A failed call, as the API reports it; `retryAfterSeconds` becomes a retry-after header. */
export const fail = (
  status: number,
  type: string,
  message: string,
  retryAfterSeconds?: number,
): ScriptedReply => ({ error: { status, type, message, retryAfterSeconds } });
