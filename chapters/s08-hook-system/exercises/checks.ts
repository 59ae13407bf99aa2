// s08's exercises: rebuild what a hook's exit code decides, and the call it wraps; extend the hooks
// (a UserPromptSubmit event). The behaviours are the curriculum's for s08, and
// tests/chapters/s08-hook-system.test.ts runs the same ones against the chapter's own code.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { say, use, useAll } from "../../_shared/scripted.ts";
import type { MessageParam, ScriptedTurn } from "../../_shared/types.ts";
import type * as S08 from "../agent.ts";
import { expectThat, type Check, type CheckKit, type Exercise } from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S08;

/** An env whose workspace has this .hooks.json, and the agent the module makes for it (the hooks
 *  trusted: trust is not what these checks are about). */
function hooked(module: M, kit: CheckKit, script: ScriptedTurn[], hooks: object) {
  const env = kit.env(script);
  writeFileSync(path.join(env.workspace, ".hooks.json"), JSON.stringify(hooks));
  return { env, agent: module.createAgent(env, { trusted: true }) };
}

/** Every tool_result of the conversation, in order, as its id and its text. */
const results = (messages: MessageParam[]) =>
  messages.flatMap((m) =>
    typeof m.content === "string"
      ? []
      : m.content.flatMap((b) =>
          b.type === "tool_result"
            ? [
                {
                  id: b.tool_use_id,
                  text: typeof b.content === "string" ? b.content : JSON.stringify(b.content),
                  isError: b.is_error === true,
                },
              ]
            : [],
        ),
  );
const callIds = (messages: MessageParam[]) =>
  messages.flatMap((m) =>
    m.role !== "assistant" || typeof m.content === "string"
      ? []
      : m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])),
  );
const shown = (text: string | undefined) => JSON.stringify(text ?? "no result");

export const preExit1Blocks: Check<M> = {
  id: "pre-exit-1-blocks",
  async run(module, kit) {
    const { env, agent } = hooked(
      module,
      kit,
      [use("bash", { command: "touch ran.txt" }), say("ok")],
      { PreToolUse: [{ matcher: "bash", command: "echo 'no touching today' >&2; exit 1" }] },
    );
    await agent.send("go");
    const [result] = results(agent.messages);
    expectThat(!existsSync(path.join(env.workspace, "ran.txt")), "blocked-call-ran", {});
    expectThat(result?.isError && result.text.includes("no touching today"), "block-unsaid", {
      got: shown(result?.text),
    });
  },
};

export const postExit2Appends: Check<M> = {
  id: "post-exit-2-appends",
  async run(module, kit) {
    const { env, agent } = hooked(
      module,
      kit,
      [
        useAll([
          { name: "bash", input: { command: "echo first" } },
          { name: "read", input: { path: "a.txt" } },
        ]),
        say("ok"),
      ],
      { PostToolUse: [{ matcher: "bash", command: "echo 'lint: 2 warnings' >&2; exit 2" }] },
    );
    writeFileSync(path.join(env.workspace, "a.txt"), "A");
    await agent.send("go");
    const got = results(agent.messages);
    const ids = callIds(agent.messages);
    expectThat(
      got.length === ids.length && got.every((r, i) => r.id === ids[i]),
      "results-per-call",
      { calls: ids.length, results: got.length },
    );
    expectThat(
      got[0]?.text.startsWith("first") && got[0].text.includes("lint: 2 warnings"),
      "stderr-not-appended",
      { got: shown(got[0]?.text) },
    );
    expectThat(got[1]?.text === "A", "other-result-changed", { got: shown(got[1]?.text) });
    await hookRule(module, kit);
  },
};

// ---- The exit-code contract, tried on generated hook sets (a property check) ----

type Exit = 0 | 1 | 2 | 3;
/** Zero to two hooks for each of PreToolUse and PostToolUse, each exiting 0 (with a note, or
 *  with nothing to say), 1, 2 or 3; each leaves a file behind, so the check sees which ran. */
