// a2's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { findExercise } from "../../chapters/_exercises/catalog.ts";
import { applySolution, regionText, replaceRegions } from "../../chapters/_exercises/workbench.ts";
import { both, checkCopy, exerciseSuite, swap, type Mutant } from "../support/exercises.ts";

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
        "  if (call) return { output: await handlers[call.name](call.input as Record<string, unknown>, { root: env.workspace, sandbox: env.sandbox }), isError: false };\n  return s08.runToolWithHooks(",
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

// What a failed a2 check says is what was observed (issue 31: "should have been refused with
// Permission denied; its result was: Permission denied …" contradicted itself, and "gate against
// all its 26 tools" was said for faults that were not about the tool list).
describe("a2's failures say what was actually wrong", () => {
  const exercise = findExercise("a2")!;
  const chapter = findChapter("a2")!;
  /** The keys of the failed checks among `only`, by check id, for the reference with `mutant`
   *  applied. */
  async function failures(
    mutant: Mutant,
    only: string[],
    signal?: AbortSignal,
  ): Promise<Record<string, string>> {
    const checks = exercise.checks.filter((c) => only.includes(c.id));
    const results = await checkCopy(
      exercise,
      (file) => {
        applySolution(exercise, chapter, file);
        const answer = readFileSync(file, "utf8");
        writeFileSync(
          file,
          replaceRegions(
            answer,
            Object.fromEntries(
              Object.entries(mutant).map(([region, mutate]) => [
                region,
                mutate(regionText(answer, region)),
              ]),
            ),
          ),
        );
      },
      { only, signal },
    );
    return Object.fromEntries(
      results.flatMap((r, i) =>
        "failure" in r ? [[checks[i].id, r.failure.key]] : r.ok ? [] : [[checks[i].id, "other"]],
      ),
    );
  }

  it("a lead refusal returned as a success is named as such, not as a call the gate let through", async ({
    signal,
  }) => {
    const got = await failures(
      {
        call: swap(
          "if (refused) return { output: refused, isError: true };",
          "if (refused) return { output: refused, isError: false };",
        ),
      },
      ["gate-before-hooks"],
      signal,
    );
    expect(got["gate-before-hooks"]).toBe("refusal-not-error");
  });

  it("a delegate's refusal returned as its output is named as such", async ({ signal }) => {
    const got = await failures(
      {
        call: swap("if (refused) throw new Error(refused);", "if (refused) return refused;"),
      },
      ["delegates-gated"],
      signal,
    );
    expect(got["delegates-gated"]).toBe("refusal-returned");
  });

  it("the tool count is named only when the call's tool is one the base list lacks", async ({
    signal,
  }) => {
    // The base tools left out of the list the gate is given: a base tool's call gets through.
    const base = await failures(
      {
        call: both(
          swap(
            "await gate(env, perms, call, TOOLS);",
            "await gate(env, perms, call, TOOLS.filter((t) => !s02.BASE_TOOLS.includes(t)));",
          ),
          swap(
            "gate(env, perms, rewritten, TOOLS)",
            "gate(env, perms, rewritten, TOOLS.filter((t) => !s02.BASE_TOOLS.includes(t)))",
          ),
        ),
      },
      ["every-lead-tool-gated"],
      signal,
    );
    expect(base["every-lead-tool-gated"]).toBe("malformed-allowed-base");
    const five = await failures(
      {
        call: both(
          swap(
            "await gate(env, perms, call, TOOLS);",
            "await gate(env, perms, call, s02.BASE_TOOLS);",
          ),
          swap("gate(env, perms, rewritten, TOOLS)", "gate(env, perms, rewritten, s02.BASE_TOOLS)"),
        ),
      },
      ["every-lead-tool-gated"],
      signal,
    );
    expect(five["every-lead-tool-gated"]).toBe("malformed-allowed");
    const none = await failures(
      {
        call: swap(
          "  const refused = await gate(env, perms, call, TOOLS);\n  if (refused) return { output: refused, isError: true };\n",
          "",
        ),
      },
      ["every-lead-tool-gated", "gate-before-hooks"],
      signal,
    );
    expect(none["every-lead-tool-gated"]).toBe("malformed-not-gated");
    expect(none["gate-before-hooks"]).toBe("not-denied");
  });
});
