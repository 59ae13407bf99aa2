// s10's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

/** The region with `from` replaced; throws if `from` is not in it (the chapter changed). */

exerciseSuite("s10", {
  s10: {
    "lets a blocked task start": {
      status: swap('if (status !== "pending" && task.blockedBy.length > 0)', "if (false)"),
    },
    "frees only the tasks in its own blocks list": {
      status: swap(
        "for (const dependant of tasks.values()) {",
        "for (const dependant of task.blocks.map((d) => tasks.get(d)!)) {",
      ),
    },
    "frees its dependants when it starts, not when it is completed": {
      status: swap('if (status === "completed") {', 'if (status !== "pending") {'),
    },
    "leaves its blocks list as it was": {
      status: swap("      task.blocks = [];\n", ""),
    },
    "frees the dependants in memory but never writes them": {
      status: swap("        changed.add(dependant);\n", ""),
    },
    "frees only the first dependant it finds": {
      status: swap(
        "        changed.add(dependant);\n",
        "        changed.add(dependant);\n        break;\n",
      ),
    },
    "refuses a blocked task going back to pending": {
      status: swap(
        'if (status !== "pending" && task.blockedBy.length > 0)',
        "if (task.blockedBy.length > 0)",
      ),
    },
    "rewrites every task on the board when one is completed": {
      status: swap("if (!dependant.blockedBy.includes(task.id)) continue;", "if (false) continue;"),
    },
    "clears the whole blockedBy of a dependant": {
      status: swap("dependant.blockedBy.filter((b) => b !== task.id)", "[]"),
    },
  },
  "s10.1": {
    "also refuses in_progress → completed": {
      task: swap('in_progress: ["pending", "completed"]', 'in_progress: ["pending"]'),
    },
    "refuses but does not say what to do": {
      status: swap("set it in_progress first, then completed", "not allowed"),
    },
  },
  "s10.2": {
    "counts an owned task as ready": {
      render: swap('t.status === "pending" && !t.owner &&', 't.status === "pending" &&'),
    },
    "counts a started task as ready": {
      render: swap(
        't.status === "pending" && !t.owner &&',
        't.status !== "completed" && !t.owner &&',
      ),
    },
  },
});
