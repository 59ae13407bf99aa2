// s01's exercises: rebuild the loop; extend it (a cap on rounds per turn). The behaviours are the
// curriculum's for s01, and tests/chapters/s01-agent-loop.test.ts runs the same ones against the
// chapter's own code.
import { say, use, useAll } from "../../_shared/scripted.ts";
import type {
  ContentBlock,
  CreateParams,
  Message,
  MessageParam,
  ToolResultBlockParam,
} from "../../_shared/types.ts";
import type * as S01 from "../agent.ts";
import {
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S01;

const toolResults = (message: MessageParam | undefined) =>
  typeof message?.content === "string" || !message
    ? []
    : message.content.flatMap((b) => (b.type === "tool_result" ? [b] : []));

export const stopsWhenAnswered: Check<M> = {
  id: "stops-when-answered",
  async run(module, kit) {
    const env = kit.env([
      use("bash", { command: "echo one" }),
      say("done"),
      use("bash", { command: "echo never" }),
    ]);
    await module.createAgent(env).send("go");
    expectThat(env.requests.length === 2, "calls-after-answer", { calls: env.requests.length });
  },
};

export const oneResultPerCall: Check<M> = {
  id: "one-result-per-call",
  async run(module, kit) {
    const env = kit.env([
      useAll([
        { name: "bash", input: { command: "echo a" } },
        { name: "bash", input: { command: "echo b" } },
      ]),
      say("ok"),
    ]);
    const agent = module.createAgent(env);
    await agent.send("two at once");
    const [, assistant, user] = agent.messages;
    const ids =
      typeof assistant?.content === "string" || !assistant
        ? []
        : assistant.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    const results = toolResults(user);
    expectThat(user?.role === "user", "no-results-message", {});
    expectThat(results.length === ids.length, "result-count", {
      calls: ids.length,
      results: results.length,
    });
    expectThat(
      results.every((r, i) => r.tool_use_id === ids[i]),
      "result-ids",
      {},
    );
    expectThat(results.map((r) => r.content).join(",") === "a,b", "result-content", {
      got: results.map((r) => JSON.stringify(r.content)).join(", "),
    });
  },
};

export const resultsReachTheModel: Check<M> = {
  id: "results-reach-the-model",
  async run(module, kit) {
    const env = kit.env([use("bash", { command: "echo seen-by-the-model" }), say("done")]);
    await module.createAgent(env).send("go");
    const second = env.requests[1]?.body.messages ?? [];
    const text = JSON.stringify(second);
    expectThat(text.includes("seen-by-the-model"), "result-not-sent", {});
  },
};

export const roundCap: Check<M> = {
  id: "round-cap",
  async run(module, kit) {
    const turns = Array.from({ length: 30 }, () => use("bash", { command: "true" }));
    const env = kit.env([...turns, say("done")]);
    await module.createAgent(env).send("loop forever");
    expectThat(env.requests.length <= 20, "no-round-cap", { calls: env.requests.length });
    expectThat(env.requests.length >= 20, "cap-too-early", { calls: env.requests.length });
    const notes = env.io.trace.filter((e) => e.kind === "note");
    expectThat(notes.length > 0, "cap-not-said", {});
  },
};

export const nowTool: Check<M> = {
  id: "now-tool",
  async run(module, kit) {
    const names = module.TOOLS.map((t) => t.name);
    expectThat(names.includes("bash") && names.includes("now"), "no-now-tool", {
      tools: names.join(", "),
    });
    const env = kit.env([use("now", {}), say("ok")]);
    await module.createAgent(env).send("what time is it?");
    const [result] = toolResults(env.requests[1]?.body.messages.at(-1));
    const text =
      typeof result?.content === "string" ? result.content : JSON.stringify(result?.content);
    expectThat(result && !result.is_error && /\d{4}-\d{2}-\d{2}/.test(text), "now-not-a-date", {
      got: text ?? "no result",
    });
  },
};

// ---- The loop's rule, tried on many generated conversations (property checks) ----

/** One tool call a generated round asks for: a command that runs (its output is `token`), a bash
 *  call without a command, or a tool this chapter does not have. Mostly the cheap kinds: only a
 *  command that runs starts a process. */
type Call =
  | { kind: "echo"; token: string }
  | { kind: "no-command"; input: Record<string, unknown> }
  | { kind: "unknown"; name: string; token: string };

/** Every stop_reason but tool_use: each one ends the turn (the contract: stop when stop_reason
 *  is not "tool_use"). */
const ANSWER_STOPS = ["end_turn", "max_tokens", "stop_sequence", "pause_turn", "refusal"] as const;

const callArb: fc.Arbitrary<Call> = fc.oneof(
  { weight: 1, arbitrary: fc.nat(999).map((n) => ({ kind: "echo" as const, token: `out${n}` })) },
  {
    weight: 1,
    // No command, an empty or blank one, or one that is not text: none of them can run.
    arbitrary: fc
      .constantFrom<Record<string, unknown>>(
        {},
        { command: "" },
        { command: "   " },
        { command: 42 },
      )
      .map((input) => ({ kind: "no-command" as const, input })),
  },
  {
    weight: 2,
    // A tool this chapter does not have, asked with a command that would run: it must not.
    arbitrary: fc
      .record({ name: fc.constantFrom("grep", "python", "read_file", "Bash"), n: fc.nat(999) })
      .map(({ name, n }) => ({ kind: "unknown" as const, name, token: `out${n}` })),
  },
);

/** A conversation: some tool rounds (each 1–3 calls), then an answer with any stop_reason. */
/** A call that starts no process: long conversations stay cheap. */
const cheapCallArb: fc.Arbitrary<Call> = callArb.filter((c) => c.kind !== "echo");

/** Conversations of up to `most` tool rounds (the loop has no cap of its own; s01.2 adds one). */
const conversationArb = (most: number) =>
  fc.record({
    // Mostly a few rounds; sometimes many more than a loop with a round cap would allow.
    rounds: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.array(fc.array(callArb, { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
      },
      {
        weight: 1,
        arbitrary: fc.array(fc.array(cheapCallArb, { minLength: 1, maxLength: 1 }), {
          minLength: 11,
          maxLength: most,
        }),
      },
    ),
    stop: fc.constantFrom(...ANSWER_STOPS),
  });

const callName = (call: Call) => (call.kind === "unknown" ? call.name : "bash");
const describeRound = (round: Call[]) =>
  round
    .map((c) =>
      c.kind === "echo"
        ? `bash "echo ${c.token}"`
        : c.kind === "no-command"
          ? `bash ${JSON.stringify(c.input)}`
          : `${c.name} "echo ${c.token}"`,
    )
    .join(", ");

/** A model that plays `replies` in order (tool_use ids "toolu_<reply>_<call>"), with any
 *  stop_reason and any tool name, and records each request. After the script it answers with
 *  end_turn, so a loop that should have stopped shows itself by one call too many (and one that
 *  never stops is cut off after 50). */
function playedModel(replies: { calls: Call[]; stop: string }[]) {
  const requests: CreateParams[] = [];
  const create = async (body: CreateParams): Promise<Message> => {
    requests.push(structuredClone(body));
    const n = requests.length;
    if (n > 50) throw new Error("the model was called more than 50 times in one turn");
    const reply = replies[n - 1] ?? { calls: [], stop: "end_turn" };
    const content: ContentBlock[] = [
      { type: "text", text: `reply ${n}`, citations: null },
      ...reply.calls.map(
        (call, i) =>
          ({
            type: "tool_use",
            id: `toolu_${n}_${i + 1}`,
            name: callName(call),
            input: call.kind === "no-command" ? call.input : { command: `echo ${call.token}` },
          }) as ContentBlock,
      ),
    ];
    return {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content,
      stop_reason: reply.stop,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    } as Message;
  };
  return { requests, client: { messages: { create } } };
}

/** Plays a generated conversation on the module's loop; what the loop threw, if it did. */
async function playConversation(
  module: M,
  kit: Parameters<Check<M>["run"]>[1],
  rounds: Call[][],
  stop: string,
) {
  const model = playedModel([
    ...rounds.map((calls) => ({ calls, stop: "tool_use" })),
    { calls: [], stop },
  ]);
  const env = { ...kit.env([]), model: model.client };
  const agent = module.createAgent(env);
  let threw: string | undefined;
  try {
    await agent.send("go");
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes(NOT_STARTED)) throw err;
    threw = message.split("\n")[0];
  }
  return { requests: model.requests, threw, history: agent.messages };
}

/** Round r's calls (1-based) were answered in request r + 1: one user message, one tool_result
 *  per tool_use with its id, in order; an echo's output in its result; a call that cannot run
 *  (no command, an unknown tool) an error result. */
function expectRoundAnswered(requests: CreateParams[], rounds: Call[][], r: number) {
  const round = rounds[r - 1];
  const sent = requests[r]?.messages ?? [];
  const last = sent.at(-1);
  // The message holds the results and nothing else.
  const results =
    last?.role === "user" && Array.isArray(last.content)
      ? last.content.map((b) => (b.type === "tool_result" ? b : ({} as ToolResultBlockParam)))
      : [];
  const ids = round.map((_, i) => `toolu_${r}_${i + 1}`);
  // The reply that asked for the calls is in the history, as the assistant's, just before them.
  const reply = sent.at(-2);
  expectThat(
    reply?.role === "assistant" && JSON.stringify(reply.content).includes(`"toolu_${r}_1"`),
    "reply-not-in-history",
    { round: r, got: reply ? `${reply.role}` : "nothing" },
  );
  expectThat(
    results.length === ids.length && results.every((b, i) => b.tool_use_id === ids[i]),
    "round-unanswered",
    {
      round: r,
      calls: describeRound(round),
      asked: ids.length,
      got: results.map((b) => b.tool_use_id).join(", ") || "none",
      expected: ids.join(", "),
    },
  );
  round.forEach((call, i) => {
    const result = results[i];
    const text =
      typeof result.content === "string" ? result.content : JSON.stringify(result.content);
    if (call.kind === "echo")
      expectThat(text.includes(call.token) && !result.is_error, "round-output-lost", {
        round: r,
        command: `echo ${call.token}`,
        got: JSON.stringify(text.slice(0, 80)),
      });
    else
      // An error result that says why: the model reads it to correct itself.
      expectThat(result.is_error === true && text.trim() !== "", "cannot-run-not-error", {
        round: r,
        call: describeRound([call]),
        got: JSON.stringify(text.slice(0, 80)),
      });
  });
}

/** The loop's rule on conversations of up to `most` rounds. */
const anyRoundsUpTo = (most: number): Check<M> => ({
  id: "any-rounds",
  async run(module, kit) {
    await forAll(
      conversationArb(most),
      async ({ rounds, stop }) => {
        const { requests, threw, history } = await playConversation(module, kit, rounds, stop);
        const expected = rounds.length + 1;
        const story =
          rounds.map((round, i) => `${i + 1}: ${describeRound(round)}`).join("; ") || "none";
        if (threw !== undefined)
          throw new CheckFailure("loop-threw", { rounds: rounds.length, story, error: threw });
        expectThat(requests.length >= expected, "stopped-early", {
          rounds: rounds.length,
          calls: requests.length,
          expected,
          story,
        });
        expectThat(requests.length === expected, "went-on", {
          rounds: rounds.length,
          stop,
          calls: requests.length,
          expected,
        });
        for (let r = 1; r <= rounds.length; r++) expectRoundAnswered(requests, rounds, r);
        // The answer that ended the turn is in the history too: the next prompt builds on it.
        const end = history.at(-1);
        expectThat(
          end?.role === "assistant" && JSON.stringify(end.content).includes(`reply ${expected}`),
          "answer-not-kept",
          { got: end ? end.role : "nothing" },
        );
      },
      { runs: 20 },
    );
  },
});
export const anyRounds = anyRoundsUpTo(30);

export const exercises: Exercise<M>[] = [
  {
    id: "s01",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "agentLoop",
        contract: [
          "Call env.model.messages.create({ model: env.modelId, system: SYSTEM, messages,",
          "tools: TOOLS, max_tokens: 8000 }); push the reply as an assistant message and show it",
          'with env.io.assistant(reply); stop when reply.stop_reason is not "tool_use". Otherwise run',
          "every tool_use block (await env.io.toolCall(block) first; bash(command, env.workspace, env.sandbox)",
          "runs one) and push ONE user message with one tool_result per tool_use, same tool_use_id,",
          "in order (report each with env.io.toolResult(block, output, isError)); then call the",
          "model again, for as many rounds as it asks. A call that cannot run (a tool other than",
          "bash, a bash without a command) still gets its tool_result: an error (is_error: true),",
          "never an exception.",
        ].join("\n"),
      },
    ],
    checks: [stopsWhenAnswered, oneResultPerCall, resultsReachTheModel, anyRounds],
  },
  {
    id: "s01.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      tools: (reference) =>
        reference.replace(
          "\n];\n// #endregion tools",
          `\n  {
    name: "now",
    description: "Return the current date and time (ISO 8601, UTC).",
    input_schema: { type: "object", properties: {} },
  },
];
// #endregion tools`,
        ),
      loop: (reference) =>
        reference.replace(
          'block.name !== "bash"',
          'block.name === "now"\n          ? { output: new Date().toISOString(), isError: false }\n          : block.name !== "bash"',
        ),
    },
    checks: [nowTool, stopsWhenAnswered, oneResultPerCall, anyRounds],
  },
  {
    id: "s01.2",
    kind: "extend",
    file: "agent.ts",
    solution: {
      loop: (reference) =>
        reference
          .replace(
            "export async function agentLoop",
            "const MAX_ROUNDS = 20;\n\nexport async function agentLoop",
          )
          .replace(
            "  for (;;) {\n",
            "  for (let round = 1; ; round++) {\n" +
              "    if (round > MAX_ROUNDS) {\n" +
              "      env.io.note(`stopped after ${MAX_ROUNDS} rounds: the turn ends here`);\n" +
              "      return;\n" +
              "    }\n",
          ),
    },
    // Under the cap of 20 the loop is s01's; roundCap checks the cap itself.
    checks: [roundCap, stopsWhenAnswered, oneResultPerCall, anyRoundsUpTo(19)],
  },
];
