// The offline demo for s03: the model plans, works, forgets to update its plan for three rounds,
// gets reminded, and finishes with every item checked off.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

const plan = (...statuses: string[]) => ({
  items: [
    { id: "1", text: "Write slugify() in src/slugify.mjs", status: statuses[0] },
    { id: "2", text: "Write a test in test/slugify.test.mjs", status: statuses[1] },
    { id: "3", text: "Run the test until it passes", status: statuses[2] },
  ],
});

export default {
  summary:
    "the model writes a plan with todo, works through it, and the harness reminds it after three rounds without an update",
  prompts: [
    "Add a slugify(title) function in src/slugify.mjs with a test, and make sure the test passes.",
  ],
  script: {
    lead: [
      use(
        "todo",
        plan("in_progress", "pending", "pending"),
        "Three steps. Writing the plan down first.",
      ),
      use("write", {
        path: "src/slugify.mjs",
        content:
          'export function slugify(title) {\n  return title.toLowerCase().replaceAll(" ", "-");\n}\n',
      }),
      use("todo", plan("completed", "in_progress", "pending")),
      use("write", {
        path: "test/slugify.test.mjs",
        content: [
          'import assert from "node:assert/strict";',
          'import { slugify } from "../src/slugify.mjs";',
          "",
          'assert.equal(slugify("Hello World"), "hello-world");',
          'assert.equal(slugify("  Agents, Tools & Plans!  "), "agents-tools-plans");',
          'console.log("slugify: all tests pass");',
          "",
        ].join("\n"),
      }),
      use(
        "bash",
        { command: "node test/slugify.test.mjs 2>&1 | grep -A4 AssertionError" },
        "Running the test.",
      ),
      use(
        "edit",
        {
          path: "src/slugify.mjs",
          old_text: 'return title.toLowerCase().replaceAll(" ", "-");',
          new_text: 'return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");',
        },
        "Punctuation and outer spaces are not handled. Fixing the function.",
      ),
      // That was the third round without a todo call: the harness appended a <reminder> to the results.
      use(
        "todo",
        plan("completed", "completed", "in_progress"),
        "Right, my plan is behind. Updating it.",
      ),
      use("bash", { command: "node test/slugify.test.mjs" }),
      use("todo", plan("completed", "completed", "completed")),
      ({ results }) =>
        say(
          `Done: slugify() now handles spaces and punctuation, and the test prints "${results().at(-2)}".`,
        ),
    ],
  },
} satisfies Scenario;
