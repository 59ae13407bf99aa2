// The offline demo for a7: three goals, each checked for real. The scripted model writes and
// edits real files; `node test.js` really runs in the sandbox after every stop.
//
//   1. /goal node test.js — the model writes slugify and its test, and says it is done; the test
//      fails (runs of spaces); the check's output goes back; the second try passes: met after one
//      round of feedback.
//   2. /goal --rounds 2 node test.js — a case the scripted model cannot get right (ü → ue): it
//      tries twice, says "done" twice, and the round budget ends the loop, with the reason.
//   3. /goal judge: … — no command can check prose: a judge model reads the transcript and names
//      the gap (the README does not say how to run the tests); the second try holds.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

export const SLUG_V1 = `exports.slugify = (title) => title.toLowerCase().split(" ").join("-");\n`;

export const TEST_V1 = `const { slugify } = require("./slug.js");

const cases = [
  ["Hello World", "hello-world"],
  ["  Goal   loops  ", "goal-loops"],
];
let failed = 0;
for (const [title, expected] of cases) {
  const actual = slugify(title);
  if (actual !== expected) {
    failed++;
    console.log(\`✗ slugify(\${JSON.stringify(title)}) is \${JSON.stringify(actual)}, expected \${JSON.stringify(expected)}\`);
  }
}
console.log(failed ? \`\${failed} of \${cases.length} slug tests failed\` : "all slug tests pass");
process.exitCode = failed ? 1 : 0;
`;

export const PROMPTS = {
  firstGoal: "/goal node test.js",
  slugify:
    "Write slugify(title) in slug.js: lower case, words joined by '-', no dashes at the ends. Test it in test.js.",
  secondGoal: "/goal --rounds 2 node test.js",
  umlauts: "Make slugify spell German umlauts out: 'Grüße aus Köln' becomes 'gruesse-aus-koeln'.",
  thirdGoal: "/goal judge: README.md tells a newcomer how to run the tests",
  readme: "Write a short README.md for the slug module.",
} as const;

export default {
  summary:
    "the harness checks the goal each time the model stops: a failing test sends its output back; a budget ends a goal the model cannot meet",
  prompts: Object.values(PROMPTS),
  script: {
    lead: [
      // Goal 1, round 1: a slugify that splits on single spaces only.
      use("write", { path: "test.js", content: TEST_V1 }, "First the test, then the function."),
      use("write", { path: "slug.js", content: SLUG_V1 }),
      say("Done: slugify is written and tested."),
      // Round 2: the gap (the assertion's output) came back.
      use(
        "edit",
        {
          path: "slug.js",
          old_text: 'title.toLowerCase().split(" ")',
          new_text: "title.trim().toLowerCase().split(/\\s+/)",
        },
        "The check shows runs of spaces and the ends: trim, and split on any whitespace.",
      ),
      say("Fixed: spaces at the ends and runs of spaces are handled."),
      // Goal 2, round 1: accents stripped, which is not what was asked.
      use("edit", {
        path: "test.js",
        old_text: '  ["  Goal   loops  ", "goal-loops"],\n',
        new_text:
          '  ["  Goal   loops  ", "goal-loops"],\n  ["Grüße aus Köln", "gruesse-aus-koeln"],\n',
      }),
      use("edit", {
        path: "slug.js",
        old_text: "title.trim()",
        new_text: 'title.normalize("NFD").replace(/[\\u0300-\\u036f]/g, "").trim()',
      }),
      say("Done: umlauts are handled now."),
      // Round 2: ß, but still not ü → ue. The budget is two rounds.
      use("edit", {
        path: "slug.js",
        old_text: ".trim().toLowerCase()",
        new_text: '.trim().toLowerCase().replace(/ß/g, "ss")',
      }),
      say("Done: ß becomes ss as well, so the test passes."),
      // Goal 3, round 1: a README that forgets the tests.
      use("write", {
        path: "README.md",
        content:
          "# slug\n\n`slugify(title)` turns a title into a URL slug: `Hello World` → `hello-world`.\n",
      }),
      say("README.md is written."),
      // Round 2: the judge's gap came back.
      use("edit", {
        path: "README.md",
        old_text: "→ `hello-world`.\n",
        new_text:
          "→ `hello-world`.\n\nRun the tests with `node test.js`: it prints `all slug tests pass`.\n",
      }),
      say("README.md now says how to run the tests."),
    ],
    // The judge answers through its verdict tool, once per check of goal 3.
    judge: [
      use("verdict", {
        met: false,
        gap: "README.md explains slugify but never says how to run the tests (node test.js).",
      }),
      use("verdict", { met: true, gap: "" }),
    ],
  },
} satisfies Scenario;
