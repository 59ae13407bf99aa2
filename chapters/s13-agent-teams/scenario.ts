// The offline demo for s13: the lead puts three tasks on the board (one in its own lane, one
// blocked by it), spawns two teammates and goes to its inbox. The teammates say hello, read their
// mail before the board, claim the ready tasks, write the files and report back.
//
// Which teammate claims which task is a real race, so the teammates share one pool of turns ("*")
// and every turn is the same function: it reads the teammate's own conversation and decides.
import { say, use } from "../_shared/scripted.ts";
import type { MessageParam, Scenario, ScriptedReply, TurnContext } from "../_shared/types.ts";

const LIBRARY = "Greeting library";
const DOCS = "Usage docs";
const CHANGELOG = "Changelog";

/** What the teammates write, by path: a claimed task names its file in its description. */
const FILES: Record<string, string> = {
  "lib/greet.js": 'export const greet = (name = "world") => `Hello, ${name}!`;\n',
  "docs/usage.md":
    '# greet\n\n```js\nimport { greet } from "./lib/greet.js";\ngreet("team"); // "Hello, team!"\n```\n',
  "CHANGELOG.md": "# Changelog\n\n## 0.1.0\n- greet(name) returns a greeting (default: world)\n",
};

/** The id of the task created with this subject, read from its task_create result. */
const idOf =
  (subject: string) =>
  ({ results }: TurnContext): number => {
    const created = results().filter((r) => r.startsWith("Created task #") && r.includes(subject));
    return Number(/#(\d+)/.exec(created.at(-1) ?? "")?.[1]);
  };

const textOf = (m: MessageParam): string =>
  typeof m.content === "string"
    ? m.content
    : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
const hasToolResult = (m: MessageParam | undefined): boolean =>
  Array.isArray(m?.content) && m.content.some((b) => b.type === "tool_result");

/** Every teammate turn: look at the latest instruction (and what the last tool said) and act. */
function teammate({ agent, request, lastResult }: TurnContext): ScriptedReply {
  const messages = request.messages;
  const instruction = textOf(
    [...messages].reverse().find((m) => m.role === "user" && textOf(m).trim()) ?? messages[0],
  );
  const claimed = instruction.startsWith("You claimed task");
  const file = Object.keys(FILES).find((f) => instruction.includes(f));

  if (hasToolResult(messages.at(-1))) {
    const result = lastResult();
    // In a lane, commit the work on the lane's branch so the lead can merge it later.
    if (claimed && result.startsWith("Wrote") && instruction.includes("branch wt/")) {
      return use(
        "bash",
        {
          command:
            "git add -A && git commit -qm 'Add greet()' && git log --oneline -1 && git branch --show-current",
        },
        "Committing in my lane:",
      );
    }
    const task = /#(\d+)/.exec(instruction)?.[1];
    return say(`Task #${task} done: ${result.split("\n").join(" · ")}`);
  }
  if (claimed && file)
    return use("write", { path: file, content: FILES[file] }, `My task needs ${file}. Writing it.`);
  if (instruction.includes("<message from=")) return say(`Noted, I'll keep that in mind.`);
  return say(`${agent} here, ready for work.`);
}

export default {
  summary:
    "a lead, two teammates and a task board: mail is read before the board, ready tasks are claimed once, one task runs in its own worktree lane",
  prompts: [
    "Make a tiny greet() library with docs and a changelog. Use a team: the library in its own lane, the docs after the library.",
  ],
  script: {
    lead: [
      use(
        "task_create",
        {
          subject: LIBRARY,
          worktree: "greet",
          description:
            'Create lib/greet.js exporting greet(name = "world") that returns `Hello, <name>!`.',
        },
        "I'll put the work on the board first: the library in its own lane, the docs after it, a changelog beside.",
      ),
      (ctx) =>
        use("task_create", {
          subject: DOCS,
          blockedBy: [idOf(LIBRARY)(ctx)],
          description: "Create docs/usage.md with one example of greet().",
        }),
      use("task_create", {
        subject: CHANGELOG,
        description: "Create CHANGELOG.md with an entry for 0.1.0.",
      }),
      use(
        "spawn",
        {
          name: "alice",
          role: "developer",
          prompt:
            "Welcome to the greeting team, alice. Say hello; then take ready tasks from the board.",
        },
        "Now the team.",
      ),
      use("spawn", {
        name: "bob",
        role: "technical writer",
        prompt:
          "Welcome to the greeting team, bob. Say hello; then take ready tasks from the board.",
      }),
      use("send", { to: "bob", content: "When you write docs, one short example is enough." }),
      use(
        "inbox",
        { wait: true },
        "They claim tasks by themselves. I'll wait until the team is quiet, then read my mailbox.",
      ),
      use("task_list", {}),
      ({ lastResult }) =>
        say(
          `The board is done:\n${lastResult()}\n` +
            "lib/greet.js is committed on branch wt/greet (lane .worktrees/greet); docs/usage.md and CHANGELOG.md " +
            "are in the workspace. Merge wt/greet when you are happy with it.",
        ),
    ],
    // Both teammates draw from this pool, in whatever order the race gives.
    "*": Array.from({ length: 16 }, () => teammate),
  },
} satisfies Scenario;