const hookArb = fc.record({
  exit: fc.constantFrom<Exit>(0, 0, 1, 2, 2, 3),
  quiet: fc.constantFrom(false, false, true),
});
/** The PreToolUse hooks: some, then maybe one that blocks, then maybe more after it. */
const preArb = fc
  .tuple(fc.array(hookArb, { maxLength: 2 }), fc.boolean(), fc.array(hookArb, { maxLength: 1 }))
  .map(([before, blocks, after]) => [
    ...before,
    ...(blocks ? [{ exit: 1 as Exit, quiet: false }, ...after] : after),
  ]);
const hookSetArb = fc.record({ pre: preArb, post: fc.array(hookArb, { maxLength: 2 }) });

const hookCommand = (event: string, i: number, { exit, quiet }: { exit: Exit; quiet: boolean }) => {
  const name = `${event}-${i + 1}`;
  const out = exit === 0 && !quiet ? `printf '%s' '{"additionalContext": "${name} notes"}'; ` : "";
  // A quiet exit 2 says nothing on stderr: there is nothing to add to the result.
  const err = exit === 2 && quiet ? "" : `echo '${name} says ${exit}' >&2; `;
  return `touch .ran-${name}; ${out}${err}exit ${exit}`;
};

const quietly = (h: { exit: Exit; quiet: boolean }) =>
  h.exit === 0 && !h.quiet ? " with a note" : h.exit === 2 && h.quiet ? " with no stderr" : "";

async function hookRule(module: M, kit: CheckKit) {
  await forAll(
    hookSetArb,
    async ({ pre, post }) => {
      const { env, agent } = hooked(
        module,
        kit,
        [use("bash", { command: "echo ran > ran.txt; echo ran" }), say("ok")],
        {
          PreToolUse: pre.map((h, i) => ({ matcher: "bash", command: hookCommand("pre", i, h) })),
          PostToolUse: post.map((h, i) => ({ command: hookCommand("post", i, h) })),
        },
      );
      await agent.send("go");
      const [result] = results(agent.messages);
      const ran = (name: string) => existsSync(path.join(env.workspace, `.ran-${name}`));
      const story =
        [
          ...pre.map((h, i) => `pre-${i + 1} exits ${h.exit}${quietly(h)}`),
          ...post.map((h, i) => `post-${i + 1} exits ${h.exit}${quietly(h)}`),
        ].join(", ") || "no hooks";
      // The model: PreToolUse hooks in order until one exits 1; then nothing else runs.
      const blocker = pre.findIndex((h) => h.exit === 1);
      const preRan = blocker < 0 ? pre.length : blocker + 1;
      for (let i = 0; i < pre.length; i++)
        expectThat(ran(`pre-${i + 1}`) === i < preRan, "rule-hook-ran", {
          story,
          hook: `pre-${i + 1}`,
          expected: i < preRan ? "@hook-runs" : "@hook-skipped",
        });
      const note = (event: string, h: { exit: Exit; quiet: boolean }, i: number) =>
        h.exit === 0 && !h.quiet
          ? [`${event}-${i + 1} notes`]
          : h.exit === 2 && !h.quiet
            ? [`${event}-${i + 1} says 2`]
            : [];
      if (blocker >= 0) {
        expectThat(!existsSync(path.join(env.workspace, "ran.txt")), "rule-blocked-ran", { story });
        expectThat(
          result?.isError === true && result.text.includes(`pre-${blocker + 1} says 1`),
          "rule-block-unsaid",
          { story, got: shown(result?.text) },
        );
        post.forEach((_, i) =>
          expectThat(!ran(`post-${i + 1}`), "rule-hook-ran", {
            story,
            hook: `post-${i + 1}`,
            expected: "@hook-skipped",
          }),
        );
        return;
      }
      post.forEach((_, i) =>
        expectThat(ran(`post-${i + 1}`), "rule-hook-ran", {
          story,
          hook: `post-${i + 1}`,
          expected: "@hook-runs",
        }),
      );
      const notes = [
        ...pre.flatMap((h, i) => note("pre", h, i)),
        ...post.flatMap((h, i) => note("post", h, i)),
      ];
      const expected = notes.length
        ? `ran\n\n${notes.map((n) => `[hook] ${n}`).join("\n")}`
        : "ran";
      expectThat(result?.text === expected && !result.isError, "rule-result", {
        story,
        got: shown(result?.text),
        expected: shown(expected),
      });
    },
    { runs: 10 },
  );
}

