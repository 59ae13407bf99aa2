// a5's exercises: rebuild the two functions that turn a session log back into a conversation
// (historyFrom) and close what a kill left open (closeUnfinished). The checks play sessions with
// the learner's own module and a scripted model, then read their logs back.
// tests/chapters/a5-sessions.test.ts runs the same behaviours against the appendix's own code.
import { readFileSync, writeFileSync } from "node:fs";
import type * as A5 from "../agent.ts";
import { say, useAll } from "../../_shared/scripted.ts";
import type { MessageParam, ScriptedReply } from "../../_shared/types.ts";
import {
  change,
  expectThat,
  refusal,
  type Check,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof A5;

/** The fields of a block a request sends back (a response's own, such as citations, aside). */
const KEPT = ["type", "text", "id", "name", "input", "tool_use_id", "content", "is_error"];
const requestShape = (messages: MessageParam[]) =>
  JSON.stringify(
    messages.map((m) => ({
      role: m.role,
      content:
        typeof m.content === "string"
          ? m.content
          : m.content.map((b) =>
              Object.fromEntries(Object.entries(b).filter(([k]) => KEPT.includes(k))),
            ),
    })),
  );

/** Whether every tool_use has its tool_result in the very next message. */
function unanswered(messages: MessageParam[]): string[] {
  return messages.flatMap((m, i) => {
    if (m.role !== "assistant" || typeof m.content === "string") return [];
    const next = messages[i + 1];
    const results = new Set(
      next && Array.isArray(next.content)
        ? next.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []))
        : [],
    );
    return m.content.flatMap((b) => (b.type === "tool_use" && !results.has(b.id) ? [b.id] : []));
  });
}

/** A session's rounds: how many tool calls each answer makes (0: the answer ends the turn). */
const rounds = fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }), {
  minLength: 1,
  maxLength: 3,
});

/** The scripted turns of one prompt per entry: its rounds of calls, then an answer. */
function script(turns: number[][]): ScriptedReply[] {
  return turns.flatMap((calls, t) => [
    ...calls
      .filter((n) => n > 0)
      .map((n, r) =>
        useAll(
          Array.from({ length: n }, (_, i) => ({
            name: i % 2 ? "glob" : "read",
            input: i % 2 ? { pattern: "*" } : { path: `t${t}r${r}c${i}.txt` },
          })),
          r % 2 ? undefined : `round ${r}`,
        ),
      ),
    say(`done ${t}`),
  ]);
}

/** Plays `turns` in a new session of the learner's module; its agent and its log's steps. */
async function played(module: M, kit: CheckKit, turns: number[][]) {
  const env = kit.env(script(turns));
  const agent = module.createAgent(env, { permissionMode: "auto" });
  for (let t = 0; t < turns.length; t++) await agent.send(`prompt ${t}`);
  await agent.close?.();
  return { env, agent, steps: module.readSession(env.stateDir, agent.session.id).steps };
}

export const historyIsTheConversation: Check<M> = {
  id: "history-is-the-conversation",
  limitMs: 30_000,
  async run(module, kit) {
    await forAll(
      rounds,
      async (turns) => {
        const { agent, steps } = await played(module, kit, turns);
        const got = requestShape(module.historyFrom(steps));
        expectThat(got === requestShape(agent.messages), "history-differs", {
          turns: JSON.stringify(turns),
          got: got.slice(0, 300),
          expected: requestShape(agent.messages).slice(0, 300),
        });
      },
      { runs: 12 },
    );
  },
};

export const unfinishedAnswered: Check<M> = {
  id: "unfinished-answered",
  limitMs: 30_000,
  async run(module, kit) {
    await forAll(
      fc.tuple(rounds, fc.nat()),
      async ([turns, pick]) => {
        const { steps } = await played(module, kit, turns);
        const cut = steps.slice(0, 1 + (pick % steps.length)); // the log a kill left
        const closing = module.closeUnfinished(cut);
        const repaired = module.historyFrom([...cut, ...closing]);
        const left = unanswered(repaired);
        expectThat(left.length === 0, "still-open", {
          at: cut.length,
          ids: left.join(", "),
        });
        const results = closing.filter((s) => s.kind === "tool_result");
        expectThat(
          results.every((s) => s.kind === "tool_result" && s.is_error),
          "closing-not-error",
          { at: cut.length },
        );
        const answeredTwice = results.filter((s) =>
          cut.some((c) => c.kind === "tool_result" && s.kind === "tool_result" && c.id === s.id),
        );
        expectThat(answeredTwice.length === 0, "answered-twice", {
          ids: answeredTwice.map((s) => (s.kind === "tool_result" ? s.id : "")).join(", "),
        });
        if (results.length === 0)
          expectThat(closing.length === 0, "closed-nothing-open", { at: cut.length });
      },
      { runs: 20 },
    );
  },
};

