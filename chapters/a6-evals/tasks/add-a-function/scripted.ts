// The scripted model reads math.ts and appends a median that copies before sorting.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("read", { path: "src/math.ts" }),
    use(
      "edit",
      {
        path: "src/math.ts",
        old_text: "  return sum(values) / values.length;\n}\n",
        new_text: [
          "  return sum(values) / values.length;",
          "}",
          "",
          "export function median(values: number[]): number {",
          "  if (values.length === 0) return 0;",
          "  const sorted = [...values].sort((a, b) => a - b);",
          "  const middle = Math.floor(sorted.length / 2);",
          "  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;",
          "}",
          "",
        ].join("\n"),
      },
      "Sorting a copy, numerically.",
    ),
    say("Added median to src/math.ts."),
  ],
})) satisfies TaskScript;
