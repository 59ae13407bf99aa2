// s01's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s01", {
  s01: {
    "answers only the first of two tool calls": {
      loop: swap("      results.push({", "      if (results.length === 0) results.push({"),
    },
    "sends each result in a user message of its own": {
      loop: swap(
        '      results.push({\n        type: "tool_result",',
        '      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: block.id, content: output }] });\n      results.push({\n        type: "tool_result",',
      ),
    },
    "forgets to send the results back": {
      loop: swap('    messages.push({ role: "user", content: results });', "    void results;"),
    },
    "stops after two tool rounds (a for loop of 2)": {
      loop: swap("  for (;;) {\n", "  for (let round = 0; round < 2; round++) {\n"),
    },
    "stops only on end_turn": {
      loop: swap(
        'if (response.stop_reason !== "tool_use") return;',
        'if (response.stop_reason === "end_turn") return;',
      ),
    },
    "throws on an unknown tool instead of answering it": {
      loop: swap(
        '? { output: `Error: unknown tool "${block.name}"; the only tool is bash`, isError: true }',
        "? (() => {\n              throw new Error(`unknown tool ${block.name}`);\n            })()",
      ),
    },
    "answers an unknown tool as a success": {
      loop: swap(
        "the only tool is bash`, isError: true }",
        "the only tool is bash`, isError: false }",
      ),
    },
    "goes on after the model has answered": {
      loop: swap(
        'if (response.stop_reason !== "tool_use") return;',
        'if (response.stop_reason !== "tool_use" && messages.length > 4) return;',
      ),
    },
  },
  "s01.1": {
    "returns the time as a number, not a date": {
      loop: swap("new Date().toISOString()", "String(Date.now())"),
    },
  },
  "s01.2": {
    "stops one round early": { loop: swap("round > MAX_ROUNDS", "round >= MAX_ROUNDS") },
    "stops without a word": {
      loop: swap("env.io.note(`stopped after ${MAX_ROUNDS} rounds: the turn ends here`);", ""),
    },
  },
});
