// a4's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { both, exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("a4", {
  a4: {
    "restores without a snapshot of now first, so new files stay": {
      shadow: swap("const before = takeSnapshot(shadow, label).commit;", "const before = commit;"),
    },
    "restores outside the lock, so another harness's snapshot can interleave with it": {
      shadow: swap(
        "  return underLock(shadow, () => {\n    const before = takeSnapshot(shadow, label).commit;",
        "  return ((work: () => { before: string; changes: FileChange[] }) => work())(() => {\n" +
          "    const before = takeSnapshot(shadow, label).commit;",
      ),
    },
    "takes the lock for the snapshot only, then diffs and reads the tree outside it": {
      shadow: swap(
        "  return underLock(shadow, () => {\n    const before = takeSnapshot(shadow, label).commit;",
        "  const before = snapshot(shadow, label).commit;\n" +
          "  return ((work: () => { before: string; changes: FileChange[] }) => work())(() => {",
      ),
    },
    "an undo that tells the person nothing": {
      rewind: swap(
        '      undo: true,\n      files,\n      messages: this.messages.length,\n    });\n    return lines.join("\\n");',
        '      undo: true,\n      files,\n      messages: this.messages.length,\n    });\n    return "";',
      ),
    },
    "the rewind event says no file changed": {
      rewind: swap("      undo: false,\n      files,", "      undo: false,\n      files: 0,"),
    },
    "an undo with nothing to undo falls over with a TypeError": {
      rewind: swap(
        "    const record = this.undoRecord;\n    if (!record)",
        "    const record = this.undoRecord!;\n    if (!this)",
      ),
    },
    "a code rewind to a prompt cut from the conversation is refused too": {
      rewind: swap('if (target !== "code" && cutAt < 0)', "if (cutAt < 0)"),
    },
    "the undo emits no event": {
      rewind: swap(
        '    this.env.io.event("rewind", {\n      to: record.checkpoint,',
        "    void ({\n      to: record.checkpoint,",
      ),
    },
    "cuts the conversation after the prompt instead of before it": {
      rewind: swap("this.messages.splice(cutAt)", "this.messages.splice(cutAt + 1)"),
    },
    "undo forgets the history": {
      rewind: swap("this.messages.splice(0, this.messages.length, ...record.history);", ""),
    },
    "restores the newest checkpoint, whichever was asked for": {
      rewind: swap("        checkpoint.commit,\n", "        this.list.at(-1)!.commit,\n"),
    },
    "names only the commands after the next checkpoint": {
      rewind: swap("this.list.filter((c) => c.id >= id)", "this.list.filter((c) => c.id > id)"),
    },
    "refuses a gone prompt only after restoring its files": {
      rewind: both(
        swap('if (target !== "code" && cutAt < 0)', "if (false)"),
        swap(
          '    if (target !== "code") {\n      record.history',
          '    if (target !== "code" && cutAt < 0) throw new Error("gone");\n    if (target !== "code") {\n      record.history',
        ),
      ),
    },
    "finds the prompt by its words, so repeated prompts cut at the first": {
      rewind: swap(
        "this.messages.indexOf(checkpoint.message)",
        'this.messages.findIndex((m) => m.role === "user" && m.content === checkpoint.message.content)',
      ),
    },
    "names only the commands run right after checkpoint k": {
      rewind: swap("this.list.filter((c) => c.id >= id)", "[checkpoint]"),
    },
    "names every command of the session": {
      rewind: swap("this.list.filter((c) => c.id >= id)", "this.list"),
    },
    "undo forgets its own record, so an undo cannot be undone": {
      rewind: swap("this.undoRecord = next;", "this.undoRecord = undefined;"),
    },
    "the report swaps removed and back": {
      shadow: swap(
        "const changes = changesBetween(shadow, before, commit);",
        "const changes = changesBetween(shadow, commit, before);",
      ),
    },
    "rewinds the conversation to a prompt it no longer holds": {
      rewind: swap('if (target !== "code" && cutAt < 0)', "if (false)"),
    },
  },
  "a4.2": {
    "asks, and rewinds whatever the answer": {
      rewind: swap(
        '      if (answer !== "yes") return "Nothing changed: the rewind was not confirmed.";\n',
        "",
      ),
    },
    "asks only before a code rewind, so a rewind of both rewrites files unasked": {
      rewind: swap(
        '    if (target !== "conversation") {\n      const changes',
        '    if (target === "code") {\n      const changes',
      ),
    },
    "any answer but no rewinds": {
      rewind: swap('if (answer !== "yes") return', 'if (answer === "no") return'),
    },
  },
});
