/**
 * s14 · Error recovery
 *
 * The team of s13 makes many model calls, from many agents, for a long time. Some of them fail,
 * and in s13 one failed call ends a teammate's work or the lead's whole turn. Most failures are
 * not final, though; each kind has its own way back:
 *
 *   overloaded (529), server error (5xx), rate limit (429)  →  wait and try again: backoff with
 *                                                              jitter, at most 3 tries (not the
 *                                                              429 of a monthly spend cap)
 *   prompt is too long (400)                                →  compact the history (s05), retry;
 *                                                              a teammate gets its identity back first
 *   stop_reason "max_tokens"                                →  keep the partial reply, ask it to
 *                                                              continue, at most 3 times
 *
 * All of it lives in one function that replaces s13's plain model call (the `callModel` seam),
 * so the lead and every teammate recover the same way. A teammate that still fails gives up —
 * and, as in s13, keeps its task, its lane and its place, and tells the lead.
 */
import { APIConnectionError, APIError } from "@anthropic-ai/sdk/core/error";
import { setTimeout as sleep } from "node:timers/promises";
import { compactHistory } from "../s05-context-compact/agent.ts";
import {
  createAgent as createTeamAgent,
  LEAD_TOOLS,
  type TeamAgent,
} from "../s13-agent-teams/agent.ts";
import {
  errorLine,
  plainCall,
  type CallModel,
  type ModelCall,
  type TeamOptions,
} from "../s13-agent-teams/extension-points.ts";
import type { AgentEnv, IO, Message } from "../_shared/types.ts";

/** The same tools as s13: recovery changes how the model is called, not what it can do. */
export const TOOLS = LEAD_TOOLS;

export interface RecoveryOptions {
  /** Tries per call for overloaded / server errors / rate limits (the first try included). */
  maxTries?: number;
  /** The first backoff delay; each further one doubles (ms). */
  baseDelayMs?: number;
  /** No delay is longer than this (ms). */
  maxDelayMs?: number;
  /** "Continue" follow-ups after a reply cut off at max_tokens. */
  maxContinues?: number;
  /** How to wait: tests pass one that records the delay and returns at once. */
  sleep?: (ms: number) => Promise<unknown>;
  /** The jitter's source of randomness (0 ≤ x < 1). */
  random?: () => number;
}

// #region classify
export type FailureKind = "transient" | "too_long" | "fatal";

/** The one 429 that waiting does not clear: the organization has reached its usage tier's
 *  monthly spend cap, and the API answers until next month with this code (and no retry-after). */
export const SPEND_CAP = "enforced_spend_limit_reached";

/** What kind of failure is this? Only the first two have a way back. */
export function classify(err: unknown): FailureKind {
  if (err instanceof APIError) {
    if (err.status === 413 || (err.status === 400 && /prompt is too long/i.test(err.message)))
      return "too_long";
    if (err.status === 429 && err.errorCode === SPEND_CAP) return "fatal";
    if (err.status === 429 || err.status === 529 || (err.status !== undefined && err.status >= 500))
      return "transient";
  }
  if (err instanceof APIConnectionError) return "transient"; // a dropped connection, a timeout
  return "fatal"; // a bad request, a bad key, a bug: trying again would fail the same way
}
// #endregion classify

// #region backoff
/** Try n waits base·2^(n-1), plus up to 50% random jitter — so agents that failed together do
 *  not all come back at the same moment, and every wait is still longer than the one before. */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exponential = baseMs * 2 ** (attempt - 1);
  return Math.min(maxMs, Math.round(exponential * (1 + 0.5 * random())));
}

/** When the server says how long to wait (a retry-after header, in seconds), it knows best. */
export function retryAfterMs(err: unknown, maxMs: number): number | undefined {
  const header = (err as { headers?: Headers }).headers?.get?.("retry-after");
  const seconds = header === null || header === undefined ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0
    ? Math.min(maxMs, Math.round(seconds * 1000))
    : undefined;
}
// #endregion backoff

// #region resilient
const CONTINUE =
  "Your reply was cut off by the output limit (max_tokens). Continue exactly where you stopped; do not repeat anything.";

