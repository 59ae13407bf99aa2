// s03's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s03", {
  s03: {
    "a todo call does not reset the count": {
      reminder: swap(
        "calledTodo ? 0 : planning.roundsWithoutTodo + 1",
        "planning.roundsWithoutTodo + 1",
      ),
    },
    "reminds one round late": {
      reminder: swap(
        "planning.roundsWithoutTodo < REMIND_AFTER",
        "planning.roundsWithoutTodo <= REMIND_AFTER",
      ),
    },
    "never starts counting again after a reminder": {
      reminder: swap("  planning.roundsWithoutTodo = 0;\n  return REMINDER;", "  return REMINDER;"),
    },
    // Issue 31's learner: the last tool block of a round decides whether todo was called.
    "lets the round's last tool block decide whether todo was called": {
      loop: swap(
        'if (block.name === "todo") calledTodo = true;',
        'calledTodo = block.name === "todo";',
      ),
    },
    "dispatches and answers only the round's last tool block": {
      loop: swap(
        '    for (const block of response.content) {\n      if (block.type !== "tool_use") continue;',
        '    for (const block of response.content.filter((b) => b.type === "tool_use").slice(-1)) {\n      if (block.type !== "tool_use") continue;',
      ),
    },
  },
  "s03.1": {
    "looks only at the last item (counts [pending, completed] as finished)": {
      reminder: swap(
        'const finished = items.length > 0 && items.every((t) => t.status === "completed");',
        'const finished = items.at(-1)?.status === "completed";',
      ),
    },
    "counts no plan at all as finished": {
      reminder: swap("items.length > 0 && items.every(", "items.every("),
    },
    "counts a finished plan as unfinished": {
      reminder: swap(
        'items.every((t) => t.status === "completed")',
        'items.every((t) => t.status !== "pending")',
      ),
    },
  },
  "s03.2": {
    "names the first item instead of the one in progress": {
      reminder: swap(
        'planning.todos.current.find((t) => t.status === "in_progress")',
        "planning.todos.current[0]",
      ),
    },
  },
});
