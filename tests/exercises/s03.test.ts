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
