// s05's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s05", {
  s05: {
    "keeps only the last two": {
      micro: swap("results.length - KEEP_RECENT", "results.length - KEEP_RECENT + 1"),
    },
    "clears read results too": { micro: swap('tool === "read" ||', "") },
    "clears a result of exactly 100 characters": {
      micro: swap(
        "result.content.length <= MIN_CLEAR_CHARS",
        "result.content.length < MIN_CLEAR_CHARS",
      ),
    },
    "clears copies, not the stored history": {
      micro: swap(
        "results.slice(0, Math.max(0, results.length - KEEP_RECENT))",
        "results.slice(0, Math.max(0, results.length - KEEP_RECENT)).map((r) => ({ ...r }))",
      ),
    },
    "looks only at the first result of each message (one call per round)": {
      micro: swap(
        'if (block.type === "tool_result") results.push(block);',
        'if (block.type === "tool_result") {\n        results.push(block);\n        break;\n      }',
      ),
    },
    "counts the recent ones from the start": {
      micro: swap(
        "results.slice(0, Math.max(0, results.length - KEEP_RECENT))",
        "results.slice(KEEP_RECENT)",
      ),
    },
  },
  "s05.1": {
    "reads the reply's output tokens": {
      loop: swap(
        "realTokens = response.usage?.input_tokens;",
        "realTokens = response.usage?.output_tokens;",
      ),
    },
    "takes the larger of the count and the estimate": {
      loop: swap(
        "const tokens = realTokens ?? estimateTokens(messages);",
        "const tokens = Math.max(realTokens ?? 0, estimateTokens(messages));",
      ),
    },
  },
  "s05.2": {
    "summarises a copy: the history stays as it was": {
      agent: swap(
        "await compactHistory(env, messages,",
        "await compactHistory(env, [...messages],",
      ),
    },
  },
});
