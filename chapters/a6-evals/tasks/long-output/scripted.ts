// The scripted model reads the whole log. The harness caps a command's output, so the error
// (far down) may not be in what comes back; then the model searches instead of reading.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

const codeIn = (text: string) => /ERROR (E\d{4})/.exec(text)?.[1];

export default (() => ({
  lead: [
    use("bash", { command: "cat logs/build.log" }, "Reading the build log."),
    ({ lastResult }) => {
      const code = codeIn(lastResult());
      return code
        ? use("write", { path: "ERROR.txt", content: `${code}\n` })
        : use(
            "bash",
            { command: "grep -n ERROR logs/build.log" },
            "The output was cut before any error; searching for it instead.",
          );
    },
    ({ lastResult }) => {
      const code = codeIn(lastResult());
      return code
        ? use("write", { path: "ERROR.txt", content: `${code}\n` })
        : say("I could not find an error code in the log.");
    },
    say("ERROR.txt holds the error code."),
  ],
})) satisfies TaskScript;
