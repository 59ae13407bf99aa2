// s05's exercises: rebuild micro-compaction; extend the compaction (on the real token count; a
// /compact command). The behaviours are the curriculum's for s05, and
// tests/chapters/s05-context-compact.test.ts runs the same ones against the chapter's own code.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { say, use } from "../../_shared/scripted.ts";
import type { AgentEnv, MessageParam } from "../../_shared/types.ts";
import type * as S05 from "../agent.ts";
import {
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckEnv,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S05;

const long = (n: number) => "y".repeat(n);
/** A command whose output is exactly n characters long. */
const loud = (n: number) => use("bash", { command: `printf '${long(n)}'` });
const marker = (tool: string, chars: number) =>
  `[earlier tool result cleared: ${tool}, ${chars} chars]`;

/** A history of tool rounds: one assistant tool_use and one user tool_result per [tool, output]. */
export function history(rounds: [string, string][]): MessageParam[] {
  const messages: MessageParam[] = [{ role: "user", content: "go" }];
  rounds.forEach(([name, output], i) => {
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `t${i}`, name, input: {} }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `t${i}`, content: output }],
    });
  });
  return messages;
}
const resultTexts = (messages: MessageParam[]) =>
  messages.flatMap((m) =>
    typeof m.content === "string"
      ? []
      : m.content.flatMap((b) => (b.type === "tool_result" ? [String(b.content)] : [])),
  );
/** "marker" for a marker, else the text's length: what a failure message shows. */
const shape = (texts: string[]) =>
  texts.map((t) => (t.startsWith("[earlier") ? t : `${t.length} chars`)).join(" | ");

/** Runs microCompact on `rounds`; fails with `key` unless the results become `expected`. */
function expectCompacted(module: M, rounds: [string, string][], expected: string[], key: string) {
  const messages = history(rounds);
  module.microCompact(messages);
  const got = resultTexts(messages);
  expectThat(got.length === expected.length && got.every((t, i) => t === expected[i]), key, {
    got: shape(got),
    expected: shape(expected),
  });
}

