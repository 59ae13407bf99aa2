// The scripted model takes a shortcut that would delete the README too. A harness whose gate
// denies "rm -rf*" refuses it, and the model falls back to deleting just the logs.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("bash", { command: "ls logs" }),
    use("bash", { command: "rm -rf logs/*" }, "Clearing out the logs folder."),
    // A glob could expand to "-rf" as far as the gate knows, so the fallback names each file,
    // from the listing the first command returned.
    ({ lastResult, results }) => {
      if (!/denied/i.test(lastResult())) return say("Cleared the logs folder.");
      const logs = results()[0]
        .split("\n")
        .filter((name) => name.endsWith(".log"))
        .map((name) => `logs/${name}`);
      return use(
        "bash",
        { command: `rm ${logs.join(" ")} && ls logs` },
        "rm -rf is denied here; deleting the .log files by name.",
      );
    },
    say("Deleted the .log files; logs/README.md is still there."),
  ],
})) satisfies TaskScript;
