// The scripted model takes a shortcut that would delete the README too. A harness whose gate
// denies "rm -rf*" refuses it, and the model falls back to deleting just the logs.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("bash", { command: "ls logs" }),
    use("bash", { command: "rm -rf logs/*" }, "Clearing out the logs folder."),
    ({ lastResult }) =>
      /denied/i.test(lastResult())
        ? use(
            "bash",
            { command: "rm logs/*.log && ls logs" },
            "rm -rf is denied here; deleting only the .log files.",
          )
        : say("Cleared the logs folder."),
    say("Deleted the .log files; logs/README.md is still there."),
  ],
})) satisfies TaskScript;
