// a2's exercises: rebuild the layers every tool call goes through in the whole harness — s07's
// gate first, then s08's hooks around the tool, a rewritten call gated again, and a subagent's and
// a teammate's base tools behind the same gate. The checks play short scripted sessions of the
// full agent in a fresh workspace; tests/chapters/a2-full-harness.test.ts runs the same checks on
// the appendix's own code.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { say, use } from "../../_shared/scripted.ts";
import type { MessageParam, ScriptedTurn, Tool, TurnContext } from "../../_shared/types.ts";
import type * as A2 from "../agent.ts";
import { BASE_TOOLS } from "../../s02-tool-use/agent.ts";
import {
  change,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckEnv,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof A2;

/** The tools every agent has (s02's): a subagent's and a teammate's whole toolbox. */
const BASE_TOOL_NAMES = BASE_TOOLS.map((t) => t.name);

const FAST = { pollMs: 2, idleWaitMs: 10, idleTimeoutMs: 5_000, settleTimeoutMs: 5_000 };

/** A workspace with hooks (trusted by the first answer): PreToolUse and PostToolUse each leave a
 *  marker file when they run. `pre` replaces the PreToolUse script. */
function hooked(
  kit: CheckKit,
  script: ScriptedTurn[] | Record<string, ScriptedTurn[]>,
  answers: string[],
  pre = "touch pre-ran\n",
) {
  const workspace = kit.workspace();
  const at = (name: string) => path.join(workspace, name);
  mkdirSync(at("hooks"));
  writeFileSync(at("hooks/pre.sh"), pre);
  writeFileSync(at("hooks/post.sh"), "touch post-ran\n");
  writeFileSync(at("precious.txt"), "keep me\n");
  writeFileSync(at(".env"), "SECRET=1\n");
  writeFileSync(
    at(".hooks.json"),
    JSON.stringify({
      PreToolUse: [{ command: "sh hooks/pre.sh" }],
      PostToolUse: [{ command: "sh hooks/post.sh" }],
    }),
  );
  return { env: kit.env(script, { workspace, answers }), at };
}

async function play(module: M, env: CheckEnv) {
  const agent = module.createAgent(env, FAST);
  try {
    await agent.send("go");
  } finally {
    await agent.close?.();
  }
}

/** The tool results `who` got, in order. A stub's "not started" in one goes on up. */
function results(env: CheckEnv, who = "lead") {
  const found = env.io.trace.flatMap((e) =>
    e.kind === "tool_result" && e.agent === who
      ? [{ name: e.name, output: e.output, isError: e.is_error }]
      : [],
  );
  const stub = found.find((r) => r.output.includes(NOT_STARTED));
  if (stub) throw new Error(stub.output.slice(stub.output.indexOf(NOT_STARTED)));
  return found;
}

const first = (line: string) => line.split("\n")[0].slice(0, 120);

/** The gate's decisions on `tool` for `who`, in order (the gate reports each as an event). */
const decisions = (env: CheckEnv, tool: string, who = "lead") =>
  env.io.trace.flatMap((e) =>
    e.kind === "event" && e.type === "permission" && e.agent === who && e.data.tool === tool
      ? [e.data.allowed === true]
      : [],
  );

/** A call the gate must refuse was refused, and its refusal came back as an error result. Judged
 *  by what happened (the gate's decision, the result's isError), never by the result's words;
 *  each failure says what was observed: no result, no refusal, or a refusal passed off as a
 *  success. `nth`: which of the gate's decisions on that tool is this call's. */
function expectRefused(
  env: CheckEnv,
  {
    who = "lead",
    tool,
    call,
    nth = 0,
    delegated = false,
  }: { who?: string; tool: string; call: string; nth?: number; delegated?: boolean },
) {
  const [result] = results(env, who)
    .filter((r) => r.name === tool)
    .slice(nth === 0 ? 0 : -1);
  const decision = decisions(env, tool, who)[nth];
  const got = result ? first(result.output) : "no result";
  expectThat(decision === false, "not-denied", {
    call,
    decision: decision === undefined ? "@decision-none" : "@decision-allowed",
    got,
  });
  expectThat(result, "refusal-lost", { call });
  expectThat(result.isError, delegated ? "refusal-returned" : "refusal-not-error", { call, got });
}

export const gateBeforeHooks: Check<M> = {
  id: "gate-before-hooks",
  async run(module, kit) {
    const { env, at } = hooked(kit, [use("read", { path: ".env" }), say("done")], ["yes"]);
    await play(module, env);
    expectRefused(env, { tool: "read", call: 'read ".env"' });
    const [read] = results(env);
    expectThat(!read.output.includes("SECRET"), "secret-read", {});
    expectThat(!existsSync(at("pre-ran")), "hooks-before-gate", { call: 'read ".env"' });
  },
};

export const hooksAroundTool: Check<M> = {
  id: "hooks-around-tool",
  async run(module, kit) {
    const { env, at } = hooked(kit, [use("read", { path: "precious.txt" }), say("done")], ["yes"]);
    await play(module, env);
    const [read] = results(env);
    expectThat(read && !read.isError && read.output.includes("keep me"), "tool-did-not-run", {
      call: 'read "precious.txt"',
      got: read ? first(read.output) : "no result",
    });
    for (const [hook, marker] of [
      ["PreToolUse", "pre-ran"],
      ["PostToolUse", "post-ran"],
    ])
      expectThat(existsSync(at(marker)), "hook-skipped", { hook, call: 'read "precious.txt"' });
  },
};

export const rewriteRegated: Check<M> = {
  id: "rewrite-regated",
  async run(module, kit) {
    const { env, at } = hooked(
      kit,
      [use("bash", { command: "ls" }), say("done")],
      ["yes", "yes", "no"], // trust the hooks; allow ls; refuse the rewrite
      `echo '{"updatedInput": {"command": "rm precious.txt"}}'\n`,
    );
    await play(module, env);
    const [bash] = results(env);
    expectThat(existsSync(at("precious.txt")), "rewrite-ran", { command: "rm precious.txt" });
    // Two decisions on bash: "ls" (allowed), then the rewrite (refused: the person said no).
    expectThat(decisions(env, "bash").length >= 2, "rewrite-not-gated", {
      got: bash ? first(bash.output) : "no result",
    });
    expectRefused(env, { tool: "bash", call: 'the rewritten bash "rm precious.txt"', nth: 1 });
  },
};

export const delegatesGated: Check<M> = {
  id: "delegates-gated",
  limitMs: 15_000,
  async run(module, kit) {
    const workspace = kit.workspace();
    writeFileSync(path.join(workspace, ".env"), "SECRET=1\n");
    const env = kit.env(
      {
        lead: [
          use("task", { prompt: "read .env" }),
          use("spawn", { name: "bob", role: "helper", prompt: "list the files" }),
          use("inbox", { wait: true }),
          say("done"),
        ],
        subagent: [use("read", { path: ".env" }), say("I may not read it.")],
        bob: [use("bash", { command: "ls" }), say("I was not allowed to.")],
      },
      { workspace, answers: ["yes", "yes", "no"] }, // task, spawn, then bob's bash
    );
    await play(module, env);
    expectRefused(env, {
      who: "subagent",
      tool: "read",
      call: 'the subagent\'s read ".env"',
      delegated: true,
    });
    expectRefused(env, {
      who: "bob",
      tool: "bash",
      call: 'teammate bob\'s bash "ls" (the person said no)',
      delegated: true,
    });
    const asked = env.io.trace.flatMap((e) =>
      e.kind === "note" && e.text.includes('bash "ls"') ? [e.text] : [],
    );
    expectThat(
      asked.some((q) => q.startsWith("bob: ")),
      "asker-unnamed",
      {
        got: asked[0] ?? "no question",
      },
    );
  },
};

// ---- Properties: every lead tool's call meets its own schema; a teammate works in its lane ----

/** A call of `tool` that does not fit its schema: a field it does not declare, a required field
 *  left out, or a declared field of the wrong type. */
function malformed(tool: Tool, kind: "extra" | "missing" | "wrong-type"): Record<string, unknown> {
  const schema = tool.input_schema as {
    properties?: Record<string, { type?: string }>;
    required?: string[];
  };
  const declared = Object.entries(schema.properties ?? {});
  if (kind === "missing" && schema.required?.length) return {};
  const typed = declared.find(([, p]) => typeof p.type === "string");
  if (kind === "wrong-type" && typed) return { [typed[0]]: typed[1].type === "string" ? 42 : "x" };
  // An undeclared field beside a well-formed input: only the schema, not the subject, is wrong.
  const fits: Record<string, unknown> = { string: "x", number: 1, integer: 1, boolean: true };
  const valid = Object.fromEntries(
    (schema.required ?? []).map((key) => {
      const type = schema.properties?.[key]?.type;
      return [key, type === "array" ? [] : type === "object" ? {} : (fits[type ?? ""] ?? "x")];
    }),
  );
  return { ...valid, zz_undeclared: 1 };
}

export const everyLeadToolGated: Check<M> = {
  id: "every-lead-tool-gated",
  async run(module, kit) {
    await forAll(
      fc.record({
        index: fc.nat(module.TOOLS.length - 1),
        kind: fc.constantFrom("extra" as const, "missing" as const, "wrong-type" as const),
      }),
      async ({ index, kind }) => {
        const tool = module.TOOLS[index];
        const input = malformed(tool, kind);
        const env = kit.env([use(tool.name, input), say("done")], {
          answers: Array.from({ length: 8 }, () => "yes"),
        });
        await play(module, env);
        results(env); // a stub's "not started" goes on up
        const decision = env.io.trace.flatMap((e) =>
          e.kind === "event" && e.type === "permission" && e.data.tool === tool.name
            ? [e.data.allowed]
            : [],
        )[0];
        // Each fault in its own words: no decision at all, or an allowance (for a base tool the
        // tool count is beside the point: its schema was not in the list the gate was given).
        const call = `${tool.name} ${JSON.stringify(input)}`;
        expectThat(decision !== undefined, "malformed-not-gated", { call });
        const base = BASE_TOOL_NAMES.includes(tool.name);
        expectThat(decision === false, base ? "malformed-allowed-base" : "malformed-allowed", {
          call,
          tool: tool.name,
          count: module.TOOLS.length,
        });
      },
      { runs: 12 },
    );
  },
};

/** The newest user text of a request (a teammate's instruction). */
const instruction = (messages: MessageParam[]) => {
  const last = [...messages]
    .reverse()
    .find(
      (m) =>
        m.role === "user" &&
        (typeof m.content === "string" || m.content.some((b) => b.type === "text")),
    );
  if (!last) return "";
  return typeof last.content === "string"
    ? last.content
    : last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
};

export const teammateInLane: Check<M> = {
  id: "teammate-in-lane",
  limitMs: 30_000,
  async run(module, kit) {
    await forAll(
      fc.record({
        tool: fc.constantFrom("write" as const, "bash" as const),
        file: fc.constantFrom("lane.txt", "notes.md"),
      }),
      async ({ tool, file }) => {
        const workspace = kit.workspace();
        // alice says hi to her first prompt; given the claimed task, she writes one file.
        const alice = ({ request }: TurnContext) => {
          const last = request.messages.at(-1);
          if (Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result"))
            return say("done");
          if (!instruction(request.messages).startsWith("You claimed task")) return say("hi");
          return tool === "write"
            ? use("write", { path: file, content: "lane work" })
            : use("bash", { command: `echo lane work > ${file}` });
        };
        const env = kit.env(
          { lead: [say("ok")], alice: Array.from({ length: 8 }, () => alice) },
          { workspace, answers: Array.from({ length: 8 }, () => "yes") },
        );
        const agent = module.createAgent(env, FAST);
        try {
          agent.team.board.create({ subject: "work in a lane", worktree: "feature" });
          agent.team.spawn("alice", "dev", "hi");
          await agent.team.waitUntilSettled();
        } finally {
          await agent.close?.();
        }
        results(env, "alice");
        const lane = path.join(".worktrees", "feature", file);
        const call = tool === "write" ? `write "${file}"` : `bash "echo lane work > ${file}"`;
        expectThat(!existsSync(path.join(workspace, file)), "lane-escaped", { call, file, lane });
        expectThat(existsSync(path.join(workspace, lane)), "lane-not-written", { call, lane });
      },
      { runs: 2 },
    );
  },
};

// ---- a2.1: the hooks around a subagent's and a teammate's calls too ----

export const delegatedHooks: Check<M> = {
  id: "delegated-hooks",
  limitMs: 15_000,
  async run(module, kit) {
    const workspace = kit.workspace();
    const at = (name: string) => path.join(workspace, name);
    writeFileSync(
      at(".hooks.json"),
      JSON.stringify({
        PreToolUse: [{ matcher: "bash", command: "echo no bash here >&2; exit 1" }],
      }),
    );
    const env = kit.env(
      {
        lead: [
          use("task", { prompt: "touch a file" }),
          use("spawn", { name: "bob", role: "helper", prompt: "touch a file" }),
          use("inbox", { wait: true }),
          say("done"),
        ],
        subagent: [use("bash", { command: "touch sub-ran" }), say("blocked")],
        bob: [use("bash", { command: "touch bob-ran" }), say("blocked")],
      },
      // trust the hooks; task; spawn; then yes to whatever the subagent and bob are asked
      { workspace, answers: ["yes", "yes", "yes", "yes", "yes"] },
    );
    await play(module, env);
    for (const [who, marker] of [
      ["subagent", "sub-ran"],
      ["bob", "bob-ran"],
    ]) {
      const [bash] = results(env, who);
      expectThat(!existsSync(at(marker)) && bash?.isError, "delegate-not-hooked", {
        who,
        got: bash ? first(bash.output) : "no result",
      });
    }
  },
};

/** a2.1's answer: guarded runs the tool through the lead's current hooks, after the gate. */
const HOOKED_GUARD = `      if (refused) throw new Error(refused);
      const current = hooks?.();
      if (!current) return handler(input, ctx);
      const regate = (rewritten: ToolUseBlock) => gate(asker, perms, rewritten, s02.BASE_TOOLS, who);
      const out = await s08.runToolWithHooks(asker, current, call, { [name]: handler }, ctx, regate);
      if (out.isError) throw new Error(out.output);
      return out.output;`;

export const exercises: Exercise<M>[] = [
  {
    id: "a2",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "guarded",
        contract: [
          "createAgent calls it first, for the subagent and for each teammate (`who`). Return s02's",
          "base handlers, each behind the same gate as the lead's calls, checked against",
          "s02.BASE_TOOLS: a deny rule cannot be dodged by delegating.",
          "A refused call throws the refusal (the loop makes it an error result). The person's",
          'question names who asks ("bob: Allow bash …"). The hooks stay the lead\'s. A handler runs',
          "with the ctx it is given: a teammate's ctx.root is its lane (.worktrees/<name>).",
        ].join("\n"),
      },
      {
        name: "runCall",
        contract: [
          "One lead tool call, through every layer in order. First s07's gate (gate(), with the",
          "lead's TOOLS, all of them: the gate refuses a call that does not fit its tool's schema): a refusal is the call's result, an error, and nothing else runs — no hook,",
          "no tool. Then s08's runToolWithHooks wraps the handler (PreToolUse, the tool in",
          "env.workspace, PostToolUse); give it a regate so a call a hook rewrote meets the gate",
          "again. Return { output, isError }.",
        ].join("\n"),
      },
    ],
    checks: [
      gateBeforeHooks,
      hooksAroundTool,
      rewriteRegated,
      delegatesGated,
      everyLeadToolGated,
      teammateInLane,
    ],
  },
  {
    id: "a2.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      call: (reference) =>
        change(
          "  who: string,\n): Record<string, s02.ToolHandler> {",
          "  who: string,\n  hooks?: () => s08.HookRunner | undefined,\n): Record<string, s02.ToolHandler> {",
        )(
          change(
            "      if (refused) throw new Error(refused);\n      return handler(input, ctx);",
            HOOKED_GUARD,
          )(reference),
        ),
      agent: (reference) =>
        change(
          'guarded(env, perms, "subagent")',
          'guarded(env, perms, "subagent", () => session?.hooks)',
        )(
          change(
            "guarded(env, perms, member.name)",
            "guarded(env, perms, member.name, () => session?.hooks)",
          )(reference),
        ),
    },
    checks: [delegatedHooks, delegatesGated],
  },
];
