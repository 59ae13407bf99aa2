// a4's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("a4", {
  a4: {
    "restores without a snapshot of now first, so new files stay": {
      shadow: swap("const before = takeSnapshot(shadow, label).commit;", "const before = commit;"),
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
  },
});
