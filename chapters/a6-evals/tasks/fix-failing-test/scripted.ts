// The scripted model reads the failing test and the code, and guards the division.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("read", { path: "test/math.test.ts" }, "Let me look at the failing test first."),
    use("read", { path: "src/math.ts" }),
    use(
      "edit",
      {
        path: "src/math.ts",
        old_text: "return sum(values) / values.length;",
        new_text: "return values.length === 0 ? 0 : sum(values) / values.length;",
      },
      "An empty list divides 0 by 0. Guarding it.",
    ),
    say("Fixed: mean([]) is now 0, and the test is unchanged."),
  ],
})) satisfies TaskScript;