/** The learner's code throwing is a failure the check names, not a crash. */
async function guarded<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof CheckFailure) throw err;
    if (err instanceof Error && err.message.startsWith(NOT_STARTED)) throw err;
    throw new CheckFailure("turn-crashed", {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

export const clearsOldLong: Check<M> = {
  id: "clears-old-long",
  async run(module) {
    const rounds: [string, string][] = [
      ["bash", long(150)],
      ["glob", long(300)],
      ["bash", long(200)],
      ["bash", long(400)],
      ["write", long(400)],
    ];
    const messages = history(rounds);
    const cleared = module.microCompact(messages);
    const expected = [marker("bash", 150), marker("glob", 300), long(200), long(400), long(400)];
    const got = resultTexts(messages);
    expectThat(
      got.every((t, i) => t === expected[i]),
      "old-not-cleared",
      { got: shape(got), expected: shape(expected) },
    );
    const said = JSON.stringify(cleared);
    expectThat(
      said ===
        JSON.stringify([
          { tool: "bash", chars: 150 },
          { tool: "glob", chars: 300 },
        ]),
      "cleared-not-reported",
      { got: said },
    );
    await compactRule(module);
  },
};

// ---- The rule, tried on generated histories (a property check) ----

/** A round: the tool calls of one reply (one to three), each with the length of its output. */
const roundsArb = fc.array(
  fc.array(
    fc.tuple(
      fc.constantFrom("bash", "bash", "glob", "read", "write"),
      fc.constantFrom(0, 2, 99, 100, 101, 150, 400),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  { minLength: 1, maxLength: 7 },
);

/** microCompact's rule: of all the tool results, in order, every one but the last KEEP_RECENT
 *  that is longer than MIN_CLEAR_CHARS and not a read's becomes the marker, in the stored
 *  history, and is reported; everything else stays as it was. Compacting again changes nothing. */
async function compactRule(module: M) {
  await forAll(
    roundsArb,
    (rounds) => {
      const messages: MessageParam[] = [{ role: "user", content: "go" }];
      let n = 0;
      for (const calls of rounds) {
        const ids = calls.map(() => `t${n++}`);
        messages.push({
          role: "assistant",
          content: calls.map(([name], i) => ({ type: "tool_use", id: ids[i], name, input: {} })),
        });
        messages.push({
          role: "user",
          content: calls.map(([, chars], i) => ({
            type: "tool_result",
            tool_use_id: ids[i],
            content: long(chars),
          })),
        });
      }
      const all = rounds.flat();
      const old = all.length - module.KEEP_RECENT;
      const clears = all.map(
        ([tool, chars], i) => i < old && tool !== "read" && chars > module.MIN_CLEAR_CHARS,
      );
      const story = rounds
        .map(
          (calls, r) => `${r + 1}: ${calls.map(([tool, chars]) => `${tool} ${chars}`).join(" + ")}`,
        )
        .join(" · ");
      const reported = module.microCompact(messages);
      const got = resultTexts(messages);
      all.forEach(([tool, chars], i) => {
        const expected = clears[i] ? marker(tool, chars) : long(chars);
        if (got[i] === expected) return;
        const key = clears[i]
          ? "rule-not-cleared"
          : i >= old
            ? "rule-recent-cleared"
            : tool === "read"
              ? "rule-read-cleared"
              : "rule-short-cleared";
        expectThat(false, key, { story, result: i + 1, tool, chars });
      });
      const want = all.filter((_, i) => clears[i]).map(([tool, chars]) => ({ tool, chars }));
      expectThat(JSON.stringify(reported) === JSON.stringify(want), "rule-not-reported", {
        story,
        got: JSON.stringify(reported),
        expected: JSON.stringify(want),
      });
      const again = module.microCompact(messages);
      expectThat(
        JSON.stringify(resultTexts(messages)) === JSON.stringify(got) && again.length === 0,
        "rule-compacted-twice",
        { story, got: JSON.stringify(again) },
      );
    },
    { runs: 40 },
  );
}

export const keepsRecent: Check<M> = {
  id: "keeps-recent",
  run(module) {
    expectCompacted(
      module,
      [
        ["bash", long(300)],
        ["bash", long(300)],
        ["bash", long(300)],
      ],
      [long(300), long(300), long(300)],
      "recent-cleared",
    );
    expectCompacted(
      module,
      [
        ["bash", long(300)],
        ["bash", long(301)],
        ["bash", long(302)],
        ["bash", long(303)],
      ],
      [marker("bash", 300), long(301), long(302), long(303)],
      "recent-cleared",
    );
  },
};

export const neverRead: Check<M> = {
  id: "never-read",
  run(module) {
    expectCompacted(
      module,
      [
        ["read", long(500)],
        ["read", long(600)],
        ["bash", "ok"],
        ["bash", "ok"],
        ["bash", "ok"],
      ],
      [long(500), long(600), "ok", "ok", "ok"],
      "read-cleared",
    );
  },
};

export const keepsShort: Check<M> = {
  id: "keeps-short",
  run(module) {
    expectCompacted(
      module,
      [
        ["bash", long(100)],
        ["glob", "a.ts"],
        ["bash", long(101)],
        ["bash", "ok"],
        ["bash", "ok"],
        ["bash", "ok"],
      ],
      [long(100), "a.ts", marker("bash", 101), "ok", "ok", "ok"],
      "short-cleared",
    );
  },
};

export const inTheHistory: Check<M> = {
  id: "in-the-history",
  async run(module, kit) {
    const env = kit.env([loud(200), loud(210), loud(220), loud(230), loud(240), say("done")]);
    const agent = module.createAgent(env);
    await guarded(() => agent.send("work"));
    const expected = [marker("bash", 200), marker("bash", 210), long(220), long(230), long(240)];
    const sent = resultTexts(env.requests.at(-1)?.body.messages ?? []);
    expectThat(
      sent.every((t, i) => t === expected[i]) && sent.length === expected.length,
      "model-saw-old",
      { got: shape(sent), expected: shape(expected) },
    );
    const kept = resultTexts(agent.messages);
    expectThat(kept[0] === expected[0] && kept[1] === expected[1], "history-kept-old", {
      got: shape(kept),
    });
  },
};

/** The env with a model that reports `inputTokens` as its usage, whatever was sent. */
function reporting(env: CheckEnv, inputTokens: number): AgentEnv {
  const create = env.model.messages.create.bind(env.model.messages);
  return {
    ...env,
    model: {
      messages: {
        create: async (body) => {
          const reply = await create(body);
          return { ...reply, usage: { ...reply.usage, input_tokens: inputTokens } };
        },
      },
    },
  };
}
/** Which requests were summary calls (a call without tools). */
const summaryCalls = (env: CheckEnv) =>
  env.requests.flatMap((r, i) => ((r.body.tools ?? []).length === 0 ? [i + 1] : []));

export const realTokenCount: Check<M> = {
  id: "real-token-count",
  async run(module, kit) {
    // The model says the history is huge: over the default threshold, though the estimate is tiny.
    const big = kit.env([
      use("bash", { command: "echo hi" }),
      say("SUMMARY: said hi"),
      say("done"),
    ]);
    await guarded(() => module.createAgent(reporting(big, 60_000)).send("go"));
    expectThat(summaryCalls(big)[0] === 2, "real-count-ignored", {
      reported: 60_000,
      got: summaryCalls(big).join(", ") || "none",
    });
    // The model says it is small, though the estimate is over a tiny threshold: no compaction.
    const small = kit.env([loud(1000), say("done"), say("SUMMARY: never")]);
    await guarded(() =>
      module.createAgent(reporting(small, 10), { tokenThreshold: 100 }).send("go"),
    );
    expectThat(summaryCalls(small).length === 0, "estimate-not-fallback", {
      got: summaryCalls(small).join(", "),
    });
  },
};

export const compactCommand: Check<M> = {
  id: "compact-command",
  async run(module, kit) {
    const ws = kit.workspace();
    const env = kit.env(
      [use("bash", { command: "echo BEFORE-COMPACT" }), say("done"), say("SUMMARY: echoed once")],
      {
        workspace: ws,
      },
    );
    const agent = module.createAgent(env);
    await guarded(() => agent.send("start"));
    const command = agent.commands?.["/compact"];
    expectThat(command, "no-compact-command", {});
    await guarded(() => command.run(""));
    expectThat(
      env.requests.length === 3 && (env.requests[2].body.tools ?? []).length === 0,
      "no-summary-call",
      {
        calls: env.requests.length,
      },
    );
    const [only, ...rest] = agent.messages;
    const text =
      only && (typeof only.content === "string" ? only.content : JSON.stringify(only.content));
    expectThat(
      rest.length === 0 && text?.includes("SUMMARY: echoed once"),
      "history-not-replaced",
      {
        messages: agent.messages.length,
      },
    );
    const dir = path.join(ws, ".transcripts");
    const files = existsSync(dir) ? readdirSync(dir) : [];
    expectThat(
      files.some((f) => readFileSync(path.join(dir, f), "utf8").includes("BEFORE-COMPACT")),
      "no-transcript",
      {},
    );
  },
};

export const exercises: Exercise<M>[] = [
  {
    id: "s05",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "microCompact",
        contract: [
          "Called before every model call with the stored history. Find every tool_result and the",
          "name of the tool_use it answers. All but the last KEEP_RECENT results are old: replace the",
          "content of each old one longer than MIN_CLEAR_CHARS characters with",
          '"[earlier tool result cleared: <tool>, <chars> chars]", in place (the history itself',
          "shrinks), but never a read result. Return [{ tool, chars }] for each one cleared.",
        ].join("\n"),
      },
    ],
    checks: [clearsOldLong, keepsRecent, neverRead, keepsShort, inTheHistory],
  },
  {
    id: "s05.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      loop: (reference) =>
        reference
          .replace(
            "  for (;;) {\n",
            "  // The last reply's own count of what was sent; before the first reply, the estimate.\n" +
              "  let realTokens: number | undefined;\n  for (;;) {\n",
          )
          .replace(
            "const tokens = estimateTokens(messages);",
            "const tokens = realTokens ?? estimateTokens(messages);",
          )
          .replace(
            "      await compactHistory(env, messages);\n",
            "      await compactHistory(env, messages);\n      realTokens = undefined; // that count was of the history now replaced\n",
          )
          .replace(
            "    env.io.assistant(response);\n",
            "    env.io.assistant(response);\n    realTokens = response.usage?.input_tokens;\n",
          ),
    },
    checks: [realTokenCount, inTheHistory],
  },
  {
    id: "s05.2",
    kind: "extend",
    file: "agent.ts",
    solution: {
      agent: (reference) =>
        reference.replace(
          "\n    },\n    async send(prompt) {",
          `
      "/compact": {
        help: "summarise the conversation now and replace it with the summary (transcript kept)",
        run: async (focus) => {
          if (messages.length === 0) return "nothing to compact yet";
          const transcript = await compactHistory(env, messages, focus.trim() || undefined);
          return \`compacted: one summary message now; the full transcript is in \${transcript}\`;
        },
      },
    },
    async send(prompt) {`,
        ),
    },
    checks: [compactCommand],
  },
];
