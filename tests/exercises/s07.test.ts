// s07's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
// The s07 ones include the wrong answers a learner wrote in issue 31 (read-only tools looked at
// before the deny rules, the raw input judged instead of the subject, a deny rule without a
// pattern ignored, "always" storing the command unescaped, the chain checked before the mode).
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { findExercise } from "../../chapters/_exercises/catalog.ts";
import { applySolution } from "../../chapters/_exercises/workbench.ts";
import { both, checkCopy, exerciseSuite, swap } from "../support/exercises.ts";

const allowStep =
  '  if (perms.allow.some((rule) => matches(rule, call.name, subject, "allow"))) return null;';
const chainStep =
  "  if (runsCommand(call.name) && chainAllowed(perms.allow, call.name, subject!)) return null;\n";

exerciseSuite("s07", {
  s07: {
    "runs the command validator on a file's path too": {
      gate: swap("  if (runsCommand(call.name)) {\n", "  if (call.name) {\n"),
    },
    "asks about the raw input, not the subject": {
      gate: swap(
        "const shown = oneLine(JSON.stringify(subject ?? call.input));",
        "const shown = oneLine(JSON.stringify(call.input));",
      ),
    },
    "offers the person no answers to choose from": {
      gate: swap('["yes", "no", "always"]', "[]"),
    },
    "takes only a whole, lowercase yes": {
      gate: swap('answer === "yes" || answer === "y" ? null', 'answer === "yes" ? null'),
    },
    "takes only a whole always": {
      gate: swap('if (answer === "always" || answer === "a") {', 'if (answer === "always") {'),
    },
    "reads the answer case by case": {
      gate: swap("    .trim()\n    .toLowerCase();", "    .trim();"),
    },
    "lets auto mode decide before the deny rules": {
      gate: swap(
        "  // 2. Deny rules",
        '  if (perms.mode === "auto") return null;\n  // 2. Deny rules',
      ),
    },
    "checks the allow rules before the deny rules": {
      gate: swap("  // 2. Deny rules", `${allowStep}\n  // 2. Deny rules`),
    },
    "looks at read-only tools before the deny rules": {
      gate: swap(
        "  // 2. Deny rules",
        "  if (READ_ONLY.has(call.name)) return null;\n  // 2. Deny rules",
      ),
    },
    "judges the raw input instead of the subject": {
      gate: swap(
        "const subject = subjectOf(call, env.workspace);",
        "const input = call.input as Record<string, string>;\n  const subject = subjectOf(call, env.workspace) === undefined ? undefined : (input.command ?? input.path ?? input.pattern);",
      ),
    },
    "ignores a deny rule without a pattern": {
      gate: swap(
        'perms.deny.find((rule) => matches(rule, call.name, subject, "deny"))',
        'perms.deny.find((rule) => rule.pattern !== undefined && matches(rule, call.name, subject, "deny"))',
      ),
    },
    "runs the command validator only outside auto mode": {
      gate: swap(
        "if (runsCommand(call.name)) {",
        'if (runsCommand(call.name) && perms.mode !== "auto") {',
      ),
    },
    "lets plan mode refuse looking too": {
      gate: swap('perms.mode === "auto" || READ_ONLY.has(call.name)', 'perms.mode === "auto"'),
    },
    "remembers a yes as if it were always": {
      gate: swap('answer === "always" || answer === "a"', 'answer !== "no"'),
    },
    "makes always allow the whole tool": {
      gate: swap("const rule = ruleFor(call.name, subject);", "const rule = { tool: call.name };"),
    },
    "stores the command unescaped for always": {
      gate: swap(
        "const rule = ruleFor(call.name, subject);",
        "const rule = subject === undefined ? { tool: call.name } : { tool: call.name, pattern: subject };",
      ),
    },
    "judges a call that does not fit its tool": {
      gate: swap("if (malformed) return malformed;", ""),
    },
    // Issue 31's learner: only the subject is made sure of (it must be text); the rest of the
    // input is never held to its tool's schema (an undeclared field, a missing or mistyped one).
    "skips the schema check (only the subject must be text)": {
      gate: swap(
        "const malformed = malformedCall(call, tools);",
        'const field = SUBJECT_FIELDS[call.name];\n  const malformed = field !== undefined && typeof (call.input as Record<string, unknown>)[field] !== "string" ? "its subject is not text" : undefined;',
      ),
    },
  },
  "s07.2": {
    "allows the chain when some part is allowed": {
      gate: swap("return readCommand(command).every(", "return readCommand(command).some("),
    },
    "checks the chain before the mode": {
      gate: both(swap(chainStep, ""), swap("  // 3. The mode.", `${chainStep}  // 3. The mode.`)),
    },
    "checks the chain before the deny rules": {
      gate: both(swap(chainStep, ""), swap("  // 2. Deny rules", `${chainStep}  // 2. Deny rules`)),
    },
    "splits the command on && and || by hand, as before": {
      gate: swap(
        `  return readCommand(command).every((part) =>
    rules.some((rule) => matches(rule, tool, part.text, "allow")),
  );`,
        `  if (/["']/.test(command)) return false;
  const parts = command.split(/&&|\\|\\|/).map((part) => part.trim());
  if (parts.length < 2 || parts.some((part) => part === "" || SHELL_OPERATORS.test(part)))
    return false;
  return parts.every((part) => rules.some((rule) => matches(rule, tool, part, "allow")));`,
      ),
    },
  },
});

// A correct gate in the learner's own words passes: the checks judge decisions, not wording (issue
// 31 saw "denied by the rule" and "plan mode" required by the checks and stated nowhere).
describe("exercise s07 (rebuild) in the learner's own words", () => {
  it("passes every check when every refusal is worded differently", async () => {
    const exercise = findExercise("s07")!;
    const chapter = findChapter("s07")!;
    const results = await checkCopy(exercise, (file) => {
      applySolution(exercise, chapter, file);
      const reworded = [
        ["`dangerous command (${why}); it is refused in every mode`", "`No: ${why}.`"],
        ['`denied by the rule "${describeRule(denied)}"`', "`the policy forbids this`"],
        [
          "`plan mode: ${call.name} would change things, so it does not run until the plan is approved`",
          '"only looking while we plan"',
        ],
        ['"the user said no"', '"declined"'],
      ];
      let text = readFileSync(file, "utf8");
      for (const [from, to] of reworded) {
        expect(text).toContain(from);
        text = text.replace(from, to);
      }
      writeFileSync(file, text);
    });
    expect(results.filter((r) => !r.ok)).toEqual([]);
  });
});
