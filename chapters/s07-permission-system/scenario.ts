// The offline demo for s07. The starting policy (permissions.json, copied into the harness state
// folder beside the workspace) starts the session in plan mode:
// the gate refuses a write, the model makes a plan, the user approves it (mode → default). Then
// a test run is asked about, the user answers "always", and the second run is not asked about.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

const GREET = 'export const greet = (name = "world") => `Hello, ${name}!`;\n';
const TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import { greet } from "./greet.js";

test("greets by name", () => {
  assert.equal(greet("Ada"), "Hello, Ada!");
});
`;

export default {
  summary:
    'plan mode refuses a write; after the plan is approved, an "always" answer adds an allow rule and the next run is not asked',
  prompts: [
    "Add a greet() function in greet.js with a test, and run the tests.",
    "The plan looks good. Go ahead.",
  ],
  script: {
    lead: [
      // Prompt 1, in plan mode: looking is allowed, changing is not.
      use("glob", { pattern: "**/*" }, "Let me see what is here first."),
      use(
        "write",
        { path: "greet.js", content: GREET },
        "Empty workspace. I'll start with greet.js.",
      ),
      say(
        "The gate refused the write: this session is in plan mode. Here is my plan:\n" +
          '1. write greet.js exporting greet(name = "world")\n' +
          "2. write greet.test.js with node:test\n" +
          "3. run `node --test`, add a check for the default name, run it again",
      ),
      // Prompt 2, in default mode: write and edit are allowed by the rules file; bash is asked.
      use("write", { path: "greet.js", content: GREET }),
      use("write", { path: "greet.test.js", content: TEST }),
      use("bash", { command: "node --test" }, "Running the tests."),
      use(
        "edit",
        {
          path: "greet.test.js",
          old_text: '  assert.equal(greet("Ada"), "Hello, Ada!");\n',
          new_text:
            '  assert.equal(greet("Ada"), "Hello, Ada!");\n  assert.equal(greet(), "Hello, world!");\n',
        },
        "They pass. Adding a check for the default name.",
      ),
      use(
        "bash",
        { command: "node --test" },
        "Running them again (no question this time: you said always).",
      ),
      ({ lastResult }) =>
        say(
          `Done: greet.js and greet.test.js are written, and \`node --test\` ` +
            `${/# fail 0\b/.test(lastResult()) ? "passes" : "fails"}. ` +
            "The rule `bash node --test` stays allowed for the rest of this session.",
        ),
    ],
  },
  answers: ["yes", "always"], // approve the plan; then "always" for the first `node --test`
} satisfies Scenario;
