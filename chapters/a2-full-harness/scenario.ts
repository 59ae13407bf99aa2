// The offline demo for the whole harness, in four prompts that touch every part at least once:
//   1. the API is overloaded once (s14 retries); the model plans (s03), writes a skill (s04) and a
//      hook (s08), saves a memory (s09), and is reminded to update its plan (s03);
//   2. the new skill is loaded, the hook is trusted and fires, .env is denied (s07), a subagent
//      surveys the repository (s06), two tasks go on the board, one blocked by the other (s10), the
//      first gets a lane where the work is committed (s12), and its check runs in the background (s11);
//   3. the lane is removed (completing the task unblocks the second), a teammate claims the second
//      task from the board (s13), then is asked to shut down and agrees (s15); the model compacts (s05);
//   4. the answer is cut off at max_tokens and continued (s14).
// It writes only what the model's tools write (a skill, .hooks.json, CHANGELOG.md, and a commit on
// the lane's branch wt/slugify), so it also runs in a git repository of your own.
import { fail, say, use, useAll } from "../_shared/scripted.ts";
import type { CreateParams, MessageParam, Scenario, TurnContext } from "../_shared/types.ts";

const SKILL = `---
name: changelog
description: How this project records a change in CHANGELOG.md
---
Add one line under "## Unreleased" in CHANGELOG.md: \`- <what changed> (<file>)\`, present tense.
Create the file and the heading if they are missing. One line per change.
`;

const HOOKS = `${JSON.stringify(
  {
    PostToolUse: [
      {
        matcher: "write",
        command: `echo '{"additionalContext": "Every change needs a line in CHANGELOG.md."}'`,
      },
    ],
  },
  null,
  2,
)}\n`;

const SLUG_JS = `export function slugify(text) {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join("-");
}
`;

/** Waits for the lane's commit, then two seconds more, then runs the module: so the check is
 *  still running when the model finishes its turn, and the loop visibly waits for it (on a busy
 *  machine a second can pass between the commit and the next request; half a second was seen
 *  too little, and the check came back before the turn that says it is still running). */
const CHECK =
  "cd .worktrees/slugify && until git log -1 --format=%s | grep -q slugify; do sleep 0.05; done; " +
  "sleep 2; node -e \"import('./src/slugify.js').then(m => console.log(m.slugify('The Whole Harness')))\"";

const CHANGELOG = "# Changelog\n\n## Unreleased\n\n- Add slugify() (src/slugify.js)\n";

