// a3's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { both, swap } from "../support/exercises.ts";
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
    "one match is replaced with String.replace, so $& in new_text is expanded": {
      edit: swap(
        "return { text: text.slice(0, at) + newText + text.slice(at + oldText.length), replaced: 1 };",
        "return { text: text.replace(oldText, newText), replaced: 1 };",
      ),
    },
    "replace_all with no match reports 0 places instead of refusing": {
      edit: swap("  if (found.length === 0)\n", "  if (found.length === 0 && !replaceAll)\n"),
    },
    "old_text equal to new_text is not refused": {
      edit: swap("  if (oldText === newText)", "  if (oldText === newText && false)"),
    },
    "a hunk whose context is off is applied with fuzz": {
      patch: swap(
        'const after = applyPatch(before ?? "", file, { fuzzFactor: 0 });',
        'const after = applyPatch(before ?? "", file, { fuzzFactor: 2 });',
      ),
    },
    "a patch creating a file that exists overwrites it": {
      patch: swap("    if (from === undefined && before !== undefined)", "    if (false)"),
    },
    "a file changed twice keeps only the second change": {
      patch: swap("    if (planned.some((p) => p.path === to))", "    if (false)"),
    },
    "a patch that deletes a file is skipped, the rest applied": {
      patch: swap(
        "    if (!to)\n      throw new Error(",
        "    if (!to) continue;\n    if (!to)\n      throw new Error(",
      ),
    },
    "a patch with no hunks patches nothing and succeeds": {
      patch: swap(
        "  if (files.length === 0 || files.every((f) => f.hunks.length === 0))\n    throw new Error(",
        "  if (files.length === 0 || files.every((f) => f.hunks.length === 0)) return [];\n  if (false)\n    throw new Error(",
      ),
    },
    "a created file's before is the empty text": {
      patch: swap(
        "planned.push({ path: to, before, after });",
        'planned.push({ path: to, before: before ?? "", after });',
      ),
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
    "matches counted by its own indexOf loop, and an empty old_text not refused": {
      edit: both(
        swap(
          '  if (!oldText) throw new Error("old_text is empty: name the text to replace");\n',
          "",
        ),
        swap(
          "  const found = matchesOf(text, oldText);",
          "  const found: number[] = [];\n" +
            "  for (let at = text.indexOf(oldText); at >= 0 && found.length <= text.length; at = text.indexOf(oldText, at + 1))\n" +
            "    found.push(at);",
        ),
      ),
    },
    "every entry parsePatch gives is a file, so git's mode-only line reads as a delete": {
      patch: swap(
        "  files = files.filter((f) => f.hunks.length > 0 || f.oldFileName || f.newFileName);\n",
        "",
      ),
    },
    "a rename is applied to the new name's file": {
      patch: swap("    if (from && from !== to)\n", "    if (from && from !== to && !read(to))\n"),
    },
    "a change to a file that is not there creates it": {
      patch: swap(
        "    if (from !== undefined && before === undefined)\n",
        "    if (from !== undefined && before === undefined && false)\n",
      ),
    },
    "a header with no hunks under it is skipped, the rest applied": {
      patch: swap(
        "    if (file.hunks.length === 0) throw new Error(`the patch has no hunks for ${to}`);",
        "    if (file.hunks.length === 0) continue;",
      ),
    },
    "a patch of prose only is an empty plan, reported as applied": {
      patch: swap(
        "  if (files.length === 0 || files.every((f) => f.hunks.length === 0))",
        "  if (files.length > 0 && files.every((f) => f.hunks.length === 0))",
      ),
    },
    "a hunk that does not fit is refused without naming its file": {
      patch: swap(
        "`hunk ${i + 1} of ${to} (${header(hunk)}) does not match",
        "`a hunk does not match",
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
