// The offline demo for s12: a task gets its own lane (a git worktree on wt/greet), the work is
// done and committed inside the lane, and removing the lane completes the task. The first
// attempt to remove it is refused, because the work is not committed yet.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario, TurnContext } from "../_shared/types.ts";

/** The id of the task the model created, read from its task_create result. */
const taskId = ({ results }: TurnContext): number =>
  Number(
    /Created task #(\d+)/.exec(results().find((r) => r.startsWith("Created task #")) ?? "")?.[1],
  );

const GREET = "export const greet = (name) => `Hello, ${name}!`;\n";

export default {
  summary:
    "a task gets its own git worktree lane; the work is committed there; removing the lane completes the task",
  prompts: [
    "Add a greet() module. Do the work in its own lane, and finish the task when it is committed.",
  ],
  script: {
    lead: [
      use(
        "task_create",
        { subject: "Add a greet() module", description: "greet.js exporting greet(name)" },
        "First the task, on the board.",
      ),
      (ctx) =>
        use(
          "worktree_create",
          { name: "greet", task_id: taskId(ctx) },
          "Now a lane for it, so the main checkout stays untouched.",
        ),
      use("worktree_list", {}),
      use(
        "worktree_run",
        { name: "greet", command: "pwd && git branch --show-current" },
        "Checking where lane commands run:",
      ),
      use(
        "write",
        { path: ".worktrees/greet/greet.js", content: GREET },
        "I'll write the module inside the lane.",
      ),
      use("worktree_run", {
        name: "greet",
        command: "node -e \"import('./greet.js').then(m => console.log(m.greet('lane')))\"",
      }),
      use(
        "worktree_remove",
        { name: "greet", complete_task: true },
        "It works. Closing the lane and the task:",
      ),
      use(
        "worktree_run",
        {
          name: "greet",
          command: "git add greet.js && git commit -q -m 'Add greet()' && git log --oneline -1",
        },
        "Refused: the change is not committed yet, and removing would lose it. Committing in the lane:",
      ),
      use("worktree_remove", { name: "greet", complete_task: true }),
      use(
        "bash",
        { command: "git merge --ff-only -q wt/greet && git log --oneline && ls" },
        "The lane is gone but branch wt/greet keeps the commit. Merging it into main:",
      ),
      use(
        "bash",
        { command: "git worktree list && git branch --list 'wt/*'" },
        "Git no longer lists the lane's checkout; its branch stays until someone deletes it:",
      ),
      use("task_list", {}),
      say(
        "Done: greet.js was written and committed in lane wt/greet, merged into main, and the task is completed.",
      ),
    ],
  },
} satisfies Scenario;
