// s06's exercises: rebuild the child loop; extend task (an optional tools list, so a survey can be
// read-only). The behaviours are the curriculum's for s06, and tests/chapters/s06-subagent.test.ts
// runs the same ones against the chapter's own code.
import { existsSync } from "node:fs";
import path from "node:path";
import { say, use, useAll } from "../../_shared/scripted.ts";
import type { MessageParam } from "../../_shared/types.ts";
import type * as S06 from "../agent.ts";
import {
  change,
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckEnv,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S06;

const BASE = ["bash", "read", "write", "edit", "glob"];
const delegate = (prompt = "do the thing", more: Record<string, unknown> = {}) =>
  use("task", { prompt, description: "check", ...more });

/** The tool_result texts of a conversation, in order. */
const toolResults = (messages: MessageParam[]) =>
  messages.flatMap((m) =>
    typeof m.content === "string"
      ? []
      : m.content.flatMap((b) => (b.type === "tool_result" ? [String(b.content)] : [])),
  );
const childRequests = (env: CheckEnv) => env.requests.filter((r) => r.agent === "subagent");
const toolsOf = (request: CheckEnv["requests"][number] | undefined) =>
  (request?.body.tools ?? []).map((t) => ("name" in t ? t.name : ""));

/** Plays one lead turn; the learner's code throwing is a failure the check names, not a crash. */
async function play(module: M, env: CheckEnv): Promise<MessageParam[]> {
  const agent = module.createAgent(env);
  try {
    await agent.send("go");
  } catch (err) {
    if (err instanceof Error && err.message.startsWith(NOT_STARTED)) throw err;
    throw new CheckFailure("turn-crashed", {
      error: err instanceof Error ? err.message : String(err),
    });
  }
  // A stub's "not started" comes back as the task's error result: say so, as the checker does.
  const stub = toolResults(agent.messages).find((r) => r.includes(NOT_STARTED));
  if (stub) throw new Error(stub.slice(stub.indexOf(NOT_STARTED)));
  return agent.messages;
}

export const onlyFinalText: Check<M> = {
  id: "only-final-text",
  async run(module, kit) {
    const env = kit.env({
      lead: [delegate(), say("thanks")],
      subagent: [
        use("bash", { command: "echo SECRET-INTERMEDIATE-OUTPUT" }, "working on it"),
        say("FINAL SUMMARY"),
      ],
    });
    const messages = await play(module, env);
    const [result] = toolResults(messages);
    expectThat(result === "FINAL SUMMARY", "not-final-text", { got: result ?? "no result" });
    expectThat(messages.length === 4, "lead-history-grew", {
      roles: messages.map((m) => m.role).join(", "),
    });
    const sent = JSON.stringify(env.requests.filter((r) => r.agent === "lead").at(-1)?.body);
    expectThat(!sent.includes("SECRET-INTERMEDIATE-OUTPUT"), "child-work-leaked", {});
  },
};

export const freshChild: Check<M> = {
  id: "fresh-child",
  async run(module, kit) {
    const env = kit.env({
      lead: [delegate("count the files"), say("ok")],
      subagent: [say("there are none")],
    });
    await play(module, env);
    const [first] = childRequests(env);
    expectThat(first, "no-child", {});
    const got = JSON.stringify(first.body.messages);
    expectThat(
      got === JSON.stringify([{ role: "user", content: "count the files" }]),
      "child-not-fresh",
      { got },
    );
    const tools = toolsOf(first);
    expectThat(tools.join(",") === BASE.join(","), "child-tools", { tools: tools.join(", ") });
    expectThat(first.body.system !== env.requests[0].body.system, "child-lead-prompt", {});
  },
};

export const childLoops: Check<M> = {
  id: "child-loops",
  async run(module, kit) {
    const env = kit.env({
      lead: [delegate(), use("read", { path: "out/child.txt" }), say("seen")],
      subagent: [
        use("bash", { command: "echo CHILD-$((6 * 7))" }),
        use("write", { path: "out/child.txt", content: "written by the child" }),
        say("wrote out/child.txt"),
      ],
    });
    const messages = await play(module, env);
    const second = JSON.stringify(childRequests(env)[1]?.body.messages ?? []);
    expectThat(second.includes("CHILD-42"), "child-results-lost", {});
    const results = toolResults(messages);
    expectThat(results[1] === "written by the child", "child-file-unseen", {
      got: results.join(" | ") || "nothing",
    });
    await childRule(module, kit);
  },
};

// ---- The child's loop, tried on generated delegations (a property check) ----

/** One or two delegations in a lead turn; each child works some rounds (one to three calls a
 *  round, with or without words) and then answers. */
const childrenArb = fc.array(
  fc.record({
    rounds: fc.array(fc.record({ calls: fc.integer({ min: 1, max: 3 }), says: fc.boolean() }), {
      maxLength: 3,
    }),
  }),
  { minLength: 1, maxLength: 2 },
);

/** The ids of a message's blocks of one type (tool_use ids, or the ids tool_results answer). */
const idsOf = (m: MessageParam | undefined, type: "tool_use" | "tool_result") =>
  !m || typeof m.content === "string"
    ? []
    : m.content.flatMap((b) =>
        b.type !== type
          ? []
          : [String(b.type === "tool_use" ? b.id : (b as { tool_use_id: string }).tool_use_id)],
      );

async function childRule(module: M, kit: CheckKit) {
  await forAll(
    childrenArb,
    async (children) => {
      // What a call prints is not in its command: only its result can carry it to the child.
      const mark = (c: number, r: number, k: number) => `OUT${1000 + c * 100 + r * 10 + k}`;
      const subagent = children.flatMap(({ rounds }, c) => [
        ...rounds.map(({ calls, says }, r) =>
          useAll(
            Array.from({ length: calls }, (_, k) => ({
              name: "bash",
              input: { command: `printf 'OUT%s' ${1000 + c * 100 + r * 10 + k}` },
            })),
            says ? `child ${c + 1} working` : undefined,
          ),
        ),
        say(`SUMMARY-${c + 1}`),
      ]);
      const env = kit.env({
        lead: [...children.map((_, c) => delegate(`job ${c + 1}`)), say("thanks")],
        subagent,
      });
      const messages = await play(module, env);
      const story = children
        .map(
          ({ rounds }, c) =>
            `child ${c + 1}: ${rounds.map((r) => `${r.calls} call(s)`).join(", ") || "no tools"}, then answers`,
        )
        .join(" · ");
      const results = toolResults(messages);
      const requests = childRequests(env);
      let at = 0;
      children.forEach(({ rounds }, c) => {
        const first = requests[at];
        expectThat(
          JSON.stringify(first?.body.messages) ===
            JSON.stringify([{ role: "user", content: `job ${c + 1}` }]),
          "rule-child-not-fresh",
          { story, child: c + 1, got: JSON.stringify(first?.body.messages ?? "no request") },
        );
        rounds.forEach(({ calls }, r) => {
          // Each call of the round answered by exactly one result with its id, nothing else.
          const sentNext = requests[at + r + 1]?.body.messages ?? [];
          const asked = idsOf(sentNext.at(-2), "tool_use");
          const answered = idsOf(sentNext.at(-1), "tool_result");
          expectThat(
            asked.length === calls && [...answered].sort().join() === [...asked].sort().join(),
            "rule-results-unpaired",
            { story, child: c + 1, round: r + 1, calls, results: answered.length },
          );
          const next = JSON.stringify(sentNext);
          for (let k = 0; k < calls; k++)
            expectThat(next.includes(mark(c, r, k)), "rule-child-result-lost", {
              story,
              child: c + 1,
              round: r + 1,
              call: k + 1,
              calls,
            });
        });
        at += rounds.length + 1;
        expectThat(results[c] === `SUMMARY-${c + 1}`, "rule-not-final-text", {
          story,
          child: c + 1,
          got: results[c] ?? "no result",
        });
      });
      const lead = JSON.stringify(
        env.requests.filter((r) => r.agent === "lead").map((r) => r.body),
      );
      expectThat(!/OUT\d/.test(lead), "child-work-leaked", {});
    },
    { runs: 8 },
  );
}

export const cutAtThirty: Check<M> = {
  id: "cut-at-30",
  limitMs: 20_000,
  async run(module, kit) {
    const forever = Array.from({ length: 35 }, (_, i) =>
      use("glob", { pattern: "*.none" }, `step ${i + 1}`),
    );
    const env = kit.env({ lead: [delegate(), say("ok")], subagent: forever });
    const messages = await play(module, env);
    const calls = childRequests(env).length;
    expectThat(calls === 30, "child-not-cut", { calls });
    const [result = ""] = toolResults(messages);
    expectThat(result.includes("step 30") && /stopped|cut/i.test(result), "cut-unsaid", {
      got: result,
    });
  },
};

export const toolsList: Check<M> = {
  id: "tools-list",
  async run(module, kit) {
    const env = kit.env({
      lead: [
        delegate("survey", { tools: ["read", "glob"] }),
        delegate("sneak", { tools: ["read", "task"] }),
        delegate("anything"),
        say("ok"),
      ],
      subagent: [say("(a call to write, below)"), say("surveyed"), say("sneaked"), say("did it")],
    });
    // The read-only survey's child asks for write anyway: a model may name any tool, offered or
    // not (a scenario may not, so its first reply is swapped for that call here).
    const models = env.modelFor;
    let asked = false;
    env.modelFor = (agent) => {
      const model = models(agent);
      if (agent !== "subagent") return model;
      return {
        messages: {
          async create(body: Parameters<typeof model.messages.create>[0]) {
            const reply = await model.messages.create(body);
            if (asked) return reply;
            asked = true;
            const write = { path: "sneaked.txt", content: "x" };
            return {
              ...reply,
              stop_reason: "tool_use",
              content: [{ type: "tool_use", id: "toolu_sneak", name: "write", input: write }],
            };
          },
        },
      } as typeof model;
    };
    const messages = await play(module, env);
    // Each child's first request (the survey's child asks twice).
    const firsts = childRequests(env).filter((r) => r.body.messages.length === 1);
    const [survey, sneak, all] = firsts.map(toolsOf);
    expectThat(!existsSync(path.join(env.workspace, "sneaked.txt")), "write-let-in", {});
    const [first] = toolResults(messages);
    expectThat(survey?.join(",") === "read,glob", "tools-not-limited", {
      asked: "read, glob",
      got: survey?.join(", ") ?? `no child (${first})`,
    });
    expectThat(sneak?.join(",") === "read", "task-let-in", {
      got: sneak?.join(", ") ?? "no child",
    });
    expectThat(all?.join(",") === BASE.join(","), "default-tools", {
      got: all?.join(", ") ?? "no child",
    });
  },
};

export const exercises: Exercise<M>[] = [
  {
    id: "s06",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "runSubagent",
        contract: [
          "Runs one child agent for the task tool and returns its final text, nothing else of it.",
          "The child starts fresh: messages = [the prompt], its own model env.modelFor(CHILD), its",
          "own CHILD_SYSTEM and CHILD_TOOLS (no task: one level of delegation), and runs the loop",
          "of s01 on them (runTool(handlers, block, { root, sandbox: env.sandbox }, CHILD_TOOLS) for",
          "each call). After",
          "MAX_CHILD_ROUNDS model calls it is cut off: return its last text and say it was stopped.",
        ].join("\n"),
      },
    ],
    checks: [onlyFinalText, freshChild, childLoops, cutAtThirty],
  },
  {
    id: "s06.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      tools: (reference) =>
        reference.replace(
          "      description: {\n",
          `      tools: {
        type: "array",
        items: { type: "string" },
        description: "Only these base tools, e.g. [\\"read\\", \\"glob\\"] for a read-only survey (default: all)",
      },
      description: {\n`,
        ),
      // Each change throws if its text is gone from the chapter (a silent no-op once left the
      // child's calls checked against all of CHILD_TOOLS).
      subagent: (reference) =>
        change(
          "runTool(handlers, block, ctx, CHILD_TOOLS)",
          "runTool(handlers, block, ctx, tools)",
        )(
          change(
            "      tools: CHILD_TOOLS,\n",
            "      tools,\n",
          )(
            change(
              "  handlers: Record<string, ToolHandler> = BASE_HANDLERS, // the child's tools (a harness may guard them)\n",
              "  handlers: Record<string, ToolHandler> = BASE_HANDLERS, // the child's tools (a harness may guard them)\n" +
                "  tools: Tool[] = CHILD_TOOLS, // the schemas it is offered: all of CHILD_TOOLS, or some\n",
            )(reference),
          ),
        ),
      dispatch: (reference) =>
        change(
          "      return runSubagent(env, prompt, root, childHandlers);",
          `      // Only names of the child's own tools count: task is never among them.
      const chosen = Array.isArray(tools)
        ? CHILD_TOOLS.filter((t) => tools.includes(t.name))
        : CHILD_TOOLS;
      const handlers = Object.fromEntries(
        Object.entries(childHandlers).filter(([name]) => chosen.some((t) => t.name === name)),
      );
      return runSubagent(env, prompt, root, handlers, chosen);`,
        )(
          change(
            "    task({ prompt, description }, { root }) {",
            "    task({ prompt, description, tools }, { root }) {",
          )(reference),
        ),
    },
    checks: [toolsList, onlyFinalText],
  },
];
