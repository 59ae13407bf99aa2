// a5's exercises: rebuild the two functions that turn a session log back into a conversation
// (historyFrom) and close what a kill left open (closeUnfinished). The checks play sessions with
// the learner's own module and a scripted model, then read their logs back.
// tests/chapters/a5-sessions.test.ts runs the same behaviours against the appendix's own code.
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
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
type Step = ReturnType<M["closeUnfinished"]>[number];

/** The fields of a block a request sends back (a response's own, such as citations, aside). */
const KEPT = ["type", "text", "id", "name", "input", "tool_use_id", "content", "is_error"];
/** One message as a request sends it back, as JSON. */
const shapeOf = (m: MessageParam) =>
  JSON.stringify({
    role: m.role,
    content:
      typeof m.content === "string"
        ? m.content
        : m.content.map((b) =>
            Object.fromEntries(Object.entries(b).filter(([k]) => KEPT.includes(k))),
          ),
  });

/** Where two histories first part: the message's number and both sides from a little before
 *  the first character they differ at (a cut-off dump would hide the difference). */
function firstDifference(got: MessageParam[], held: MessageParam[]) {
  const a = got.map(shapeOf);
  const b = held.map(shapeOf);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const x = a[i] ?? "—";
  const y = b[i] ?? "—";
  let d = 0;
  while (d < x.length && x[d] === y[d]) d++;
  const from = Math.max(0, d - 60);
  const excerpt = (s: string) =>
    `${from > 0 ? "…" : ""}${s.slice(from, from + 240)}${s.length > from + 240 ? "…" : ""}`;
  return { index: i + 1, got: excerpt(x), expected: excerpt(y) };
}

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

/** The same log as a resumed process may write it: each answer's calls numbered from 0 again,
 *  so an id repeats across rounds (two processes' model clients may reuse an id). */
function reusedIds(steps: readonly Step[]): Step[] {
  const renamed = new Map<string, string>();
  let n = 0;
  return steps.map((s): Step => {
    if (s.agent !== "lead") return s;
    if (s.kind === "response") n = 0;
    if (s.kind === "tool_call") {
      const id = `toolu_${n++}`;
      renamed.set(s.id, id);
      return { ...s, id };
    }
    if (s.kind === "tool_result") return { ...s, id: renamed.get(s.id) ?? s.id };
    return s;
  });
}

/** Steps a log holds that are not the lead's conversation: a note of the harness, and a helper
 *  agent's prompt, answer and a call of its own still out. */
const aside = (k: number): Step[] => [
  { kind: "note", agent: "lead", text: `a note of the harness (${k})` },
  { kind: "user", agent: "helper", text: `the helper's task ${k}` },
  {
    kind: "response",
    agent: "helper",
    stop_reason: "tool_use",
    text: `on it ${k}`,
    calls: ["read"],
  },
  {
    kind: "tool_call",
    agent: "helper",
    id: `toolu_helper_${k}`,
    name: "read",
    input: { path: "h" },
  },
];

/** `steps` with an aside put in at each place `at` picks. */
function withAsides(steps: readonly Step[], at: readonly number[]): Step[] {
  const out = [...steps];
  at.forEach((p, k) => out.splice(p % (out.length + 1), 0, ...aside(k)));
  return out;
}

/** The lead's calls a log leaves open, in log order: a result answers the earliest open call with
 *  its id (ids may repeat). */
function openCalls(steps: readonly Step[]): string[] {
  const open: string[] = [];
  for (const s of steps) {
    if (s.agent !== "lead") continue;
    if (s.kind === "tool_call") open.push(s.id);
    if (s.kind === "tool_result" && open.includes(s.id)) open.splice(open.indexOf(s.id), 1);
  }
  return open;
}

const asides = fc.array(fc.nat(), { maxLength: 2 });

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
      fc.tuple(rounds, asides),
      async ([turns, at]) => {
        const { agent, steps } = await played(module, kit, turns);
        // Notes and other agents' steps in the log are not the lead's conversation.
        const got = module.historyFrom(withAsides(steps, at));
        const differs = firstDifference(got, agent.messages);
        expectThat(
          got.map(shapeOf).join() === agent.messages.map(shapeOf).join(),
          "history-differs",
          {
            turns: JSON.stringify(turns),
            ...differs,
          },
        );
      },
      { runs: 12 },
    );
  },
};

