// s03's exercises: rebuild the reminder; extend it (remind only while the plan has unfinished
// items; name the item in progress). The behaviours are the curriculum's for s03, and
// tests/chapters/s03-todo-write.test.ts runs the same ones against the chapter's own code.
import { say, use, useAll } from "../../_shared/scripted.ts";
import type { CreateParams } from "../../_shared/types.ts";
import type * as S03 from "../agent.ts";
import { expectThat, type Check, type CheckEnv, type Exercise } from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S03;

const bash = (command = "true") => use("bash", { command });
const plan = (...statuses: string[]) =>
  use("todo", { items: statuses.map((status, i) => ({ text: `step ${i + 1}`, status })) });

/** The text blocks (not tool results) of a request's last user message. */
const injected = (body: CreateParams): string[] => {
  const last = body.messages.at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
};
const hasReminder = (body: CreateParams) => injected(body).some((t) => t.includes("<reminder>"));

/** Plays the env's script on the module's agent; returns, per request, whether a reminder rode
 *  in it. */
async function reminders(module: M, env: CheckEnv): Promise<boolean[]> {
  await module.createAgent(env).send("work");
  return env.requests.map((r) => hasReminder(r.body));
}

/** Request n+1 carries round n's results, so `expected[n]` says whether round n ended in one. */
function expectReminders(got: boolean[], expected: boolean[]) {
  for (let i = 0; i < expected.length; i++) {
    if (got[i] === expected[i]) continue;
    expectThat(false, expected[i] ? "missing-reminder" : "extra-reminder", {
      request: i + 1,
      round: i,
    });
  }
}

export const reminderAfterThree: Check<M> = {
  id: "reminder-after-3",
  async run(module, kit) {
    const env = kit.env([bash(), bash(), bash(), bash(), bash(), bash(), say("done")]);
    expectReminders(await reminders(module, env), [false, false, false, true, false, false, true]);
  },
};

export const todoResets: Check<M> = {
  id: "todo-resets",
  async run(module, kit) {
    const env = kit.env([bash(), bash(), plan("in_progress"), bash(), bash(), say("done")]);
    expectReminders(await reminders(module, env), [false, false, false, false, false, false]);
  },
};

export const resultsFirst: Check<M> = {
  id: "results-first",
  async run(module, kit) {
    const env = kit.env([bash(), bash(), bash(), say("done")]);
    await module.createAgent(env).send("work");
    const last = env.requests[3]?.body.messages.at(-1);
    const kinds =
      typeof last?.content === "string" ? ["text"] : (last?.content ?? []).map((b) => b.type);
    expectThat(kinds[0] === "tool_result" && kinds.at(-1) === "text", "reminder-order", {
      got: kinds.join(", ") || "nothing",
    });
  },
};

export const finishedPlanQuiet: Check<M> = {
  id: "finished-plan-quiet",
  async run(module, kit) {
    const env = kit.env([
      plan("completed", "completed"),
      bash(),
      bash(),
      bash(),
      bash(),
      say("done"),
    ]);
    expectReminders(await reminders(module, env), [false, false, false, false, false, false]);
  },
};

export const unfinishedPlanReminds: Check<M> = {
  id: "unfinished-plan-reminds",
  async run(module, kit) {
    const env = kit.env([plan("completed", "in_progress"), bash(), bash(), bash(), say("done")]);
    expectReminders(await reminders(module, env), [false, false, false, false, true]);
  },
};

export const namesItemInProgress: Check<M> = {
  id: "names-item-in-progress",
  async run(module, kit) {
    const env = kit.env([
      use("todo", {
        items: [
          { text: "write the parser", status: "completed" },
          { text: "wire up the CLI", status: "in_progress" },
        ],
      }),
      bash(),
      bash(),
      bash(),
      say("done"),
    ]);
    await module.createAgent(env).send("work");
    const request = env.requests[4];
    const text = request ? injected(request.body).join("\n") : "";
    expectThat(text.includes("<reminder>") && text.includes("</reminder>"), "missing-reminder", {
      request: 5,
      round: 4,
    });
    expectThat(text.includes("wire up the CLI"), "reminder-unnamed", { item: "wire up the CLI" });
  },
};

// ---- The reminder's rule, tried on many generated sessions (property checks) ----

type Status = "pending" | "in_progress" | "completed";
/** One tool call of a generated round: a todo call with a plan (which the list refuses when it
 *  has two items in progress), or work with another tool (a read of a missing file: no process). */
type Call = { todo: Status[] } | { work: true };
/** A round: one model reply with one or more tool calls, dispatched in order. */
type Round = Call[];

const callArb: fc.Arbitrary<Call> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ work: true as const }) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom<Status>("pending", "in_progress", "completed"), {
        minLength: 1,
        maxLength: 4,
      })
      .map((todo) => ({ todo })),
  },
);
/** Most rounds make one call; some make two or three (todo first, last or between). */
const roundArb: fc.Arbitrary<Round> = fc.oneof(
  { weight: 3, arbitrary: callArb.map((c) => [c]) },
  { weight: 1, arbitrary: fc.array(callArb, { minLength: 2, maxLength: 3 }) },
);
const sessionArb = fc.array(roundArb, { minLength: 1, maxLength: 12 });

const refused = (plan: Status[]) => plan.filter((s) => s === "in_progress").length > 1;
const describeCall = (c: Call) =>
  "work" in c ? "work" : `todo [${c.todo.join(", ")}]${refused(c.todo) ? " (refused)" : ""}`;
