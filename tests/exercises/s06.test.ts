// s06's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { both, exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s06", {
  s06: {
    "treats the round's words as a call too": {
      subagent: swap('      if (block.type !== "tool_use") continue;\n', ""),
    },
    "returns the child's whole conversation": {
      subagent: swap(
        'return lastText || "(the subagent finished without a summary)";',
        "return JSON.stringify(messages);",
      ),
    },
    "returns the child's first text, not its last": {
      subagent: swap(
        "lastText = textOf(response.content) || lastText;",
        "lastText = lastText || textOf(response.content);",
      ),
    },
    "gives the child the lead's tools, task included": {
      subagent: swap("      tools: CHILD_TOOLS,\n", "      tools: TOOLS,\n"),
    },
    "stops the child one round early": {
      subagent: swap("round <= MAX_CHILD_ROUNDS", "round < MAX_CHILD_ROUNDS"),
    },
    "never sends the child its own results": {
      subagent: swap(
        '    messages.push({ role: "user", content: results });\n  }\n  env.io.note',
        "  }\n  env.io.note",
      ),
    },
    "answers only the last call of a child's round": {
      subagent: swap(
        "for (const block of response.content) {",
        'for (const block of response.content.filter((b) => b.type === "tool_use").slice(-1)) {',
      ),
    },
    "keeps one conversation for every child": {
      subagent: both(
        swap(
          'const CHILD = "subagent";',
          'const CHILD = "subagent";\nconst CHILD_HISTORY: MessageParam[] = [];',
        ),
        swap(
          'const messages: MessageParam[] = [{ role: "user", content: prompt }];',
          'const messages = CHILD_HISTORY;\n  messages.push({ role: "user", content: prompt });',
        ),
      ),
    },
    "gives the child the lead's system prompt": {
      subagent: swap("      system: CHILD_SYSTEM,", "      system: SYSTEM,"),
    },
  },
  "s06.1": {
    "picks the tools from the lead's list, so task gets in": {
      dispatch: swap(
        "? CHILD_TOOLS.filter((t) => tools.includes(t.name))",
        "? TOOLS.filter((t) => tools.includes(t.name))",
      ),
    },
    "offers the chosen tools but keeps every handler, so a call to another still runs": {
      dispatch: swap(
        "      return runSubagent(env, prompt, root, handlers, chosen);",
        "      return runSubagent(env, prompt, root, childHandlers, chosen);",
      ),
      subagent: swap(
        "runTool(handlers, block, ctx, tools)",
        "runTool(handlers, block, ctx, CHILD_TOOLS)",
      ),
    },
  },
});
