// The scripted model edits "timeoutMs: 1000", which occurs twice. An edit tool that takes the
// first match changes dev's, and says "Edited"; the model believes it. One that refuses an
// ambiguous edit and names the lines (a3) gets a second, precise edit.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("read", { path: "src/config.ts" }),
    use(
      "edit",
      { path: "src/config.ts", old_text: "timeoutMs: 1000", new_text: "timeoutMs: 5000" },
      "Raising the timeout.",
    ),
    ({ lastResult }) =>
      /^Error/.test(lastResult())
        ? use(
            "edit",
            {
              path: "src/config.ts",
              old_text: 'url: "https://shop.example",\n    timeoutMs: 1000',
              new_text: 'url: "https://shop.example",\n    timeoutMs: 5000',
            },
            "It occurs twice; naming the prod one by its url.",
          )
        : say("Done: the prod timeout is 5000 ms."),
    say("Done: the prod timeout is 5000 ms."),
  ],
})) satisfies TaskScript;
