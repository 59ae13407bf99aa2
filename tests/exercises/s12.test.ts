// s12's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

/** The region with `from` replaced; throws if `from` is not in it (the chapter changed). */

exerciseSuite("s12", {
  s12: {
    "gives a lane only to a pending task (a started one is refused)": {
      create: swap(
        'if (task.status === "completed") throw new Error(`task #${taskId} is already completed`);',
        'if (task.status !== "pending") throw new Error(`task #${taskId} is ${task.status}`);',
      ),
    },
    "refuses a task somebody owns": {
      create: swap(
        'if (task.status === "completed") throw new Error(`task #${taskId} is already completed`);',
        'if (task.status === "completed") throw new Error(`task #${taskId} is already completed`);\n    if (task.owner) throw new Error(`task #${taskId} belongs to ${task.owner}`);',
      ),
    },
    "binds the lane but does not start the task": {
      create: swap('{ worktree: name, status: "in_progress" }', "{ worktree: name }"),
    },
    "starts the task but does not record its lane": {
      create: swap('{ worktree: name, status: "in_progress" }', '{ status: "in_progress" }'),
    },
    "lets a blocked task have a lane": {
      create: swap("if (task.blockedBy.length) {", "if (false) {"),
    },
    "gives a task that has a lane a second one": {
      create: swap("if (task.worktree) throw", "if (false) throw"),
    },
    "completes the task on every remove": {
      remove: swap(
        '...(completeTask ? { status: "completed" as const } : {}),',
        'status: "completed",',
      ),
    },
    "completes the task but leaves it bound to the removed lane": {
      remove: swap("      worktree: null,\n", ""),
    },
    "completes the task without logging it": {
      remove: swap(
        '    if (completeTask) this.log("task_completed", lane.name, { task: lane.taskId });\n',
        "",
      ),
    },
  },
  "s12.1": {
    "merges a dirty workspace": {
      run: swap("    if (dirty) {", "    if (false) {"),
    },
    "leaves a conflicting merge half done": {
      run: swap('      git(this, "merge", "--abort");\n', ""),
    },
  },
});
