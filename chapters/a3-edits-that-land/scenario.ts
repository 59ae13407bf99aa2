// The offline demo for a3, on the two files of its workspace template (src/price.ts and
// src/report.ts). The model reads price.ts and tries an edit whose old_text is in two places: it
// is refused with their line numbers and nothing changes; it edits again with enough context to
// mean one place. A command of its own then changes price.ts, so its next change, a patch over
// three files, is refused whole (not even the new file is created) until it reads price.ts again.
// The patch then lands, the type check in its result shows the string it put where a number was
// declared, and the model repairs that with one more edit.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario, TurnContext } from "../_shared/types.ts";

const VAT_PATCH = `--- /dev/null
+++ b/src/vat.ts
@@ -0,0 +1,1 @@
+export const VAT_RATE = 0.2;
--- a/src/price.ts
+++ b/src/price.ts
@@ -1,3 +1,5 @@
+import { VAT_RATE } from "./vat.ts";
+
 /** A price as it is stored, before tax. */
 export function net(amount: number): number {
   return amount;
@@ -7,3 +9,3 @@
 export function gross(amount: number): number {
-  return amount * 1.2;
+  return amount * (1 + VAT_RATE);
 }
--- a/src/report.ts
+++ b/src/report.ts
@@ -1,3 +1,4 @@
 import { gross } from "./price.ts";
+import { VAT_RATE } from "./vat.ts";
 
-export const total: number = gross(100);
+export const total: number = \`\${gross(100).toFixed(2)} EUR incl. \${VAT_RATE * 100} % VAT\`;
`;

/** The line numbers the refusal named, as the model would read them off the result. */
const namedLines = ({ lastResult }: TurnContext) => /\(lines? ([\d, ]+)\)/.exec(lastResult())?.[1];

export default {
  summary:
    "an ambiguous edit is refused with its line numbers, a stale file must be read again, and a type error in a patch's result is repaired",
  prompts: [
    "Make gross() in src/price.ts add 20 % VAT, and have src/report.ts show the total as text with its currency and the rate.",
  ],
  script: {
    lead: [
      use("read", { path: "src/price.ts" }, "Let me look at the prices first."),
      use(
        "edit",
        { path: "src/price.ts", old_text: "  return amount;", new_text: "  return amount * 1.2;" },
        "gross returns the amount unchanged; I'll make it add the tax.",
      ),
      (ctx) =>
        use(
          "edit",
          {
            path: "src/price.ts",
            old_text: "export function gross(amount: number): number {\n  return amount;",
            new_text: "export function gross(amount: number): number {\n  return amount * 1.2;",
          },
          `That line is in two functions (lines ${namedLines(ctx) ?? "?"}); net must stay as it is. ` +
            "Including gross's signature makes it one place.",
        ),
      use(
        "bash",
        { command: "perl -pi -e 's/as the customer pays it/with 20 % VAT/' src/price.ts" },
        "Its comment should say so; a quick one-liner.",
      ),
      use("read", { path: "src/report.ts" }, "Now the report."),
      use(
        "apply_patch",
        { patch: VAT_PATCH },
        "The rate belongs in one place: one patch creates src/vat.ts and uses it in both files.",
      ),
      use(
        "read",
        { path: "src/price.ts" },
        "Refused, and nothing was written: my one-liner changed price.ts after I read it. Reading it again.",
      ),
      use(
        "apply_patch",
        { patch: VAT_PATCH },
        "The hunks' context is still right; the same patch:",
      ),
      (ctx) =>
        ctx.lastResult().includes("TS2322")
          ? use(
              "edit",
              {
                path: "src/report.ts",
                old_text: "export const total: number =",
                new_text: "export const total: string =",
              },
              "The type check caught it: total is text now, but still declared a number.",
            )
          : say("The patch applied and type-checks."),
      ({ lastResult }) =>
        say(
          lastResult().includes("no errors")
            ? "Done: gross adds 20 % VAT, src/vat.ts holds the rate, and the report shows the total as text; the type check is clean."
            : `The last change did not check clean:\n${lastResult()}`,
        ),
    ],
  },
} satisfies Scenario;
