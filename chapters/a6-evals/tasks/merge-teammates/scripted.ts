// The scripted model looks at the branches and merges them one after the other.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("bash", { command: "git branch --list && git log --oneline --all" }),
    use("bash", { command: "git merge --no-edit alice" }, "Merging alice first."),
    use("bash", { command: "git merge --no-edit bob" }, "Then bob."),
    say("Merged alice and bob into main."),
  ],
})) satisfies TaskScript;
