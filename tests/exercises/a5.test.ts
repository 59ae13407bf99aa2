// a5's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("a5", {
  a5: {
    "drops a response's tool calls": {
      history: swap('if (answer?.role === "assistant")', 'if (answer?.role === "user")'),
    },
    "drops the prompts": {
      history: swap(
        'if (step.kind === "user") messages.push({ role: "user", content: step.text });',
        'if (step.kind === "user") continue;',
      ),
    },
    "answers the finished calls too": {
      history: swap('if (step.kind === "tool_result") waiting.delete(step.id);', ""),
    },
    "answers an unfinished call as a success": {
      history: swap(
        "output: NOT_FINISHED,\n      is_error: true,",
        "output: NOT_FINISHED,\n      is_error: false,",
      ),
    },
  },
  "a5.1": {
    "continues the session that started first": {
      open: swap("a.at.localeCompare(b.at)", "b.at.localeCompare(a.at)"),
    },
    "opens a new session when there is none to continue": {
      open: swap(
        'if (!latest) throw new SessionError("there is no session to continue in this workspace");\n  return latest.id;',
        "return latest?.id as string;",
      ),
    },
  },
});