export const cutHistoryAccepted: Check<M> = {
  id: "cut-history-accepted",
  limitMs: 30_000,
  async run(module, kit) {
    await forAll(
      fc.tuple(rounds, fc.nat(), fc.boolean()),
      async ([turns, pick, afterAnswer]) => {
        const { steps } = await played(module, kit, turns);
        // Where the kill came: after any step, or (half the time) right after an answer, before
        // its calls were logged: an answer with no text is then an empty message.
        const answers = steps.flatMap((s, i) => (s.kind === "response" ? [i + 1] : []));
        const end =
          afterAnswer && answers.length
            ? answers[pick % answers.length]
            : 1 + (pick % steps.length);
        const cut = steps.slice(0, end);
        const history = module.historyFrom(cut);
        // The API takes no message without content.
        const empty = history.findIndex((m) => m.content.length === 0);
        expectThat(empty < 0, "cut-empty-message", { at: cut.length, index: empty + 1 });
        const left = unanswered(history);
        expectThat(left.length === 0, "cut-unanswered", { at: cut.length, ids: left.join(", ") });
        const twice = history.findIndex((m, i) => i > 0 && history[i - 1].role === m.role);
        expectThat(twice < 0, "cut-same-role", { at: cut.length, index: twice + 1 });
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
      fc.tuple(rounds, fc.nat(), fc.boolean(), asides),
      async ([turns, pick, midAnswer, at]) => {
        const { steps } = await played(module, kit, turns);
        const log = reusedIds(steps);
        // Where the kill came: after any step, or (half the time) right after one of the calls.
        const calls = log.flatMap((s, i) => (s.kind === "tool_call" ? [i + 1] : []));
        const end =
          midAnswer && calls.length ? calls[pick % calls.length] : 1 + (pick % log.length);
        // The log a kill left, with a helper's open call and a note in it.
        const cut = withAsides(log.slice(0, end), at);
        const closing = module.closeUnfinished(cut);
        const open = openCalls(cut);
        const results = closing.filter((s) => s.kind === "tool_result");
        const answered = results.map((s) => `${s.agent}:${s.kind === "tool_result" ? s.id : ""}`);
        const sorted = (ids: string[]) => [...ids].sort().join(", ");
        expectThat(
          sorted(answered) === sorted(open.map((id) => `lead:${id}`)),
          "closed-wrong-calls",
          {
            at: cut.length,
            got: sorted(answered) || "—",
            expected: sorted(open.map((id) => `lead:${id}`)) || "—",
          },
        );
        expectThat(
          results.every((s) => s.kind === "tool_result" && s.is_error),
          "closing-not-error",
          { at: cut.length },
        );
        // The closing steps are the lead's: the log is the lead's conversation to resume.
        const others = closing.filter((s) => s.agent !== "lead");
        expectThat(others.length === 0, "closing-not-lead", {
          got: others.map((s) => `${s.kind} of ${JSON.stringify(s.agent)}`).join(", "),
        });
        if (open.length === 0) {
          expectThat(closing.length === 0, "closed-nothing-open", { at: cut.length });
          return;
        }
        const notes = closing.flatMap((s) => (s.kind === "note" ? [s.text] : []));
        const numbers = notes.map((t) => (t.match(/\d+/g) ?? []).join());
        expectThat(
          notes.length === 1 &&
            closing.length === results.length + 1 &&
            numbers[0] === `${open.length}`,
          "closing-note",
          { n: open.length, notes: notes.map((t) => `"${t}"`).join(", ") || "—" },
        );
        const left = unanswered(module.historyFrom([...cut, ...closing]));
        expectThat(left.length === 0, "still-open", { at: cut.length, ids: left.join(", ") });
      },
      { runs: 24 },
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
    const files: string[] = [];
    let stateDir = "";
    // Sessions begun one after another, until the folder lists the latest one somewhere but last:
    // a folder's order is the file system's (a hash on ext4, newest first on tmpfs), not the
    // order the sessions started in. (A file system that lists names as they were made cannot
    // tell the two apart; after 8 sessions the check goes on with what it has.)
    while (ids.length < 8) {
      // A log's start is stamped to the millisecond: two sessions begun within one have no
      // latest (the check failed once that way), so each waits for the clock to move.
      const now = Date.now();
      while (Date.now() === now) await new Promise((tick) => setImmediate(tick));
      const env = kit.env([say("ok")], { workspace });
      const agent = module.createAgent(env, {});
      await agent.send(`session ${ids.length + 1}`);
      await agent.close?.();
      ids.push(agent.session.id);
      files.push(agent.session.file);
      stateDir = env.stateDir;
      const listed = readdirSync(module.sessionsDir(stateDir)).filter((n) => n.endsWith(".jsonl"));
      if (ids.length >= 2 && listed.at(-1) !== `${ids.at(-1)}.jsonl`) break;
    }
    const latest = ids.length - 1;
    // The first session goes on later: its log is now the last written, yet the latest one
    // still started last.
    const first = module.createAgent(kit.env([say("ok")], { workspace }), { resume: ids[0] });
    await first.send("the first session again");
    await first.close?.();
    // File times are coarse (a few ms): say outright that the latest was written a second before.
    const written = new Date(statSync(first.session.file).mtimeMs - 1000);
    utimesSync(files[latest], written, written);
    const agent = continued(module, kit.env([say("ok")], { workspace }));
    await agent.close?.();
    expectThat(agent.session.id === ids[latest], "not-latest", {
      got: agent.session.id,
      expected: ids[latest],
    });
    const prompt = `session ${latest + 1}`;
    expectThat(JSON.stringify(agent.messages).includes(prompt), "history-lost", {
      prompt: JSON.stringify(prompt),
    });
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
          "after it (in log order: ids may repeat), a tool_result step with NOT_FINISHED and",
          "is_error true, then one note saying how many; [] when nothing is open.",
        ].join("\n"),
      },
    ],
    checks: [historyIsTheConversation, cutHistoryAccepted, unfinishedAnswered, resumesAfterKill],
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