export const resumesAfterKill: Check<M> = {
  id: "resumes-after-kill",
  limitMs: 20_000,
  async run(module, kit) {
    const { env, agent, steps } = await played(module, kit, [[2]]);
    // The log as a kill right after the answer with two calls would leave it.
    const calls = steps.findIndex((s) => s.kind === "tool_call");
    const lines = readFileSync(agent.session.file, "utf8").split("\n");
    writeFileSync(agent.session.file, `${lines.slice(0, calls + 3).join("\n")}\n`);
    const again = kit.env([say("checked again")], { workspace: env.workspace });
    const resumed = module.createAgent(again, { resume: agent.session.id });
    const open = unanswered(resumed.messages);
    expectThat(open.length === 0, "resume-open", { ids: open.join(", ") });
    await resumed.send("go on");
    await resumed.close?.();
    const sent = again.requests.at(-1)?.body.messages ?? [];
    expectThat(unanswered(sent).length === 0, "request-open", {
      ids: unanswered(sent).join(", "),
    });
    expectThat(readFileSync(agent.session.file, "utf8").includes("(not finished"), "log-open");
  },
};

/** Opens a session with `--continue` (a5.1), typed loosely: the unextended chapter has no such
 *  option and ignores it. */
const continued = (module: M, env: Parameters<M["createAgent"]>[0]) =>
  module.createAgent(env, { continue: true } as A5.SessionOptions);

export const continuesLatest: Check<M> = {
  id: "continues-latest",
  async run(module, kit) {
    const workspace = kit.workspace();
    const ids: string[] = [];
    for (const prompt of ["the first session", "the second session"]) {
      // A log's start is stamped to the millisecond: two sessions begun within one have no
      // latest (the check failed once that way), so the second waits for the clock to move.
      const now = Date.now();
      while (Date.now() === now) await new Promise((tick) => setImmediate(tick));
      const agent = module.createAgent(kit.env([say("ok")], { workspace }), {});
      await agent.send(prompt);
      await agent.close?.();
      ids.push(agent.session.id);
    }
    const agent = continued(module, kit.env([say("ok")], { workspace }));
    await agent.close?.();
    expectThat(agent.session.id === ids[1], "not-latest", {
      got: agent.session.id,
      expected: ids[1],
    });
    expectThat(JSON.stringify(agent.messages).includes("the second session"), "history-lost");
  },
};

export const nothingToContinue: Check<M> = {
  id: "nothing-to-continue",
  run(module, kit) {
    const why = refusal(() => continued(module, kit.env([say("ok")])));
    expectThat(why !== undefined && /no session/i.test(why), "continued-nothing", {
      got: why ?? "a new session",
    });
  },
};

/** a5.1's answer: `continue` resumes the session whose log started last. */
const continueChanges = [
  change(
    `  resume?: string;
`,
    `  resume?: string;
  /** Continue the session whose log started last (--continue). */
  continue?: boolean;
`,
  ),
  change(
    `  const { resume, fork } = options;`,
    `  const { fork } = options;
  const resume = options.continue ? latestSession(env.stateDir) : options.resume;`,
  ),
  change(
    `/** Opens the session the options name, a new one by default.`,
    `/** The session whose header says it started last. */
function latestSession(stateDir: string): string {
  let names: string[] = [];
  try {
    names = readdirSync(sessionsDir(stateDir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    // no sessions folder: no session
  }
  const started = names
    .map((n) => n.slice(0, -".jsonl".length))
    .map((id) => ({ id, at: readSession(stateDir, id).header.started }))
    .sort((a, b) => a.at.localeCompare(b.at));
  const latest = started.at(-1);
  if (!latest) throw new SessionError("there is no session to continue in this workspace");
  return latest.id;
}

/** Opens the session the options name, a new one by default.`,
  ),
];

export const exercises: Exercise<M>[] = [
  {
    id: "a5",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "historyFrom",
        contract: [
          "The lead's conversation a log holds: a user step is a user message with its text; a",
          "response step an assistant message ([{type:'text'}] when it has text, else []); each",
          "tool_call after it a tool_use block of that assistant message; each tool_result a",
          "tool_result block of the user message after it. Leave out empty messages, then return",
          "normalizeMessages(messages) (s02's hygiene).",
        ].join("\n"),
      },
      {
        name: "closeUnfinished",
        contract: [
          "The steps that close what a kill left open: for each lead tool_call with no tool_result",
          "after it (by position: ids may repeat), a tool_result step with NOT_FINISHED and",
          "is_error true, then one note saying how many; [] when nothing is open.",
        ].join("\n"),
      },
    ],
    checks: [historyIsTheConversation, unfinishedAnswered, resumesAfterKill],
  },
  {
    id: "a5.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      open: (reference: string) => continueChanges.reduce((text, edit) => edit(text), reference),
    },
    checks: [continuesLatest, nothingToContinue],
  },
];
