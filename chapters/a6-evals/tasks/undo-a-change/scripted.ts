// The scripted model looks at what changed, then restores the one file from the last commit.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("bash", { command: "git status --short" }, "What changed since the last commit?"),
    use("bash", { command: "git diff src/format.ts" }),
    use(
      "bash",
      { command: "git checkout -- src/format.ts && git status --short" },
      "Restoring src/format.ts from the last commit; src/extra.ts is untracked and stays.",
    ),
    say("src/format.ts is back as it was committed; src/extra.ts is untouched."),
  ],
})) satisfies TaskScript;
