// s13's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { both, exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s13", {
  s13: {
    "notes an unreadable board without saying what is wrong with it": {
      idle: swap(
        "this.env.io.note(`cannot read the task board: ${(err as Error).message}`, member.name);",
        'this.env.io.note("cannot read the task board", member.name);',
      ),
    },
    "claims without looking again under the lock": {
      claim: swap("    if (!board.isReady(board.get(id))) return null;\n", ""),
    },
    "checks readiness before taking the lock, and never again under it": {
      claim: swap(
        "  const lock = tryLock(`${board.path(id)}.lock`);\n  if (!lock) return null; // someone is claiming it right now\n  try {\n    if (!board.isReady(board.get(id))) return null;\n",
        "  if (!board.isReady(board.get(id))) return null;\n  const lock = tryLock(`${board.path(id)}.lock`);\n  if (!lock) return null; // someone is claiming it right now\n  try {\n",
      ),
    },
    "never releases the lock when it refuses": {
      claim: swap(
        "  try {\n    if (!board.isReady(board.get(id))) return null;\n",
        "  if (!board.isReady(board.get(id))) return null;\n  try {\n",
      ),
    },
    "claims without the lock": {
      claim: both(
        swap(
          "  const lock = tryLock(`${board.path(id)}.lock`);\n  if (!lock) return null; // someone is claiming it right now\n",
          "",
        ),
        swap(
          "  } finally {\n    lock.release();\n  }",
          "  } finally {\n    // nothing to release\n  }",
        ),
      ),
    },
    "takes an owned task when it is not blocked": {
      claim: swap(
        "if (!board.isReady(board.get(id))) return null;",
        'if (board.get(id).status !== "pending" || board.get(id).blockedBy.length > 0) return null;',
      ),
    },
    "never gives the lock back": {
      claim: swap("    lock.release();\n", ""),
    },
    "owns the task but leaves it pending": {
      claim: swap('{ owner, status: "in_progress" }', "{ owner }"),
    },
    // Issue 31's learner: three wrong scans.
    "claims the highest ready id first instead of the lowest": {
      idle: swap(
        "for (const candidate of ready) {",
        "for (const candidate of [...ready].reverse()) {",
      ),
    },
    "lets a board-read error escape claimNext": {
      idle: swap(
        `    try {
      ready = readyTasks(this.board);
    } catch (err) {
      this.env.io.note(\`cannot read the task board: \${(err as Error).message}\`, member.name);
      return null;
    }`,
        "    ready = readyTasks(this.board);",
      ),
    },
    "claims with the lead as owner": {
      idle: swap(
        "claimTask(this.board, candidate.id, member.name)",
        "claimTask(this.board, candidate.id, LEAD)",
      ),
    },
    "gives up the scan when the first ready task is taken": {
      idle: swap(
        "      if (task) return this.assign(member, task);\n",
        "      return task ? this.assign(member, task) : null;\n",
      ),
    },
  },
  "s13.1": {
    "takes a task assigned to anyone": {
      idle: swap(
        "filter((t) => assignedTo(t, member.name))",
        'filter((t) => t.status === "pending" && t.blockedBy.length === 0)',
      ),
      claim: swap(
        "!assignedTo(task, owner)",
        '!(task.status === "pending" && task.blockedBy.length === 0)',
      ),
    },
    "looks for its own tasks but the lock refuses them": {
      claim: swap(" && !assignedTo(task, owner)", ""),
    },
  },
  "s13.3": {
    "reads the mail only before the turn's first call": {
      loop: swap("if (who.name === LEAD) {", "if (who.name === LEAD && round === 0) {"),
    },
    "looks at the mail without taking it (injected again every round)": {
      loop: swap(
        "const mail = this.post.read(LEAD);",
        'const mail = this.bus.peek(LEAD).map((m) => m.content).join("\\n") || null;',
      ),
    },
  },
});
