// With a task tool the scripted lead hands the survey to a subagent and keeps only its summary;
// without one it greps itself. Both can pass: the difference is in the lead's tokens.
import { say, use } from "../../../_shared/scripted.ts";
import type { ScriptedTurn } from "../../../_shared/types.ts";
import type { TaskScript } from "../../tasks.ts";

export default ((tools): Record<string, ScriptedTurn[]> =>
  tools.has("task")
    ? {
        lead: [
          use(
            "task",
            {
              description: "find the oldApi callers",
              prompt:
                "List the files under src/legacy/ that call oldApi( in LEGACY.md: one path per " +
                "line, sorted, nothing else. Reply with how many there are.",
            },
            "A survey of many files: a subagent keeps them out of my context.",
          ),
          use("read", { path: "LEGACY.md" }, "Checking what it wrote."),
          say("LEGACY.md lists the modules that still call oldApi."),
        ],
        subagent: [
          use("bash", {
            command: "grep -rl 'oldApi(' src/legacy | sort > LEGACY.md && wc -l < LEGACY.md",
          }),
          ({ lastResult }) => say(`Wrote LEGACY.md: ${lastResult().trim()} files.`),
        ],
      }
    : {
        lead: [
          use("bash", { command: "grep -rl 'oldApi(' src/legacy | sort" }),
          ({ lastResult }) =>
            use("write", { path: "LEGACY.md", content: `${lastResult().trim()}\n` }),
          say("LEGACY.md lists the modules that still call oldApi."),
        ],
      }) satisfies TaskScript;