/** The ids of the tasks the model created, read from its task_create results. */
const taskIds = ({ results }: TurnContext): number[] =>
  results()
    .flatMap((r) => /^Created task #(\d+)/.exec(r)?.[1] ?? [])
    .map(Number);

const textOf = (m: MessageParam): string =>
  typeof m.content === "string"
    ? m.content
    : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");

/** The newest <background-results> block the harness injected into the request. */
const backgroundResults = (request: CreateParams): string =>
  request.messages
    .map(textOf)
    .filter((t) => t.includes("<background-results>"))
    .at(-1)
    ?.replace(/[\s\S]*<background-results>\n|\n<\/background-results>[\s\S]*/g, "") ?? "(none)";

/** The request_id of the newest shutdown_request in what woke the teammate. */
const shutdownId = ({ request }: TurnContext): string =>
  [
    ...request.messages
      .map(textOf)
      .join("\n")
      .matchAll(/type="shutdown_request" request_id="(req_\d+)"/g),
  ].at(-1)?.[1] ?? "(no request id found)";

const plan = (done: number, items: string[]) => ({
  items: items.map((text, i) => ({
    text,
    status: i < done ? "completed" : i === done ? "in_progress" : "pending",
  })),
});

const SETUP = ["write the changelog skill", "write the hook", "remember the preference"];
const SLUGIFY = [
  "survey the repository",
  "put the work on the board",
  "do it in a lane",
  "check it",
];

export default {
  summary:
    "every mechanism at once: retry, plan, skill, hook, memory, permission, subagent, board, lane, background job, teammate, shutdown protocol, compaction",
  prompts: [
    "Set up this project's conventions: a changelog skill, a hook that reminds about the changelog after every write, and remember that I want a changelog line for every change.",
    "Add a slugify() helper in its own lane, following the changelog skill. Put it on the board with its changelog entry as a second task, and check it in the background.",
    "Close the lane, have a teammate write the changelog entry, then let it go and tidy up the conversation.",
    "What is left to do?",
  ],
  script: {
    lead: [
      // 1. Conventions
      fail(529, "overloaded_error", "Overloaded", 0.05),
      use("todo", plan(0, SETUP), "The API is back. Three steps; the plan first."),
      use("write", { path: "skills/changelog/SKILL.md", content: SKILL }, "The skill:"),
      use("write", { path: ".hooks.json", content: HOOKS }, "The hook:"),
      use(
        "save_memory",
        {
          name: "A changelog line for every change",
          description: "the user wants each change recorded in CHANGELOG.md",
          type: "feedback",
          content: "Every change gets one line in CHANGELOG.md (see the changelog skill).",
        },
        "And the preference, for later sessions:",
      ),
      use("todo", plan(3, SETUP), "The harness reminds me to update the plan: all three are done."),
      say(
        "Done. The changelog skill and the hook take effect from your next request (the hook once you trust it), " +
          "and the preference is saved as a memory.",
      ),

      // 2. slugify, on the board and in a lane
      use("todo", plan(0, SLUGIFY), "Four steps."),
      useAll(
        [
          { name: "load_skill", input: { name: "changelog" } },
          { name: "read", input: { path: ".env" } },
        ],
        "The changelog skill applies; loading it. And a look at the settings:",
      ),
      use(
        "task",
        {
          description: "survey the repository",
          prompt:
            "List the files of this repository (glob **/*) and say in one sentence what it holds.",
        },
        "I may not read .env. A subagent surveys the repository, so its listing stays out of my context.",
      ),
      use("task_create", {
        subject: "Add a slugify() helper",
        description: "src/slugify.js exporting slugify(text)",
      }),
      (ctx) =>
        useAll(
          [
            { name: "todo", input: plan(2, SLUGIFY) },
            {
              name: "task_create",
              input: {
                subject: "Changelog entry for slugify()",
                description:
                  "One line under ## Unreleased in CHANGELOG.md, as the changelog skill says.",
                blockedBy: [taskIds(ctx)[0]],
              },
            },
          ],
          "The entry waits for the helper.",
        ),
      (ctx) =>
        use(
          "worktree_create",
          { name: "slugify", task_id: taskIds(ctx)[0] },
          "A lane for the helper, so the main checkout stays untouched:",
        ),
      useAll(
        [
          { name: "write", input: { path: ".worktrees/slugify/src/slugify.js", content: SLUG_JS } },
          { name: "background_run", input: { command: CHECK, timeout: 20 } },
        ],
        "Writing it in the lane, and its check in the background (it waits for the commit):",
      ),
      useAll(
        [
          { name: "todo", input: plan(3, SLUGIFY) },
          {
            name: "worktree_run",
            input: {
              name: "slugify",
              command:
                "git add -A && git commit -qm 'Add slugify()' && git log --oneline -1 --format=%s",
            },
          },
        ],
        "Committing in the lane:",
      ),
      say("Committed on wt/slugify. The check is still running; the harness waits for it."),
      ({ request }) =>
        say(
          `The check came back: ${backgroundResults(request)}\nslugify() works, task 1 is in its lane and task 2 waits for it.`,
        ),

      // 3. A teammate, a protocol, a compaction
      use(
        "worktree_remove",
        { name: "slugify", complete_task: true },
        "Closing the lane completes its task; the branch keeps the commit.",
      ),
      use("spawn", {
        name: "alice",
        role: "changelog writer",
        prompt: "Hello alice. Say hello, then take the ready task from the board.",
      }),
      use("inbox", { wait: true }, "Waiting for alice."),
      useAll(
        [
          { name: "todo", input: plan(4, SLUGIFY) },
          {
            name: "request_shutdown",
            input: { name: "alice", reason: "The entry is written; that is all for today." },
          },
        ],
        "Her entry is in. Asking her to shut down; she decides when it is safe.",
      ),
      use("inbox", { wait: true }),
      use(
        "compact",
        { focus: "the slugify work and the changelog convention" },
        "alice approved and stopped. That stretch of work is done: compacting.",
      ),
      say(
        "The user set up a changelog skill, a PostToolUse hook and a memory (a changelog line for every change). " +
          "slugify() was written and committed in lane wt/slugify (task 1, completed); alice wrote its CHANGELOG.md " +
          "line (task 2, completed) and shut down when asked. Nothing is open.",
      ),

      // 4. A cut-off answer, continued
      use("task_list", {}),
      { text: "Nothing is left: both tasks are completed", stop_reason: "max_tokens" },
      say(
        ". slugify() waits on branch wt/slugify for you to merge it, and CHANGELOG.md has its line.",
      ),
    ],
    subagent: [
      use("glob", { pattern: "**/*" }),
      ({ lastResult }) =>
        say(
          `The repository holds ${lastResult().split("\n").length} files: ${lastResult().split("\n").join(", ")}.`,
        ),
    ],
    alice: [
      say("alice here, ready."),
      use("write", { path: "CHANGELOG.md", content: CHANGELOG }, "My task: the changelog entry."),
      say("CHANGELOG.md has its line for slugify()."),
      (ctx) =>
        use(
          "handle_shutdown",
          { request_id: shutdownId(ctx), approve: true, reason: "My task is done and saved." },
          "Nothing is half done, so I can stop.",
        ),
    ],
  },
  // The hooks file (turn 2), the subagent, the background check, the lane's commit, removing the
  // lane and spawning alice: everything else is allowed or denied by the starting rules.
  answers: ["yes", "yes", "yes", "yes", "yes", "yes"],
} satisfies Scenario;
