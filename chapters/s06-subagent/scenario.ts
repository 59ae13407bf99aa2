// The offline demo for s06: the lead delegates a survey of src/ to a subagent. The child reads
// every module and writes NOTES.md; the lead gets back one paragraph and then finds the file.
import { say, use, useAll } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

/** "// Cart: adds up …" → "Cart: adds up …" (the first comment line of a module). */
const firstLine = (source: string) => source.split("\n")[0].replace(/^\/\/\s*/, "");

export default {
  summary:
    "the lead hands a survey to a subagent, which reads and writes files in its own context and returns only a summary",
  prompts: ["Give me an overview of the modules in src/ and leave notes in NOTES.md."],
  script: {
    lead: [
      use(
        "task",
        {
          description: "survey src/ and write NOTES.md",
          prompt:
            "Read every JavaScript module under src/ and write NOTES.md with one line per file saying what " +
            "it does. Then reply with a two-sentence summary.",
        },
        "Surveying means reading every file. I'll delegate that, so the file contents stay out of my context.",
      ),
      use(
        "read",
        { path: "NOTES.md" },
        "That summary is all that came back, not the files the subagent read. It says it wrote NOTES.md; let me check.",
      ),
      ({ lastResult }) =>
        say(`Here is the overview. The subagent's notes are in NOTES.md:\n\n${lastResult()}`),
    ],
    subagent: [
      use("glob", { pattern: "src/**/*.js" }, "First, which modules are there?"),
      ({ lastResult }) =>
        useAll(
          lastResult()
            .split("\n")
            .map((file) => ({ name: "read", input: { path: file } })),
          "Reading each of them.",
        ),
      ({ results }) => {
        const [listing, ...sources] = results();
        const lines = listing
          .split("\n")
          .map((file, i) => `- \`${file}\` — ${firstLine(sources[i] ?? "")}`);
        return use("write", {
          path: "NOTES.md",
          content: `# Notes on src/\n\n${lines.join("\n")}\n`,
        });
      },
      say(
        "src/ has three modules: cart.js totals line items with priceOf() from prices.js, which throws on an " +
          "unknown SKU, and format.js turns cents into euro strings. I wrote one line per file to NOTES.md.",
      ),
    ],
  },
} satisfies Scenario;
