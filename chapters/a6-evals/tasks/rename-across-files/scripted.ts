// The scripted model finds every file with grep and renames in all of them with one sed.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

const listed = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^(src|test)\//.test(line));

export default (() => ({
  lead: [
    use("bash", { command: "grep -rl formatTotal src test" }, "Finding every file that uses it."),
    ({ lastResult }) =>
      use(
        "bash",
        { command: `sed -i 's/formatTotal/formatPrice/g' ${listed(lastResult()).join(" ")}` },
        `Renaming in ${listed(lastResult()).length} files.`,
      ),
    use("bash", { command: "grep -rn formatTotal src test || echo 'no formatTotal left'" }),
    say("Renamed formatTotal to formatPrice everywhere."),
  ],
})) satisfies TaskScript;
