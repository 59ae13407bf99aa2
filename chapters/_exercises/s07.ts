// s07's exercises: rebuild the gate (the order of its steps); extend it (allow a chain of
// commands part by part). The behaviours are the curriculum's for s07, and
// tests/chapters/s07-permission-system.test.ts runs the same ones against the chapter's own code.
import type { ToolUseBlock } from "../_shared/types.ts";
import type * as S07 from "../s07-permission-system/agent.ts";
import { expectThat, type Check, type CheckEnv, type CheckKit, type Exercise } from "./kit.ts";

type M = typeof S07;
type Perms = S07.Permissions;

let ids = 0;
const call = (name: string, input: Record<string, unknown>) =>
  ({ type: "tool_use", id: `call_${++ids}`, name, input }) as ToolUseBlock;
const bash = (command: string) => call("bash", { command });

/** An env whose questions are answered from `answers` (then "no"), and the questions it asked. */
function gateEnv(
  kit: CheckKit,
  answers: string[] = [],
): { env: CheckEnv; asked: string[]; count: () => number } {
  const env = kit.env([], { answers });
  const asked: string[] = [];
  const ask = env.ask.bind(env);
  env.ask = async (question, choices) => {
    asked.push(question);
    return ask(question, choices);
  };
  return { env, asked, count: () => asked.length };
}

const perms = (mode: Perms["mode"], allow: Perms["allow"] = [], deny: Perms["deny"] = []) => ({
  mode,
  allow,
  deny,
});

/** The gate's decision, as a message of the words file ("@…": said in the learner's language). */
const verdict = (refusal: string | null) =>
  refusal === null ? "@verdict-allowed" : `@verdict-refused|${refusal}`;

export const planRefusesChanges: Check<M> = {
  id: "plan-refuses-changes",
  async run(module, kit) {
    const { env, asked, count } = gateEnv(kit, ["yes", "yes", "yes"]);
    const policy = perms("plan", [{ tool: "bash" }, { tool: "write" }]);
    for (const changing of [
      call("write", { path: "new.txt", content: "x" }),
      call("edit", { path: "keep.txt", old_text: "a", new_text: "b" }),
      bash("touch ran.txt"),
    ]) {
      const refusal = await module.checkPermission(env, policy, changing);
      expectThat(refusal !== null && /plan mode/.test(refusal), "plan-let-through", {
        tool: changing.name,
        got: verdict(refusal),
      });
    }
    const look = await module.checkPermission(env, policy, call("read", { path: "keep.txt" }));
    expectThat(look === null, "plan-refused-look", { got: verdict(look) });
    expectThat(count() === 0, "plan-asked", { question: asked[0] ?? "" });
  },
};

export const denyBeatsAllow: Check<M> = {
  id: "deny-beats-allow",
  async run(module, kit) {
    for (const mode of ["default", "auto"] as const) {
      const { env, asked, count } = gateEnv(kit, ["yes", "yes"]);
      const policy = perms(mode, [{ tool: "bash" }], [{ tool: "bash", pattern: "touch *" }]);
      const denied = await module.checkPermission(env, policy, bash("touch denied.txt"));
      expectThat(denied !== null && /denied by the rule/.test(denied), "deny-lost", {
        mode,
        got: verdict(denied),
      });
      const allowed = await module.checkPermission(env, policy, bash("echo allowed"));
      expectThat(allowed === null, "allow-lost", { mode, got: verdict(allowed) });
      expectThat(count() === 0, "asked-despite-rules", { mode, question: asked[0] ?? "" });
    }
  },
};

export const refusedInEveryMode: Check<M> = {
  id: "refused-in-every-mode",
  async run(module, kit) {
    const { env, asked, count } = gateEnv(kit, ["yes", "yes", "yes"]);
    const policy = perms("auto", [{ tool: "*" }]);
    for (const command of ["sudo touch pwned.txt", "rm -rf ~/"]) {
      const refusal = await module.checkPermission(env, policy, bash(command));
      expectThat(refusal !== null && /dangerous/.test(refusal), "dangerous-let-through", {
        command,
        got: verdict(refusal),
      });
    }
    const broken = await module.checkPermission(env, policy, call("write", { path: ["a", "b"] }));
    expectThat(broken !== null, "malformed-let-through", {});
    const fine = await module.checkPermission(env, policy, bash("touch ok.txt"));
    expectThat(fine === null, "auto-refused", { got: verdict(fine) });
    expectThat(count() === 0, "asked-in-auto", { question: asked[0] ?? "" });
  },
};

