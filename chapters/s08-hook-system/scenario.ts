// The offline demo for s08, with the hooks of workspace/.hooks.json: a SessionStart hook tells the
// model about the workspace, a PostToolUse hook catches a syntax error right after a write, and a
// PreToolUse hook blocks `rm`, so the model moves the file to trash/ instead.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

export default {
  summary:
    "hooks from .hooks.json add session context, flag a syntax error after a write, and block an rm",
  prompts: ["Write sum.js that prints 2 + 3, run it, then get rid of scratch.txt."],
  script: {
    lead: [
      use(
        "write",
        { path: "sum.js", content: 'console.log("2 + 3 =", 2 + 3;\n' },
        "Writing sum.js.",
      ),
      use(
        "edit",
        { path: "sum.js", old_text: "2 + 3;", new_text: "2 + 3);" },
        "A hook checked the file and found a missing parenthesis. Fixing it.",
      ),
      use("bash", { command: "node sum.js" }),
      use("bash", { command: "rm scratch.txt" }, "Works. Now scratch.txt."),
      use(
        "bash",
        { command: "mkdir -p trash && mv scratch.txt trash/ && ls trash" },
        "A hook blocked rm and says to move files to trash/ instead. Doing that.",
      ),
      ({ results }) =>
        say(
          `Done: sum.js prints "${results()[2]}", and scratch.txt is in trash/ ` +
            "(this project's hook does not allow rm).",
        ),
    ],
  },
  answers: ["yes"], // trust this .hooks.json (remembered beside the workspace until it or its scripts change)
} satisfies Scenario;
