// Three steps. With a todo tool the scripted model writes its plan down and takes its next step
// from the plan the tool returns; without one it does what long requests often get from a real
// model: the first two steps, and "done". That difference is written into this script, not
// measured: only real runs (npm run eval with a key) tell you whether your model forgets.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

const ADD_MAX = use(
  "edit",
  {
    path: "src/math.ts",
    old_text: "  return sum(values) / values.length;\n}\n",
    new_text:
      "  return sum(values) / values.length;\n}\n\nexport function max(values: number[]): number {\n  return Math.max(...values);\n}\n",
  },
  "Adding max.",
);
const ADD_TEST = use("write", {
  path: "test/max.test.ts",
  content:
    'import assert from "node:assert/strict";\nimport test from "node:test";\nimport { max } from "../src/math.js";\n\ntest("max", () => assert.equal(max([3, 9, 2]), 9));\n',
});
const ADD_CHANGELOG = use("edit", {
  path: "CHANGELOG.md",
  old_text: "# Changelog\n",
  new_text: "# Changelog\n\n## Unreleased\n- add max\n",
});
const plan = (done: number) =>
  use("todo", {
    items: ["add max to src/math.ts", "test/max.test.ts", "CHANGELOG entry"].map((text, i) => ({
      id: String(i + 1),
      text,
      status: i < done ? "completed" : i === done ? "in_progress" : "pending",
    })),
  });

export default ((tools) =>
  tools.has("todo")
    ? {
        lead: [
          { ...plan(0), text: "Three steps: writing the plan down." },
          ADD_MAX,
          plan(1),
          ADD_TEST,
          plan(2),
          // The next step comes from the plan the tool gave back, not from memory.
          ({ lastResult }) =>
            /CHANGELOG/.test(lastResult()) ? ADD_CHANGELOG : say("All steps are done."),
          plan(3),
          say("Added max, its test and the changelog entry."),
        ],
      }
    : { lead: [ADD_MAX, ADD_TEST, say("Added max and a test for it.")] }) satisfies TaskScript;
