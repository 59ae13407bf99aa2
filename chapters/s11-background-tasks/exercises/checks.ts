// s11's exercises: rebuild the result queue (finished commands queued, injected before the next
// request in the order they finished, each exactly once, and a turn that waits for a result still
// to come); extend it with background_kill. The behaviours are the curriculum's for s11, and
// tests/chapters/s11-background-tasks.test.ts runs the same ones against the chapter's own code.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { say, use } from "../../_shared/scripted.ts";
import type { MessageParam, ScriptedTurn } from "../../_shared/types.ts";
import type * as S11 from "../agent.ts";
import {
  change,
  CheckFailure,
  expectThat,
  type Check,
  type CheckEnv,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S11;

/** All text the harness injected as background results, across a history. */
const injected = (messages: MessageParam[]): string =>
  messages
    .filter((m) => m.role === "user")
    .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
    .flatMap((b) => (b.type === "text" && b.text.includes("<background-results>") ? [b.text] : []))
    .join("\n");

const toolOutputs = (env: CheckEnv) =>
  env.io.trace.flatMap((e) => (e.kind === "tool_result" ? [e.output] : []));

const count = (text: string, what: string) => text.split(what).length - 1;

/** The script, and after it a turn that stops a loop which keeps calling the model (a result
 *  injected again and again, say): a failure, not a check that never ends. */
const guarded = (turns: ScriptedTurn[]): ScriptedTurn[] => [
  ...turns,
  () => {
    throw new CheckFailure("runaway", { requests: turns.length + 1 });
  },
];

/** Resolves once `done()` holds (or after 10 s: the check then says what it found). */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/** Plays the script on a fresh agent and closes it (no command outlives the check). */
async function play(module: M, env: CheckEnv, prompt = "go") {
  const agent = module.createAgent(env);
  try {
    await agent.send(prompt);
  } finally {
    await agent.close?.();
  }
  return agent;
}

export const returnsAtOnce: Check<M> = {
  id: "returns-at-once",
  async run(module, kit) {
    const workspace = kit.workspace();
    const env = kit.env(
      guarded([
        // The command cannot finish until the file "go" exists, and only the next turn creates it.
        use("background_run", { command: "while [ ! -f go ]; do sleep 0.05; done; echo finished" }),
        () => {
          writeFileSync(path.join(workspace, "go"), "");
          return use("check_background", { id: "bg_1" });
        },
        say("waiting"),
        say("done"),
      ]),
      { workspace },
    );
    const agent = await play(module, env);
    const [started, check] = toolOutputs(env);
    expectThat(started?.startsWith("Started bg_1"), "not-started-at-once", {
      got: started ?? "nothing",
    });
    expectThat(check?.startsWith("[bg_1] running"), "not-running", { got: check ?? "nothing" });
    const text = injected(agent.messages);
    expectThat(/\[bg_1\] completed \(exit 0\)[^\n]*\nfinished/.test(text), "result-missing", {
      job: "bg_1",
      got: text || "nothing",
    });
  },
};

export const deliveredOnce: Check<M> = {
  id: "delivered-once",
  async run(module, kit) {
    const env = kit.env(
      guarded([
        use("background_run", { command: "echo one" }),
        use("background_run", { command: "echo two" }),
        say("waiting for both"),
        say("waiting for the other"),
        use("bash", { command: "echo later work" }),
        say("done"),
      ]),
    );
    await play(module, env);
    // The last request holds the whole history: each result in it once, injected once.
    const last = injected(env.requests.at(-1)?.body.messages ?? []);
    for (const job of ["bg_1", "bg_2"]) {
      const times = count(last, `[${job}] completed`);
      expectThat(times === 1, times === 0 ? "result-missing" : "result-twice", {
        job,
        times,
        got: last || "nothing",
      });
    }
    // The trace hears of each result once too (the site's player shows it with that event).
    const events = env.io.trace.flatMap((e) =>
      e.kind === "event" && e.type === "background_result"
        ? [`${String(e.data.id)} ${String(e.data.status)}`]
        : [],
    );
    expectThat(events.length === 2, "events-wrong", { got: events.length });
    const said = [...events].sort().join(", ");
    expectThat(said === "bg_1 completed, bg_2 completed", "event-data-wrong", {
      got: said,
      expected: "bg_1 completed, bg_2 completed",
    });
  },
};

export const inFinishOrder: Check<M> = {
  id: "in-finish-order",
  limitMs: 15_000,
  async run(module, kit) {
    const env = kit.env([]);
    const jobs = new module.BackgroundJobs(env.workspace, env.sandbox);
    try {
      // bg_2 finishes first: bg_1 waits for a file written only once bg_2 has finished.
      jobs.start("while [ ! -f go ]; do sleep 0.05; done; echo one");
      jobs.start("echo two");
      await until(() => jobs.get("bg_2").status !== "running");
      writeFileSync(path.join(env.workspace, "go"), "");
      await until(() => jobs.running === 0);
      const messages: MessageParam[] = [];
      module.injectBackgroundResults(env, jobs, messages);
      const text = injected(messages);
      for (const job of ["bg_1", "bg_2"])
        expectThat(text.includes(`[${job}]`), "result-missing", { job, got: text || "nothing" });
      const order = text.indexOf("[bg_2]") < text.indexOf("[bg_1]") ? "bg_2, bg_1" : "bg_1, bg_2";
      expectThat(order === "bg_2, bg_1", "wrong-order", { got: order });
      const before = messages.length;
      module.injectBackgroundResults(env, jobs, messages);
      expectThat(messages.length === before, "injected-again", {
        got: injected(messages.slice(before)),
      });
    } finally {
      await jobs.close();
    }
    await finishRule(module, kit);
  },
};

// ---- The queue's rule, tried on generated finishing orders (a property check) ----

/** Up to three commands, each waiting for a file of its own; the files are written in a
 *  generated order, and after some of the commands finish the results are injected (the model
 *  would be called then). Every injection holds exactly the results finished since the last one,
 *  in the order they finished, as one message; none is handed out twice. */
const finishArb = fc.integer({ min: 1, max: 3 }).chain((n) =>
  fc.tuple(
    fc.shuffledSubarray(
      Array.from({ length: n }, (_, i) => i + 1),
      { minLength: n, maxLength: n },
    ),
    fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  ),
);

async function finishRule(module: M, kit: CheckKit) {
  await forAll(
    finishArb,
    async ([order, injectAfter]) => {
      const env = kit.env([]);
      const jobs = new module.BackgroundJobs(env.workspace, env.sandbox);
      const messages: MessageParam[] = [];
      const story: string[] = [];
      let expected: number[] = [];
      const injectNow = () => {
        const before = messages.length;
        const traced = env.io.trace.length;
        module.injectBackgroundResults(env, jobs, messages);
        const added = messages.slice(before);
        const events = env.io.trace
          .slice(traced)
          .flatMap((e) =>
            e.kind === "event" && e.type === "background_result" ? [String(e.data.id)] : [],
          );
        const text = injected(added);
        const got = [...text.matchAll(/\[bg_(\d+)\]/g)].map((m) => Number(m[1]));
        story.push("inject");
        // The block is fenced: it opens and closes with its tags, so the model sees where it ends.
        const fenced = added.every((m) =>
          /^<background-results>\n[\s\S]*\n<\/background-results>$/.test(injected([m])),
        );
        expectThat(fenced, "not-fenced", { got: injected(added) });
        expectThat(
          got.join() === expected.join() && added.length === (expected.length ? 1 : 0),
          "rule-injected",
          {
            story: story.join(", "),
            got: `${got.map((id) => `bg_${id}`).join(", ") || "nothing"} in ${added.length} message(s)`,
            expected: `${expected.map((id) => `bg_${id}`).join(", ") || "nothing"} in ${expected.length ? 1 : 0}`,
          },
        );
        const named = expected.map((id) => `bg_${id}`).join(", ");
        expectThat(events.join(", ") === named, "rule-events", {
          story: story.join(", "),
          got: events.join(", ") || "none",
          expected: named || "none",
        });
        expected = [];
      };
      try {
        for (let i = 1; i <= order.length; i++)
          jobs.start(`while [ ! -f go-${i} ]; do sleep 0.02; done; echo job ${i}`);
        for (const [step, id] of order.entries()) {
          writeFileSync(path.join(env.workspace, `go-${id}`), "");
          await until(() => jobs.get(`bg_${id}`).status !== "running");
          story.push(`bg_${id} finishes`);
          expected.push(id);
          if (injectAfter[step]) injectNow();
        }
        injectNow();
        injectNow();
      } finally {
        await jobs.close();
      }
    },
    { runs: 6 },
  );
}

export const waitsForPending: Check<M> = {
  id: "waits-for-pending",
  async run(module, kit) {
    const env = kit.env(
      guarded([
        use("background_run", { command: "sleep 0.3; echo slow result" }),
        say("I'm done for now."), // the command is still running here
        say("got it"),
      ]),
    );
    await play(module, env);
    expectThat(env.requests.length === 3, "ended-early", { requests: env.requests.length });
    const text = injected(env.requests[2].body.messages);
    expectThat(text.includes("slow result"), "result-missing", {
      job: "bg_1",
      got: text || "nothing",
    });
    await turnEndRule(module, kit);
  },
};

/** turnCanEnd on its own, in each state of the queue: nothing at all (the turn may end); a result
 *  queued, whether or not another command runs (it may not: the model reads the result next); a
 *  command running and the session closed while the turn waits for it (it may: nothing will come). */
async function turnEndRule(module: M, kit: CheckKit) {
  const env = kit.env([]);
  const jobs = new module.BackgroundJobs(env.workspace, env.sandbox);
  const ask = async (state: string, expected: boolean) => {
    const got = await module.turnCanEnd(env, jobs);
    expectThat(got === expected, expected ? "turn-kept-open" : "turn-ended-with-result", {
      state: `@turn-${state}`,
    });
  };
  try {
    await ask("nothing", true);
    jobs.start("echo quick");
    await until(() => jobs.running === 0);
    await ask("queued", false);
    jobs.start("while [ ! -f go ]; do sleep 0.05; done");
    await ask("queued-running", false);
    jobs.drain();
    const waiting = module.turnCanEnd(env, jobs); // nothing queued, one running: it waits
    await jobs.close();
    const got = await waiting;
    expectThat(got === true, "turn-kept-open", { state: "@turn-closed" });
  } finally {
    await jobs.close();
  }
}

// #region extend checks
export const killStops: Check<M> = {
  id: "kill-stops",
  async run(module, kit) {
    const env = kit.env(
      guarded([
        use("background_run", { command: "sleep 30; echo too late" }),
        use("background_kill", { id: "bg_1" }),
        use("check_background", { id: "bg_1" }),
        use("background_kill", { id: "bg_9" }),
        say("done"),
      ]),
    );
    const tools = module.TOOLS.map((t) => t.name);
    expectThat(tools.includes("background_kill"), "no-kill-tool", { tools: tools.join(", ") });
    const started = Date.now();
    const agent = await play(module, env);
    const results = env.io.trace.flatMap((e) =>
      e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
    );
    const [, kill, check, unknown] = results;
    expectThat(kill && !kill.isError, "kill-refused", { got: kill?.output ?? "nothing" });
    expectThat(check?.output.startsWith("[bg_1] killed"), "not-killed", {
      got: check?.output ?? "nothing",
    });
    expectThat(unknown?.isError, "kill-unknown", { got: unknown?.output ?? "nothing" });
    const seconds = Math.round((Date.now() - started) / 1000);
    expectThat(seconds < 20, "kill-waited", { seconds });
    // Once the command has ended for good, it is still killed (not "failed" by its signal).
    const listed = (await agent.commands?.["/jobs"]?.run("")) ?? "";
    expectThat(listed.startsWith("[bg_1] killed"), "not-killed", { got: listed || "nothing" });
    const text = injected(agent.messages);
    expectThat(count(text, "[bg_1]") <= 1, "result-twice", { job: "bg_1", times: 2, got: text });
    expectThat(!text.includes("too late"), "kill-ran-on", { got: text });
  },
};
// #endregion extend checks

export const exercises: Exercise<M>[] = [
  {
    id: "s11",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "drain",
        contract: [
          "The queue (this.queue) holds the finished jobs the model has not seen, in the order",
          "they finished (notify() appends). Return them all, in that order, and leave the queue",
          "empty: each result is handed out exactly once.",
        ].join("\n"),
      },
      {
        name: "injectBackgroundResults",
        contract: [
          "Called before every model call. Take the finished jobs out of the queue (jobs.drain());",
          "if there are none, push nothing. Otherwise push ONE user message whose text is",
          "<background-results>, then per job headline(job), a newline and job.output, then",
          "</background-results>; and for each job env.io.event('background_result', { id, status }),",
          "then one env.io.note naming them.",
        ].join("\n"),
      },
      {
        name: "turnCanEnd",
        contract: [
          "The model answered without a tool call. Return true when the turn may end: nothing",
          "queued and nothing running. A queued result means false (the model reads it next).",
          "Nothing queued but a command running: note that you wait, await jobs.nextResult(), then",
          "return false if a result came in, true if not (the session closed meanwhile).",
        ].join("\n"),
      },
    ],
    checks: [returnsAtOnce, deliveredOnce, inFinishOrder, waitsForPending],
  },
  {
    id: "s11.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      tools: change(
        "];\nexport const TOOLS",
        `  {
    name: "background_kill",
    description: "Stop a running background command (and everything it started) by id.",
    input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  },
];
export const TOOLS`,
      ),
      job: change(
        'export type JobStatus = "running" | "completed" | "failed" | "timeout";',
        '/** killed: stopped by background_kill; its result is not injected (the model asked for it). */\nexport type JobStatus = "running" | "completed" | "failed" | "timeout" | "killed";',
      ),
      start: (reference) =>
        change(
          '        job.status = result.timedOut ? "timeout" : result.exitCode === 0 ? "completed" : "failed";\n        if (this.closed) this.unseen.push(job);',
          '        if (job.status === "killed") return;\n        job.status = result.timedOut ? "timeout" : result.exitCode === 0 ? "completed" : "failed";\n        if (this.closed) this.unseen.push(job);',
        )(reference),
      queue: change(
        "  /** Resolves when a result is queued",
        `  /** Stops one running command, with all its children. */
  kill(id: string): BackgroundJob {
    const job = this.get(id);
    if (job.status !== "running") throw new Error(\`\${id} is not running (it is \${job.status})\`);
    job.status = "killed";
    this.runs.get(id)!.kill();
    return job;
  }

  /** Resolves when a result is queued`,
      ),
      handlers: change(
        "    check_background({ id }) {",
        `    background_kill({ id }) {
      const job = jobs.kill(String(id ?? ""));
      return \`Killed \${job.id}: \${job.command}\`;
    },
    check_background({ id }) {`,
      ),
    },
    checks: [killStops, returnsAtOnce, deliveredOnce],
  },
];