export const exit0RewritesAndAdds: Check<M> = {
  id: "exit-0-rewrites-and-adds",
  async run(module, kit) {
    const { agent } = hooked(module, kit, [use("bash", { command: "echo original" }), say("ok")], {
      PreToolUse: [
        { matcher: "bash", command: `echo '{"updatedInput": {"command": "echo rewritten"}}'` },
      ],
      PostToolUse: [{ command: `echo '{"additionalContext": "remember to commit"}'` }],
    });
    await agent.send("go");
    const [result] = results(agent.messages);
    expectThat(result?.text.startsWith("rewritten"), "input-not-rewritten", {
      got: shown(result?.text),
    });
    expectThat(result.text.includes("remember to commit"), "context-not-added", {
      got: shown(result.text),
    });
    // A later PreToolUse hook with nothing to rewrite leaves the earlier rewrite standing.
    const later = hooked(module, kit, [use("bash", { command: "echo original" }), say("ok")], {
      PreToolUse: [
        { command: `echo '{"updatedInput": {"command": "echo rewritten"}}'` },
        { command: `echo '{"additionalContext": "looked at it"}'` },
      ],
    });
    await later.agent.send("go");
    const [again] = results(later.agent.messages);
    expectThat(again?.text.startsWith("rewritten"), "rewrite-undone", {
      got: shown(again?.text),
    });
    await regateRule(module, kit);
  },
};

/** A call a hook rewrote is a new call: with a gate (regate) given, it must pass the gate again
 *  before it runs, and the gate's refusal is its result; a call the hooks left as it was is not
 *  asked about again. Tried with hooks that rewrite the input, leave it, or hand back an equal
 *  copy, and a gate that allows or refuses. */
async function regateRule(module: M, kit: CheckKit) {
  const caseArb = fc.record({
    hook: fc.constantFrom("rewrites", "leaves", "copies"),
    gate: fc.constantFrom("none", "allows", "refuses"),
  });
  await forAll(
    caseArb,
    async ({ hook, gate }) => {
      const env = kit.env([]);
      const original = { command: "echo original" };
      const call = {
        type: "tool_use",
        id: "call_regate",
        name: "bash",
        input: { ...original },
      } as Parameters<M["runToolWithHooks"]>[2];
      const hooks: S08.HookRunner = {
        fire: async (event) =>
          event === "PreToolUse" && hook !== "leaves"
            ? {
                input: hook === "rewrites" ? { command: "echo rewritten" } : { ...original },
                context: [],
              }
            : { context: [] },
      };
      const ran: string[] = [];
      const handlers = {
        bash: async (input: Record<string, unknown>) => (ran.push(String(input.command)), "done"),
      };
      const asked: unknown[] = [];
      const regate =
        gate === "none"
          ? undefined
          : async (rewritten: { input: unknown }) => {
              asked.push(rewritten.input);
              return gate === "refuses" ? "the gate says no to the rewritten command" : null;
            };
      const result = await module.runToolWithHooks(
        env,
        hooks,
        call,
        handlers as never,
        { root: env.workspace, sandbox: env.sandbox },
        regate as never,
      );
      const story = `@regate-story|${hook}, ${gate}`;
      const changed = hook === "rewrites";
      const command = changed ? "echo rewritten" : "echo original";
      if (gate === "none" || !changed) {
        expectThat(asked.length === 0, "regate-unchanged", { story, asked: asked.length });
        expectThat(ran.join() === command && !result.isError, "regate-not-run", {
          story,
          ran: ran.join(", ") || "nothing",
          command,
        });
        return;
      }
      expectThat(
        asked.length === 1 && JSON.stringify(asked[0]) === JSON.stringify({ command }),
        "regate-skipped",
        { story, asked: asked.map((a) => JSON.stringify(a)).join(", ") || "nothing" },
      );
      if (gate === "refuses")
        expectThat(
          ran.length === 0 &&
            result.isError &&
            result.output.includes("the gate says no to the rewritten command"),
          "regate-refusal-lost",
          { story, ran: ran.join(", ") || "nothing", got: shown(result.output) },
        );
      else
        expectThat(ran.join() === command && !result.isError, "regate-not-run", {
          story,
          ran: ran.join(", ") || "nothing",
          command,
        });
    },
    { runs: 12 },
  );
}

