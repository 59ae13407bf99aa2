// The offline demo for a4: three prompts, each after a checkpoint; a rewind of the code only, its
// undo, and a rewind of the conversation only — after which the model finds work it does not
// remember. The lines that start with "/" are typed commands, not prompts.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

export default {
  summary:
    "a checkpoint before each prompt; /rewind puts the files back (and undoes that), or cuts the conversation and keeps the files",
  prompts: [
    "Start a small greeting library: a module, notes, and a vendored dependency git should ignore.",
    "Make the greeting shout, and add a test for it.",
    "Tidy up: drop the notes file and put the punctuation in a config file.",
    "/rewind",
    "/rewind 2 code",
    "/rewind undo",
    "/rewind 3 conversation",
    "What is in the workspace now? Tell me what you find.",
  ],
  script: {
    lead: [
      // Prompt 1 (checkpoint #1: the workspace is empty).
      use(
        "write",
        { path: ".gitignore", content: "node_modules/\n" },
        "First a .gitignore, so the vendored folder stays out of version control.",
      ),
      use("write", {
        path: "src/greet.js",
        content: "export const greet = (name) => `Hello, ${name}!`;\n",
      }),
      use("write", { path: "NOTES.md", content: "- greet(name) says hello\n" }),
      use("bash", {
        command:
          "mkdir -p node_modules/pad && echo 'export const pad = (s) => ` ${s} `;' > node_modules/pad/index.js && ls node_modules",
      }),
      say("Done: src/greet.js, NOTES.md, a .gitignore, and node_modules/pad (ignored)."),
      // Prompt 2 (checkpoint #2).
      use(
        "edit",
        {
          path: "src/greet.js",
          old_text: "`Hello, ${name}!`",
          new_text: "`HELLO, ${name.toUpperCase()}!`",
        },
        "Making it shout.",
      ),
      use("write", {
        path: "test/greet.test.js",
        content:
          "import { greet } from '../src/greet.js';\n" +
          "if (greet('ada') !== 'HELLO, ADA!') throw new Error(greet('ada'));\n" +
          "console.log('ok');\n",
      }),
      use("bash", { command: "node test/greet.test.js" }),
      say("The greeting shouts and test/greet.test.js passes."),
      // Prompt 3 (checkpoint #3).
      use("bash", { command: "rm NOTES.md" }, "Dropping the notes."),
      use("write", { path: "greet.config.json", content: '{ "punctuation": "!" }\n' }),
      use("edit", {
        path: "src/greet.js",
        old_text: "export const greet = (name) => `HELLO, ${name.toUpperCase()}!`;",
        new_text:
          "import config from '../greet.config.json' with { type: 'json' };\n" +
          "export const greet = (name) => `HELLO, ${name.toUpperCase()}${config.punctuation}`;",
      }),
      use("bash", { command: "node test/greet.test.js" }),
      say("NOTES.md is gone and the punctuation comes from greet.config.json; the test passes."),
      // After /rewind 3 conversation the model has no memory of prompt 3, but its files are there.
      use("glob", { pattern: "**/*" }, "I'll look at the workspace rather than trust my memory."),
      use("read", { path: "greet.config.json" }),
      ({ results }) =>
        say(
          `I find ${results()
            .at(-2)
            ?.split("\n")
            .join(", ")}. greet.config.json is not something I remember making in this ` +
            "conversation, yet it is there: the files were kept when the conversation was rewound.",
        ),
    ],
  },
} satisfies Scenario;
