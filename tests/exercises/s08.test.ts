// s08's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s08", {
  s08: {
    "lets a later PreToolUse hook with nothing to rewrite undo an earlier rewrite": {
      fire: swap(
        'if (reply.updatedInput && event === "PreToolUse") {',
        'if (event === "PreToolUse") {',
      ),
    },
    "stops the hooks after one whose stdout is not JSON": {
      fire: swap(
        "            env.io.note(`${label}: ${reply}`);\n            return false;",
        "            env.io.note(`${label}: ${reply}`);\n            return true;",
      ),
    },
    "lets a PostToolUse exit 1 stop the hooks after it": {
      fire: swap('run.exitCode === 1 && event === "PreToolUse"', "run.exitCode === 1"),
    },
    "adds an empty line for an exit 2 that said nothing": {
      fire: swap("if (stderr) outcome.context.push(stderr);", "outcome.context.push(stderr);"),
    },
    "runs a rewritten call without the gate": {
      "tool-with-hooks": swap(
        "if (regate && JSON.stringify(input) !== JSON.stringify(call.input)) {",
        "if (regate && false) {",
      ),
    },
    "asks the gate again about every call, changed or not": {
      "tool-with-hooks": swap(
        "if (regate && JSON.stringify(input) !== JSON.stringify(call.input)) {",
        "if (regate) {",
      ),
    },
    "asks the gate about the call as it was, not as rewritten": {
      "tool-with-hooks": swap(
        "const refused = await regate({ ...call, input });",
        "const refused = await regate(call);",
      ),
    },
    "blocks on exit 2 instead of adding its stderr": {
      fire: swap(
        "} else if (run.exitCode === 2) {\n          if (stderr) outcome.context.push(stderr);",
        "} else if (run.exitCode === 2) {\n          outcome.blocked = stderr;",
      ),
    },
    "blocks on any exit code but 0": {
      fire: swap(
        'run.exitCode === 1 && event === "PreToolUse"',
        'run.exitCode !== 0 && event === "PreToolUse"',
      ),
    },
    "lets a PostToolUse hook block a call that already ran": {
      fire: swap('run.exitCode === 1 && event === "PreToolUse"', "run.exitCode === 1"),
      "tool-with-hooks": swap(
        "  const notes = [...pre.context, ...post.context];",
        "  if (post.blocked !== undefined)\n    return { output: `Blocked by a PostToolUse hook: ${post.blocked}`, isError: true };\n  const notes = [...pre.context, ...post.context];",
      ),
    },
    "runs the tool before the PreToolUse hooks have their say": {
      "tool-with-hooks": swap(
        '  const pre = await hooks.fire("PreToolUse", { tool: call });',
        '  await runTool(handlers, call, ctx);\n  const pre = await hooks.fire("PreToolUse", { tool: call });',
      ),
    },
    "ignores updatedInput": {
      "tool-with-hooks": swap(
        "const input = pre.input ?? (call.input as Record<string, unknown>);",
        "const input = call.input as Record<string, unknown>;",
      ),
    },
    "keeps running the PreToolUse hooks after one blocked": {
      fire: swap(
        "if (heedExitCode(hook.command, run)) return outcome;",
        "heedExitCode(hook.command, run);",
      ),
    },
    "drops the PreToolUse context": {
      "tool-with-hooks": swap(
        "const notes = [...pre.context, ...post.context];",
        "const notes = [...post.context];",
      ),
    },
    "puts the PostToolUse context before the PreToolUse one": {
      "tool-with-hooks": swap(
        "const notes = [...pre.context, ...post.context];",
        "const notes = [...post.context, ...pre.context];",
      ),
    },
    "drops the PostToolUse context": {
      "tool-with-hooks": swap(
        "const notes = [...pre.context, ...post.context];",
        "const notes = [...pre.context];",
      ),
    },
  },
  "s08.1": {
    "refuses the prompt but keeps it all the same": {
      session: swap(
        "        env.io.note(`prompt refused by a UserPromptSubmit hook: ${submitted.blocked}`);\n        return;\n",
        "        env.io.note(`prompt refused by a UserPromptSubmit hook: ${submitted.blocked}`);\n",
      ),
    },
    "drops the hook's context": {
      session: swap("content: submitted.context.length", "content: false"),
    },
  },
});
