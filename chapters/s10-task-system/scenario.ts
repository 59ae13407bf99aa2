// The offline demo for s10: two tasks with a dependency; the second cannot start until the first
// is completed, and completing the first unblocks it. Ids are read from the real tool results, so
// a second run on the same workspace (no --reset) simply continues the numbering.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario, TurnContext } from "../_shared/types.ts";

/** The id of the task that was created with this subject, read from its task_create result. */
const idOf =
  (subject: string) =>
  ({ results }: TurnContext): number => {
    const created = results().filter((r) => r.startsWith("Created task #") && r.includes(subject));
    return Number(/#(\d+)/.exec(created.at(-1) ?? "")?.[1]);
  };
const MODULE = "Write src/greet.js";
const TEST = "Test src/greet.js";

export default {
  summary:
    "the model plans two dependent tasks on the board, is refused an early start, and completing the first unblocks the second",
  prompts: ["Build a small greet() module and a test for it. Track the work on the task board."],
  script: {
    lead: [
      use("task_list", {}, "Let me look at the task board first."),
      use(
        "task_create",
        { subject: MODULE, description: "export greet(name) returning 'Hello, <name>!'" },
        "Two steps, and the test depends on the module. Creating them:",
      ),
      (ctx) =>
        use("task_create", {
          subject: TEST,
          description: "a node script that checks greet('workshop')",
          blockedBy: [idOf(MODULE)(ctx)],
        }),
      (ctx) =>
        use(
          "task_update",
          { id: idOf(TEST)(ctx), status: "in_progress" },
          "Could I start on the test right away?",
        ),
      (ctx) =>
        use(
          "task_update",
          { id: idOf(MODULE)(ctx), status: "in_progress", owner: "lead" },
          "No — the board says the test waits for the module. Starting the module.",
        ),
      use("write", {
        path: "src/greet.js",
        content: "export const greet = (name) => `Hello, ${name}!`;\n",
      }),
      (ctx) => use("task_update", { id: idOf(MODULE)(ctx), status: "completed" }),
      (ctx) =>
        use(
          "task_get",
          { id: idOf(TEST)(ctx) },
          "Completing the module unblocked the test. Its file on disk:",
        ),
      (ctx) =>
        use(
          "task_update",
          { id: idOf(TEST)(ctx), status: "in_progress", owner: "lead" },
          "blockedBy is empty now, so the test can start.",
        ),
      use("write", {
        path: "test/greet.test.js",
        content:
          "import assert from 'node:assert';\nimport { greet } from '../src/greet.js';\n\n" +
          "assert.strictEqual(greet('workshop'), 'Hello, workshop!');\nconsole.log('greet ok');\n",
      }),
      use("bash", { command: "node test/greet.test.js" }),
      (ctx) => use("task_update", { id: idOf(TEST)(ctx), status: "completed" }),
      use("task_list", {}, "Both done. The board, as it is saved on disk:"),
      say(
        "Done: src/greet.js is written and its test passes. Both tasks are completed on the board, " +
          "which the harness keeps beside the workspace for the next session.",
      ),
    ],
  },
} satisfies Scenario;