const describeSession = (rounds: Round[]) =>
  rounds.map((r, i) => `${i + 1} ${r.map(describeCall).join(" + ")}`).join(" · ");

/** The rule, as a model: which rounds end in a reminder. A round with a todo call among its calls
 *  (even a refused one, wherever it stands in the round) resets the count; the third round in a
 *  row without one reminds and starts counting again. With `quietWhenFinished` (s03.1), a due
 *  reminder is skipped, and the count still starts again, when the plan the list holds has items
 *  and every one is completed. */
function expectedReminders(rounds: Round[], quietWhenFinished: boolean): boolean[] {
  let count = 0;
  let plan: Status[] = [];
  return rounds.map((round) => {
    for (const c of round) if ("todo" in c && !refused(c.todo)) plan = c.todo;
    if (round.some((c) => "todo" in c)) {
      count = 0;
      return false;
    }
    if (++count < 3) return false;
    count = 0;
    const finished = plan.length > 0 && plan.every((s) => s === "completed");
    return !(quietWhenFinished && finished);
  });
}

/** The tool_use ids of a request's reply that asked, and the tool_result ids of the next. */
function answered(env: CheckEnv, i: number): { asked: string[]; got: string[] } {
  const ids = (m: CreateParams["messages"][number] | undefined, type: string, key: string) =>
    !m || typeof m.content === "string"
      ? []
      : m.content.flatMap((b) =>
          b.type === type ? [String((b as unknown as Record<string, unknown>)[key])] : [],
        );
  const messages = env.requests[i + 1]?.body.messages ?? [];
  return {
    asked: ids(messages.at(-2), "tool_use", "id"),
    got: ids(messages.at(-1), "tool_result", "tool_use_id"),
  };
}

function reminderRule(quietWhenFinished: boolean): Check<M>["run"] {
  return (module, kit) =>
    forAll(sessionArb, async (rounds) => {
      const env = kit.env([
        ...rounds.map((r) =>
          useAll(
            r.map((c) =>
              "work" in c
                ? { name: "read", input: { path: "missing.txt" } }
                : {
                    name: "todo",
                    input: {
                      items: c.todo.map((status, i) => ({ text: `step ${i + 1}`, status })),
                    },
                  },
            ),
          ),
        ),
        say("done"),
      ]);
      const got = await reminders(module, env);
      const expected = expectedReminders(rounds, quietWhenFinished);
      expected.forEach((due, i) => {
        // Request i + 2 carries round i + 1's results (and its reminder, if one is due).
        const story = describeSession(rounds.slice(0, i + 1));
        const { asked, got: results } = answered(env, i);
        expectThat(
          results.join() === asked.join() && asked.length === rounds[i].length,
          "rule-unanswered",
          {
            story,
            round: i + 1,
            calls: rounds[i].length,
            results: results.length,
          },
        );
        if (got[i + 1] === due) return;
        expectThat(false, due ? "rule-missing-reminder" : "rule-extra-reminder", {
          story,
          request: i + 2,
          round: i + 1,
        });
      });
    });
}

export const reminderRuleHolds: Check<M> = {
  id: "reminder-rule",
  run: reminderRule(false),
};

export const randomPlans: Check<M> = {
  id: "random-plans",
  run: reminderRule(true),
};

/** An extend's answer: reminderDue written anew, in the chapter's own reminder region. */
const withReminderDue = (body: string) => (reference: string) =>
  reference.replace(/export function reminderDue[\s\S]*?\n}\n/, body);

export const exercises: Exercise<M>[] = [
  {
    id: "s03",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "reminderDue",
        contract: [
          "Called by the loop once per round (one model reply with tool calls); calledTodo says",
          "whether that reply called todo. Return REMINDER when the reminder is due, else undefined.",
          "The rule: after REMIND_AFTER rounds in a row without a todo call, remind once and start",
          "counting again; any todo call (even one the list refused) resets the count.",
        ].join("\n"),
      },
    ],
    checks: [reminderAfterThree, todoResets, resultsFirst, reminderRuleHolds],
  },
  {
    id: "s03.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      reminder: withReminderDue(
        `export function reminderDue(planning: Planning, calledTodo: boolean): string | undefined {
  planning.roundsWithoutTodo = calledTodo ? 0 : planning.roundsWithoutTodo + 1;
  if (planning.roundsWithoutTodo < REMIND_AFTER) return undefined;
  planning.roundsWithoutTodo = 0;
  // A plan with every item completed needs no nudge; no plan at all still gets one.
  const items = planning.todos.current;
  const finished = items.length > 0 && items.every((t) => t.status === "completed");
  return finished ? undefined : REMINDER;
}
`,
      ),
    },
    checks: [finishedPlanQuiet, unfinishedPlanReminds, todoResets, randomPlans],
  },
  {
    id: "s03.2",
    kind: "extend",
    file: "agent.ts",
    solution: {
      reminder: withReminderDue(
        `export function reminderDue(planning: Planning, calledTodo: boolean): string | undefined {
  planning.roundsWithoutTodo = calledTodo ? 0 : planning.roundsWithoutTodo + 1;
  if (planning.roundsWithoutTodo < REMIND_AFTER) return undefined;
  planning.roundsWithoutTodo = 0;
  const doing = planning.todos.current.find((t) => t.status === "in_progress");
  if (!doing) return REMINDER;
  return REMINDER.replace("</reminder>", \` You were working on "\${doing.text}".</reminder>\`);
}
`,
      ),
    },
    checks: [namesItemInProgress, reminderAfterThree, todoResets],
  },
];