export const askLast: Check<M> = {
  id: "ask-last",
  async run(module, kit) {
    const { env, asked, count } = gateEnv(kit, ["no", "yes"]);
    const policy = perms("default", [{ tool: "bash", pattern: "npm test*" }]);
    const ruled = await module.checkPermission(env, policy, bash("npm test"));
    expectThat(ruled === null && count() === 0, "allow-rule-ignored", {
      got: verdict(ruled),
      asked: count(),
    });
    const no = await module.checkPermission(env, policy, bash("echo hi"));
    expectThat(count() === 1, "did-not-ask", { command: "echo hi", asked: count() });
    expectThat(/echo hi/.test(asked[0] ?? ""), "question-hides-subject", { question: asked[0] });
    expectThat(no !== null, "no-allowed", { got: verdict(no) });
    const yes = await module.checkPermission(env, policy, bash("echo hi"));
    expectThat(yes === null, "yes-refused", { got: verdict(yes) });
    expectThat(policy.allow.length === 1, "yes-remembered", { rules: policy.allow.length });
  },
};

export const alwaysAddsRule: Check<M> = {
  id: "always-adds-rule",
  async run(module, kit) {
    const { env, count } = gateEnv(kit, ["always"]);
    const policy = perms("default");
    const first = await module.checkPermission(env, policy, bash("echo first"));
    expectThat(first === null, "always-refused", { got: verdict(first) });
    const rule = policy.allow.map(module.describeRule).join(", ");
    expectThat(rule === "bash echo first", "always-rule", { rules: rule || "none" });
    const again = await module.checkPermission(env, policy, bash("echo first"));
    expectThat(again === null && count() === 1, "always-asked-again", {
      asked: count(),
    });
    const other = await module.checkPermission(env, policy, bash("echo first; touch pwned"));
    expectThat(other !== null && count() === 2, "always-too-wide", { got: verdict(other) });
  },
};

export const chainPartsAllowed: Check<M> = {
  id: "chain-parts-allowed",
  async run(module, kit) {
    const { env, count } = gateEnv(kit);
    const policy = perms("default", [
      { tool: "bash", pattern: "npm test*" },
      { tool: "bash", pattern: "npm run lint*" },
    ]);
    for (const command of [
      "npm test && npm run lint",
      "npm test -- --watch=false || npm run lint",
    ]) {
      const refusal = await module.checkPermission(env, policy, bash(command));
      expectThat(refusal === null && count() === 0, "chain-asked", {
        command,
        got: count() ? "a question" : verdict(refusal),
      });
    }
  },
};

export const chainOtherPartAsked: Check<M> = {
  id: "chain-other-part-asked",
  async run(module, kit) {
    const policy = perms("default", [
      { tool: "bash", pattern: "npm test*" },
      { tool: "bash", pattern: "npm run lint*" },
    ]);
    for (const command of [
      "npm test && rm -rf build",
      "npm test; npm run lint",
      "npm test | tee out && npm run lint",
      'npm test "x && npm run lint"',
      "npm test && npm run lint > out",
    ]) {
      const { env, count } = gateEnv(kit);
      const refusal = await module.checkPermission(env, policy, bash(command));
      expectThat(count() === 1 && refusal !== null, "chain-not-asked", {
        command,
        got: count() ? verdict(refusal) : "ran without a question",
      });
    }
  },
};

/** s07.2's answer: step 4 of the gate also allows a chain whose every part an allow rule allows. */
const chainSolution = (reference: string) =>
  reference
    .replace(
      "\n/** The gate. Returns",
      `
/** A command chained with && or || whose every part an allow rule allows. A part with any other
 *  operator, or a quote (a quoted && is not a chain), is not split: the whole command is asked. */
function chainAllowed(rules: Rule[], tool: string, command: string): boolean {
  if (/["']/.test(command)) return false;
  const parts = command.split(/&&|\\|\\|/).map((part) => part.trim());
  if (parts.length < 2 || parts.some((part) => part === "" || SHELL_OPERATORS.test(part)))
    return false;
  return parts.every((part) => rules.some((rule) => matches(rule, tool, part, "allow")));
}

/** The gate. Returns`,
    )
    .replace(
      '  if (perms.allow.some((rule) => matches(rule, call.name, subject, "allow"))) return null;',
      `  if (perms.allow.some((rule) => matches(rule, call.name, subject, "allow"))) return null;
  if (runsCommand(call.name) && chainAllowed(perms.allow, call.name, subject!)) return null;`,
    );

export const exercises: Exercise<M>[] = [
  {
    id: "s07",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "checkPermission",
        contract: [
          "Receives one tool call and the session's policy; returns why it is refused, or null to run it.",
          "The first step that decides, decides, in this order: malformedCall (input must fit its tool),",
          "dangerousCommand for a command (refused in every mode), deny rules, the mode (auto allows,",
          "READ_ONLY tools pass, plan refuses the rest), allow rules, and last env.ask the person about",
          'subjectOf(call) ("yes", "no", "always"; always pushes ruleFor(...) to perms.allow).',
          'Use matches(rule, call.name, subject, "deny" | "allow"). Deny beats allow.',
        ].join("\n"),
      },
    ],
    checks: [planRefusesChanges, denyBeatsAllow, refusedInEveryMode, askLast, alwaysAddsRule],
  },
  {
    id: "s07.2",
    kind: "extend",
    file: "agent.ts",
    solution: { gate: chainSolution },
    checks: [chainPartsAllowed, chainOtherPartAsked, denyBeatsAllow, askLast],
  },
];
