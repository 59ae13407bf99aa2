// a2's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { both, exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("a2", {
  a2: {
    "the lead's calls skip the gate": {
      call: swap(
        "  const refused = await gate(env, perms, call, TOOLS);\n  if (refused) return { output: refused, isError: true };\n",
        "",
      ),
    },
    "the hooks run before the gate": {
      call: swap(
        "  const refused = await gate(env, perms, call, TOOLS);\n  if (refused) return { output: refused, isError: true };\n  return s08.runToolWithHooks(\n    env,\n    session.hooks,\n    call,\n    handlers,",
        "  return s08.runToolWithHooks(\n    env,\n    session.hooks,\n    call,\n    {\n      ...handlers,\n      [call.name]: async (input, ctx) => {\n        const refused = await gate(env, perms, call, TOOLS);\n        if (refused) throw new Error(refused);\n        return handlers[call.name](input, ctx);\n      },\n    },",
      ),
    },
    "the tool is called directly, without the hooks": {
      call: swap(
        "  return s08.runToolWithHooks(",
        "  if (call) return { output: await handlers[call.name](call.input as Record<string, unknown>, { root: env.workspace }), isError: false };\n  return s08.runToolWithHooks(",
      ),
    },
    "a call a hook rewrote is not gated again": {
      call: swap("(rewritten) => gate(env, perms, rewritten, TOOLS),", "async () => null,"),
    },
    "delegated base tools are not gated": {
      call: swap(
        "  return Object.fromEntries(Object.entries(s02.BASE_HANDLERS).map(([n, h]) => [n, guard(n, h)]));",
        "  return { ...s02.BASE_HANDLERS, ...(guard ? {} : {}) };",
      ),
    },
    "a teammate's tools run in the main workspace instead of its lane": {
      call: swap(
        "      return handler(input, ctx);",
        "      return handler(input, { ...ctx, root: env.workspace });",
      ),
    },
    "the lead is gated against the 5 base tools instead of its own": {
      call: both(
        swap(
          "  const refused = await gate(env, perms, call, TOOLS);",
          "  const refused = await gate(env, perms, call, s02.BASE_TOOLS);",
        ),
        swap(
          "(rewritten) => gate(env, perms, rewritten, TOOLS),",
          "(rewritten) => gate(env, perms, rewritten, s02.BASE_TOOLS),",
        ),
      ),
    },
    "the question does not say who asks": {
      call: swap(
        "await gate(asker, perms, call, s02.BASE_TOOLS, who)",
        "await gate(env, perms, call, s02.BASE_TOOLS, who)",
      ),
    },
  },
  "a2.1": {
    "the teammates get the hooks but the subagent does not": {
      agent: swap(
        'guarded(env, perms, "subagent", () => session?.hooks)',
        'guarded(env, perms, "subagent")',
      ),
    },
    "a hook's block is returned as a success, so the tool's refusal reads as output": {
      call: swap("if (out.isError) throw new Error(out.output);", ""),
    },
  },
});