/** s13's model call, wrapped: retries, compaction and continuation, in that order of nesting. */
export function resilientCall(options: RecoveryOptions = {}): CallModel {
  const maxContinues = options.maxContinues ?? 3;
  return async (env, call) => {
    const io = asAgent(env.io, call.agent);
    for (let continues = 0; ; continues++) {
      const response = await callWithRetries(env, call, options);
      if (response.stop_reason !== "max_tokens") return response;
      if (continues === maxContinues) {
        io.note(
          `the reply was cut off at max_tokens ${continues + 1} times in a row: stopping here, the answer is incomplete`,
        );
        io.event("recovery", { kind: "max_tokens", action: "stop", times: continues + 1 });
        return response;
      }
      // Keep what was written (text only: a half-written tool call cannot be run) and ask for the rest.
      io.assistant(response);
      const partial = response.content.filter((block) => block.type === "text");
      if (partial.length) call.messages.push({ role: "assistant", content: partial });
      call.messages.push({ role: "user", content: CONTINUE });
      io.note(`cut off at max_tokens: asking it to continue (${continues + 1}/${maxContinues})`);
      io.event("recovery", { kind: "max_tokens", action: "continue", times: continues + 1 });
    }
  };
}

/** One call that survives transient failures (backoff) and a too-long prompt (compaction). */
async function callWithRetries(
  env: AgentEnv,
  call: ModelCall,
  options: RecoveryOptions,
): Promise<Message> {
  const { maxTries = 3, baseDelayMs = 500, maxDelayMs = 8_000, random = Math.random } = options;
  const wait = options.sleep ?? sleep;
  const io = asAgent(env.io, call.agent);
  let compacted = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await plainCall(env, call);
    } catch (err) {
      const kind = classify(err);
      if (kind === "too_long" && !compacted) {
        compacted = true; // once: if the summary is still too long, something else is wrong
        io.note(`${errorLine(err)} — compacting the history, then trying again`);
        await compact(env, call);
        attempt--; // compaction is not a retry of the same request
        continue;
      }
      if (kind === "transient" && attempt < maxTries) {
        const told = retryAfterMs(err, maxDelayMs);
        const delay = told ?? backoffDelay(attempt, baseDelayMs, maxDelayMs, random);
        io.note(
          `${errorLine(err)} — try ${attempt}/${maxTries} failed, waiting ${delay} ms${told === undefined ? "" : " (retry-after)"}`,
        );
        io.event("recovery", {
          kind: "backoff",
          attempt,
          delay,
          status: (err as APIError).status ?? null,
        });
        await wait(delay);
        continue;
      }
      if (kind === "transient") io.note(`${errorLine(err)} — giving up after ${maxTries} tries`);
      throw err;
    }
  }
}
// #endregion resilient

// #region identity
/** s05's compaction, run with the calling agent's own model and name. A teammate's new history
 *  starts with its identity block: the summary says what happened, not who it is. */
async function compact(env: AgentEnv, call: ModelCall): Promise<void> {
  await compactHistory(
    { ...env, model: call.client, io: asAgent(env.io, call.agent) },
    call.messages,
  );
  if (!call.identity) return;
  const [first] = call.messages;
  const summary =
    typeof first.content === "string"
      ? first.content
      : first.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  call.messages[0] = { role: "user", content: `${call.identity}\n\n${summary}` };
  env.io.note("identity block re-injected at the top of the compacted history", call.agent);
  env.io.event("recovery", { kind: "too_long", action: "identity_reinjected" }, call.agent);
}
// #endregion identity

/** Every report goes out under the name of the agent whose call it was. */
function asAgent(io: IO, agent: string): IO {
  return {
    user: (text) => io.user(text, agent),
    assistant: (message) => io.assistant(message, agent),
    toolCall: (block) => io.toolCall(block, agent),
    toolResult: (block, output, isError) => io.toolResult(block, output, isError, agent),
    note: (text) => io.note(text, agent),
    event: (kind, data) => io.event(kind, data, agent),
  };
}

/** The team of s13, with every model call — the lead's and each teammate's — made resilient. */
export function createAgent(env: AgentEnv, options: RecoveryOptions & TeamOptions = {}): TeamAgent {
  return createTeamAgent(env, { ...options, callModel: resilientCall(options) });
}
