// s01's exercises: rebuild the loop; extend it (a cap on rounds per turn). The behaviours are the
// curriculum's for s01, and tests/chapters/s01-agent-loop.test.ts runs the same ones against the
// chapter's own code.
import { say, use, useAll } from "../_shared/scripted.ts";
import type { MessageParam } from "../_shared/types.ts";
import type * as S01 from "../s01-agent-loop/agent.ts";
import { expectThat, type Check, type Exercise } from "./kit.ts";

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
          "every tool_use block (await env.io.toolCall(block) first; bash(command, env.workspace)",
          "runs one) and push ONE user message with one tool_result per tool_use, same tool_use_id,",
          "in order (report each with env.io.toolResult(block, output, isError)); then call the",
          "model again.",
        ].join("\n"),
      },
    ],
    checks: [stopsWhenAnswered, oneResultPerCall, resultsReachTheModel],
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
    checks: [nowTool, stopsWhenAnswered, oneResultPerCall],
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
    checks: [roundCap, stopsWhenAnswered, oneResultPerCall],
  },
];
