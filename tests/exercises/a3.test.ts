// a3's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { swap } from "../support/exercises.ts";
import { exerciseSuite } from "../support/exercises.ts";

exerciseSuite("a3", {
  a3: {
    "the first of several matches is replaced (s02's edit)": {
      edit: swap("  if (found.length > 1) {", "  if (found.length > 99) {"),
    },
    "the refusal names only the first match's line": {
      edit: swap(
        "const lines = [...new Set(found.map((at) => lineAt(text, at)))];",
        "const lines = [lineAt(text, found[0])];",
      ),
    },
    "overlapping matches count as one": {
      edit: swap("text.indexOf(needle, at + 1)", "text.indexOf(needle, at + needle.length)"),
    },
    "replace_all replaces only the first": {
      edit: swap(
        "return { text: parts.join(newText), replaced: parts.length - 1 };",
        "return { text: text.replace(oldText, newText), replaced: 1 };",
      ),
    },
    "a missing old_text says only that it is missing": {
      edit: swap("The lines most like it:\\n${nearestLines(text, oldText)}\\n", ""),
    },
    "a file that does not fit is skipped, the others kept": {
      patch: swap(
        "    if (after === false) {",
        "    if (after === false) continue;\n    if (after === false) {",
      ),
    },
    "a created file's text is the patch itself": {
      patch: swap(
        'applyPatch(before ?? "", file, { fuzzFactor: 0 })',
        "(before === undefined ? patch : applyPatch(before, file, { fuzzFactor: 0 }))",
      ),
    },
  },
  "a3.1": {
    "expected_matches is in the schema but never compared": {
      edit: swap(
        "  if (expected !== undefined && found.length !== expected) {",
        "  if (expected !== undefined && false) {",
      ),
    },
  },
});
