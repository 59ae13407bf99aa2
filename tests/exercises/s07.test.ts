// s07's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

const allowStep =
  '  if (perms.allow.some((rule) => matches(rule, call.name, subject, "allow"))) return null;';

exerciseSuite("s07", {
  s07: {
    "lets auto mode decide before the deny rules": {
      gate: swap(
        "  // 2. Deny rules",
        '  if (perms.mode === "auto") return null;\n  // 2. Deny rules',
      ),
    },
    "checks the allow rules before the deny rules": {
      gate: swap("  // 2. Deny rules", `${allowStep}\n  // 2. Deny rules`),
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
    "judges a call that does not fit its tool": {
      gate: swap("if (malformed) return malformed;", ""),
    },
  },
  "s07.2": {
    "allows the chain when some part is allowed": {
      gate: swap(
        'parts.every((part) => rules.some((rule) => matches(rule, tool, part, "allow")))',
        'parts.some((part) => rules.some((rule) => matches(rule, tool, part, "allow")))',
      ),
    },
    "splits a quoted && too": {
      gate: swap(`  if (/["']/.test(command)) return false;\n`, ""),
    },
    "splits on ; as well": {
      gate: swap("command.split(/&&|\\|\\|/)", "command.split(/&&|\\|\\||;/)"),
    },
  },
});
