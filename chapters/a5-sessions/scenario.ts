// The offline demo for a5. Its scripted model reads the conversation it is sent: each prompt has
// a plan, and the model plays the step of that plan the conversation has reached. So a session
// resumed in a new process (`--resume`), or forked from another, goes on where its log stopped,
// as a real model would, instead of starting its script over.
//
// `npm run chapter a5 -- --demo` plays PROMPTS in one session. The walk-through on the page runs
// the same harness headless: a slow check killed mid-turn and resumed, a fork, stream-json into jq.
import { say, use } from "../_shared/scripted.ts";
import type { CreateParams, Scenario, ScriptedReply, TurnContext } from "../_shared/types.ts";

const ENTRY = "# Changelog\n\n- 0.1.0: first release\n";

/** The prompts, by what the page's walk-through does with them. */
export const PROMPTS = {
  start: "Start a CHANGELOG.md with a first entry and count its lines.",
  second: "Add a second entry to the changelog.",
  slow: "Run the slow check on the changelog.",
  goOn: "Go on where you stopped.",
} as const;

/** Each prompt's replies, in order; the step is the number of answers since the prompt. */
const PLANS: { prompt: string; replies: ((ctx: TurnContext) => ScriptedReply)[] }[] = [
  {
    prompt: PROMPTS.start,
    replies: [
      () => use("write", { path: "CHANGELOG.md", content: ENTRY }, "Writing the changelog."),
      () => use("bash", { command: "wc -l < CHANGELOG.md" }, "Counting its lines."),
      ({ lastResult }) =>
        say(
          /denied|refused|said no/i.test(lastResult())
            ? "CHANGELOG.md is written. Counting its lines was refused, so I did not run it."
            : `CHANGELOG.md is written: ${lastResult().trim()} lines.`,
        ),
    ],
  },
  {
    prompt: PROMPTS.second,
    replies: [
      () =>
        use("edit", {
          path: "CHANGELOG.md",
          old_text: "- 0.1.0: first release\n",
          new_text: "- 0.1.0: first release\n- 0.2.0: sessions you can resume\n",
        }),
      () => use("read", { path: "CHANGELOG.md" }),
      () => say("Added 0.2.0 to the changelog."),
    ],
  },
  {
    prompt: PROMPTS.slow,
    replies: [
      // Slow on purpose: the walk-through kills the harness while this runs.
      () => use("bash", { command: "sleep 20; echo check passed" }, "Running the slow check."),
      ({ lastResult }) => say(`The check says: ${lastResult().trim()}`),
    ],
  },
  {
    prompt: PROMPTS.goOn,
    replies: [
      ({ results }) =>
        results().some((r) => r.startsWith("(not finished"))
          ? use(
              "bash",
              { command: "grep -c '^- ' CHANGELOG.md" },
              "The check did not finish last time; checking the changelog again, quickly.",
            )
          : say("Nothing was left unfinished."),
      ({ lastResult }) =>
        say(`The changelog has ${lastResult().trim()} entries; the check is done.`),
    ],
  },
];

/** The last prompt the conversation holds and how many answers came after it. */
function position(request: CreateParams): { prompt: string; answered: number } {
  const messages = request.messages;
  const at = messages.findLastIndex(
    (m) =>
      m.role === "user" &&
      (typeof m.content === "string" ||
        m.content.some((b) => b.type === "text" && PLANS.some((p) => p.prompt === b.text))),
  );
  const m = messages[at];
  const prompt =
    m === undefined
      ? ""
      : typeof m.content === "string"
        ? m.content
        : (m.content.findLast(
            (b) => b.type === "text" && PLANS.some((p) => p.prompt === b.text),
          ) as { text: string } | undefined)!.text;
  const answered = messages.slice(at + 1).filter((x) => x.role === "assistant").length;
  return { prompt, answered };
}

/** The scripted model's turn: the next step of the plan of the prompt being answered. */
const next = (ctx: TurnContext): ScriptedReply => {
  const { prompt, answered } = position(ctx.request);
  const plan = PLANS.find((p) => p.prompt === prompt);
  if (!plan) return say(`(scripted model) I have no plan for "${prompt}".`);
  return plan.replies[answered]?.(ctx) ?? say("Done.");
};

export default {
  summary:
    "every step of the session goes to its log in the state folder; a command is asked about and allowed",
  prompts: [PROMPTS.start, PROMPTS.second],
  // One turn function, many times: which reply it gives comes from the conversation.
  script: { lead: Array.from({ length: 40 }, () => next) },
  answers: ["yes"],
} satisfies Scenario;