export const otherExitIgnored: Check<M> = {
  id: "other-exit-ignored",
  async run(module, kit) {
    const { env, agent } = hooked(
      module,
      kit,
      [use("bash", { command: "echo still runs > ran.txt; echo ran" }), say("ok")],
      {
        PreToolUse: [{ command: "echo 'crashed' >&2; exit 3" }],
        PostToolUse: [{ command: "echo 'too late to block' >&2; exit 1" }],
      },
    );
    await agent.send("go");
    const [result] = results(agent.messages);
    expectThat(existsSync(path.join(env.workspace, "ran.txt")), "ignored-hook-blocked", {
      got: shown(result?.text),
    });
    expectThat(result?.text === "ran" && !result.isError, "ignored-hook-heard", {
      got: shown(result?.text),
    });
    // An ignored hook stops nothing: the hooks after it run and are heard.
    const after = hooked(module, kit, [use("bash", { command: "echo ran" }), say("ok")], {
      PreToolUse: [
        { command: "echo 'this is not json'" },
        { command: `echo '{"additionalContext": "pre still heard"}'` },
      ],
      PostToolUse: [
        { command: "echo 'too late to block' >&2; exit 1" },
        { command: `echo '{"additionalContext": "post still heard"}'` },
      ],
    });
    await after.agent.send("go");
    const [heard] = results(after.agent.messages);
    const expected = "ran\n\n[hook] pre still heard\n[hook] post still heard";
    expectThat(heard?.text === expected && !heard.isError, "later-hooks-unheard", {
      got: shown(heard?.text),
      expected: shown(expected),
    });
  },
};

export const matcherOnlyItsTool: Check<M> = {
  id: "matcher-only-its-tool",
  async run(module, kit) {
    const { env, agent } = hooked(
      module,
      kit,
      [
        use("bash", { command: "echo hi" }),
        use("write", { path: "b.txt", content: "b" }),
        say("ok"),
      ],
      { PreToolUse: [{ matcher: "write", command: "echo 'no writes' >&2; exit 1" }] },
    );
    await agent.send("go");
    const [bash, write] = results(agent.messages);
    expectThat(bash?.text === "hi", "matcher-too-wide", { got: shown(bash?.text) });
    expectThat(write?.isError && !existsSync(path.join(env.workspace, "b.txt")), "matcher-missed", {
      got: shown(write?.text),
    });
  },
};

/** A UserPromptSubmit hook: refuses a prompt that mentions "deploy", adds context to any other. */
const PROMPT_HOOK = `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const e=JSON.parse(s);if(/deploy/.test(e.prompt)){console.error("no deploys on Fridays");process.exit(1)}console.log(JSON.stringify({additionalContext:"the tests run with npm test"}))})'`;

export const promptHookRefuses: Check<M> = {
  id: "prompt-hook-refuses",
  async run(module, kit) {
    const { env, agent } = hooked(module, kit, [say("ok"), say("deployed")], {
      UserPromptSubmit: [{ command: PROMPT_HOOK }],
    });
    await agent.send("fix the bug");
    const before = JSON.stringify(agent.messages);
    expectThat(agent.messages.length === 2, "prompt-not-kept", {
      messages: agent.messages.length,
    });
    await agent.send("deploy it");
    expectThat(JSON.stringify(agent.messages) === before, "refused-prompt-kept", {
      messages: agent.messages.length,
    });
    expectThat(env.requests.length === 1, "refused-prompt-sent", {
      calls: env.requests.length,
    });
  },
};

