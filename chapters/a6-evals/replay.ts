// Recording real runs, and replaying them offline.
//
// With a key, every request a harness sends is answered by the real model and written down with
// its answer, keyed by a hash of what was asked: the model, the prompt (system and messages) and
// the tool list. Replayed, the same harness on the same task asks the same things and gets the
// recorded answers from the file: no key, no network, the same verdicts, and anyone can re-check
// a result someone shared. When a request is not in the recording, the replay stops and says
// which part drifted, because "cache miss" alone does not tell you whether you changed the
// prompt, the tools or the model.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { CreateParams, Message, ModelClient } from "../_shared/types.ts";

/** One answered request. */
export interface RecordedCall {
  agent: string;
  /** Hash of the three parts together: the key a replay looks up. */
  key: string;
  parts: RequestParts;
  response: Message;
}

export interface Cassette {
  version: 1;
  harness: string;
  task: string;
  trial: number;
  model: string;
  calls: RecordedCall[];
}

/** What a request is made of, each part hashed on its own so a miss can name the one that changed. */
export interface RequestParts {
  model: string;
  prompt: string;
  tools: string;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** The parts of a request as hashes. What differs between two runs of the same thing (the
 *  workspace's temporary path, today's date in a system prompt) is written the same way first. */
export function requestParts(body: CreateParams, workspace: string): RequestParts {
  const stable = (value: unknown) =>
    JSON.stringify(value ?? null)
      .replaceAll(workspace, "<workspace>")
      .replace(/\b\d{4}-\d{2}-\d{2}\b/g, "<date>");
  return {
    model: sha(body.model),
    prompt: sha(stable({ system: body.system, messages: body.messages })),
    tools: sha(stable(body.tools ?? [])),
  };
}

export const keyOf = (parts: RequestParts) => sha(`${parts.model}:${parts.prompt}:${parts.tools}`);

/** A client that asks `client` and writes every request and answer into `cassette`. */
export function recordingClient(
  client: ModelClient,
  cassette: Cassette,
  agent: string,
  workspace: string,
): ModelClient {
  return {
    messages: {
      async create(body, options) {
        const parts = requestParts(body, workspace);
        const response = await client.messages.create(body, options);
        cassette.calls.push({ agent, key: keyOf(parts), parts, response });
        return response;
      },
    },
  };
}

// #region replay
/** A request the recording does not hold; the message names what drifted. */
export class ReplayMiss extends Error {
  name = "ReplayMiss";
  constructor(
    message: string,
    readonly drifted: (keyof RequestParts)[],
  ) {
    super(message);
  }
}

const PART_NAMES: Record<keyof RequestParts, string> = {
  model: "the model",
  prompt: "the prompt (system prompt or messages)",
  tools: "the tool list",
};

/** A client that answers from `cassette` only. It has no network code at all: it cannot call out.
 *  Each agent's n-th request is compared with that agent's n-th recorded one. */
export function replayClient(cassette: Cassette, agent: string, workspace: string): ModelClient {
  const recorded = cassette.calls.filter((call) => call.agent === agent);
  let next = 0;
  return {
    messages: {
      create(body: CreateParams): Promise<Message> {
        const parts = requestParts(body, workspace);
        const expected = recorded[next];
        if (!expected)
          return Promise.reject(
            new ReplayMiss(
              `replay miss: ${agent} sent request ${next + 1}, but the recording has only ${recorded.length}`,
              [],
            ),
          );
        if (expected.key !== keyOf(parts)) {
          const drifted = (Object.keys(PART_NAMES) as (keyof RequestParts)[]).filter(
            (part) => expected.parts[part] !== parts[part],
          );
          return Promise.reject(
            new ReplayMiss(
              `replay miss at ${agent}'s request ${next + 1}: ${drifted.map((p) => PART_NAMES[p]).join(" and ")} changed since the recording`,
              drifted,
            ),
          );
        }
        next++;
        return Promise.resolve(structuredClone(expected.response));
      },
    },
  };
}

// #endregion replay

export function readCassette(file: string): Cassette {
  const cassette = JSON.parse(readFileSync(file, "utf8")) as Cassette;
  if (cassette.version !== 1 || !Array.isArray(cassette.calls))
    throw new Error(`${file} is not a recording of an eval run (version 1)`);
  return cassette;
}
