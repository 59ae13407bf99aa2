// The offline demo for s05: old command output is cleared before each call (micro-compaction),
// then the model calls compact: the transcript goes to .transcripts/ and a summary replaces the
// history. The second prompt is answered from that summary alone.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

const GENERATOR = `import { mkdirSync, writeFileSync } from "node:fs";

const errors = ["db timeout", "upstream 502", "db timeout", "cache miss storm"];
const lines = [];
for (let i = 0; i < 200; i++) {
  const time = new Date(Date.UTC(2025, 0, 6, 9, 0, i * 7)).toISOString();
  const level = i % 9 === 4 ? "ERROR" : i % 5 === 2 ? "WARN" : "INFO";
  const text = level === "ERROR" ? errors[i % errors.length] : level === "WARN" ? "slow response" : \`GET /api/items/\${i % 17} 200\`;
  lines.push(\`\${time} \${level} \${text}\`);
}
mkdirSync("logs", { recursive: true });
writeFileSync("logs/app.log", lines.join("\\n") + "\\n");
console.log(\`wrote \${lines.length} lines to logs/app.log\`);
`;

const REPORT = `# Log report: logs/app.log

200 lines: 142 INFO, 36 WARN, 22 ERROR.

## Errors, most frequent first

| count | error |
|---:|---|
| 11 | db timeout |
| 6 | upstream 502 |
| 5 | cache miss storm |

Every WARN line is "slow response".
`;

export default {
  summary:
    "old command output is cleared before each call, then compact saves the transcript to .transcripts/ and a summary replaces the history",
  prompts: [
    "Generate a sample log with a small script, find the most frequent errors, and write them up in report.md.",
    "What was the most common error, and how often did it occur?",
  ],
  script: {
    lead: [
      use(
        "write",
        { path: "gen-logs.mjs", content: GENERATOR },
        "First a script that writes a sample log.",
      ),
      use("bash", { command: "node gen-logs.mjs && head -n 4 logs/app.log" }),
      use(
        "bash",
        {
          command:
            "echo 'lines per level:'; cut -d' ' -f2 logs/app.log | sort | uniq -c; echo 'errors:'; " +
            "grep ERROR logs/app.log | cut -d' ' -f3- | sort | uniq -c | sort -rn",
        },
        "Counting lines per level, then errors per message.",
      ),
      use("write", { path: "report.md", content: REPORT }),
      use("read", { path: "report.md" }, "Checking how the report reads."),
      use("edit", {
        path: "report.md",
        old_text: "# Log report: logs/app.log",
        new_text: "# Error report for logs/app.log",
      }),
      use(
        "compact",
        { focus: "the numbers in report.md" },
        "The report is done and the raw output is no longer needed. Compacting to free the context.",
      ),
      // ↓ Not a reply to the user: the harness's separate summary call (no tools) reads this turn.
      say(
        "Goal: generate a sample log, find the most frequent errors, write them up in report.md.\n" +
          "Done: gen-logs.mjs writes 200 lines to logs/app.log (142 INFO, 36 WARN, 22 ERROR). Errors: " +
          'db timeout 11, upstream 502 6, cache miss storm 5; every WARN is "slow response". ' +
          'report.md holds these numbers under the title "Error report for logs/app.log".\n' +
          "Open problems: none. Next step: answer questions about the findings.",
      ),
      say(
        'The most common error was "db timeout": 11 of the 22 ERROR lines (the others: upstream 502 ×6, ' +
          "cache miss storm ×5). I answered from my summary; the full details are in report.md and the saved transcript.",
      ),
    ],
  },
} satisfies Scenario;