export const promptHookAddsContext: Check<M> = {
  id: "prompt-hook-adds-context",
  async run(module, kit) {
    const { env, agent } = hooked(module, kit, [say("ok")], {
      UserPromptSubmit: [{ command: PROMPT_HOOK }],
    });
    await agent.send("fix the bug");
    const sent = JSON.stringify(env.requests[0]?.body.messages ?? []);
    expectThat(sent.includes("fix the bug"), "prompt-lost", {});
    expectThat(sent.includes("the tests run with npm test"), "prompt-context-missing", {});
  },
};

/** s08.1's answer: a UserPromptSubmit event, fired in send() before the prompt joins the history. */
const promptEventSolution = {
  config: (reference: string) =>
    reference.replace(
      'export const EVENTS = ["SessionStart", "PreToolUse", "PostToolUse"] as const;',
      'export const EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"] as const;',
    ),
  fire: (reference: string) =>
    reference
      .replace(
        "    payload: { tool?: ToolUseBlock; result?: { output: string; isError: boolean } },",
        "    payload: {\n      tool?: ToolUseBlock;\n      result?: { output: string; isError: boolean };\n      prompt?: string;\n    },",
      )
      .replace(
        "async fire(event, { tool, result }) {",
        "async fire(event, { tool, result, prompt }) {",
      )
      .replace(
        "          ...(result && { tool_result: result.output, is_error: result.isError }),\n        };",
        "          ...(result && { tool_result: result.output, is_error: result.isError }),\n          ...(prompt !== undefined && { prompt }),\n        };",
      )
      .replace(
        '} else if (run.exitCode === 1 && event === "PreToolUse") {\n          outcome.blocked = stderr || "(no reason given)";\n          env.io.note(`${label} exited 1: ${tool!.name} is blocked`);',
        '} else if (run.exitCode === 1 && (event === "PreToolUse" || event === "UserPromptSubmit")) {\n          outcome.blocked = stderr || "(no reason given)";\n          env.io.note(`${label} exited 1: ${tool ? tool.name : "the prompt"} is blocked`);',
      ),
  session: (reference: string) =>
    reference.replace(
      '      messages.push({ role: "user", content: prompt });\n',
      `      const submitted = await hooks.fire("UserPromptSubmit", { prompt });
      if (submitted.blocked !== undefined) {
        env.io.note(\`prompt refused by a UserPromptSubmit hook: \${submitted.blocked}\`);
        return;
      }
      messages.push({
        role: "user",
        content: submitted.context.length
          ? \`\${prompt}\\n\\n\${submitted.context.map((c) => \`[hook] \${c}\`).join("\\n")}\`
          : prompt,
      });
`,
    ),
};

export const exercises: Exercise<M>[] = [
  {
    id: "s08",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "heedExitCode",
        contract: [
          "Called once per hook that ran, with its command and run ({ exitCode, stdout, stderr, timedOut }).",
          "Records in `outcome` what the exit code means, with an env.io.note for the person:",
          "timed out: ignored. 0: parseReply(run.stdout) may give updatedInput (PreToolUse only:",
          "outcome.input) and additionalContext (push to outcome.context). 1 in PreToolUse: set",
          "outcome.blocked to the stderr (the reason) and return true. 2: push the stderr to",
          "outcome.context. Anything else: ignored. Return false unless the call is blocked.",
        ].join("\n"),
      },
      {
        name: "runToolWithHooks",
        contract: [
          'Fire "PreToolUse" for the call; if it is blocked, the tool does NOT run: return an error',
          'result "Blocked by a PreToolUse hook: <reason>". Otherwise run the call with the input',
          "the hooks left (pre.input; if it changed and regate is given, a refusal from regate is the",
          'result), using runTool(handlers, call, ctx); then fire "PostToolUse" with that result.',
          "Return ONE result: the hooks' context (pre's, then post's) appended to its output as",
          'lines "[hook] <text>", after a blank line.',
        ].join("\n"),
      },
    ],
    checks: [
      preExit1Blocks,
      postExit2Appends,
      exit0RewritesAndAdds,
      otherExitIgnored,
      matcherOnlyItsTool,
    ],
  },
  {
    id: "s08.1",
    kind: "extend",
    file: "agent.ts",
    solution: promptEventSolution,
    checks: [promptHookRefuses, promptHookAddsContext, preExit1Blocks],
  },
];
