// The offline demo for s02: five tools, one dispatch map, and the jail saying no.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

export default {
  summary:
    "the model writes, reads, edits and finds files, and the jail refuses a path outside the workspace",
  prompts: [
    "Set up a small greeting module, fix its wording, and show me what is in the workspace.",
  ],
  script: {
    lead: [
      use(
        "write",
        { path: "src/greet.js", content: "export const greet = (name) => `Helo, ${name}!`;\n" },
        "I'll create the module first.",
      ),
      use("read", { path: "src/greet.js" }),
      use(
        "edit",
        { path: "src/greet.js", old_text: "Helo", new_text: "Hello" },
        "There is a typo; fixing it.",
      ),
      use("bash", {
        command: "node -e \"import('./src/greet.js').then(m => console.log(m.greet('workshop')))\"",
      }),
      use(
        "read",
        { path: "../../package.json" },
        "Let me also peek at the project above the workspace.",
      ),
      use(
        "glob",
        { pattern: "**/*.js" },
        "That path is outside the workspace, so the jail refused it. Listing what I made:",
      ),
      ({ results }) =>
        say(
          `Done: src/greet.js now greets correctly (${results()[3]}). ` +
            "Reading outside the workspace was refused, as it should be.",
        ),
    ],
  },
} satisfies Scenario;
