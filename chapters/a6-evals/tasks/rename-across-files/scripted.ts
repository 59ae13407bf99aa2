// The scripted model finds every file with grep, reads each, and writes each back renamed.
import { say, use, useAll } from "../../../_shared/scripted.ts";
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
      useAll(listed(lastResult()).map((file) => ({ name: "read", input: { path: file } }))),
    ({ results }) => {
      const files = listed(results()[0]);
      const contents = results().slice(1, 1 + files.length);
      return useAll(
        files.map((file, i) => ({
          name: "write",
          input: { path: file, content: contents[i].replaceAll("formatTotal", "formatPrice") },
        })),
        `Renaming in ${files.length} files.`,
      );
    },
    use("bash", { command: "grep -rn formatTotal src test || echo 'no formatTotal left'" }),
    say("Renamed formatTotal to formatPrice everywhere."),
  ],
})) satisfies TaskScript;
