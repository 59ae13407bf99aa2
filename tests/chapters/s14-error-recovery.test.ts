import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as s14 from "../../chapters/s14-error-recovery/agent.ts";
import {
  classify,
  createAgent,
  SPEND_CAP,
  type RecoveryOptions,
} from "../../chapters/s14-error-recovery/agent.ts";
import { LEAD, type TeamAgent } from "../../chapters/s13-agent-teams/agent.ts";
import type { TeamOptions } from "../../chapters/s13-agent-teams/extension-points.ts";
import scenario from "../../chapters/s14-error-recovery/scenario.ts";
import { createIO } from "../../chapters/_runner/printer.ts";
import { describeModelError, realClient } from "../../chapters/_runner/model.ts";
import { createChapterAgent, createEnv, playScenario } from "../../chapters/_runner/runtime.ts";
import { ScriptedModel } from "../../chapters/_runner/scripted-model.ts";
import { fail, say, use } from "../../chapters/_shared/scripted.ts";
import type { ChapterModule, ScriptedTurn } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, testKit, toolNames } from "../support/helpers.ts";
import {
  backoffCapped,
  classifiesFailures,
  overloadBackoff,
  retryAfterWins,
  tooLongCompacts,
} from "../../chapters/s14-error-recovery/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import {
  apiError,
  endTurn,
  errorMidStream,
  startFakeApi,
  type FakeApi,
  type FakeReply,
} from "../support/fake-api.ts";
import { closedAfterEach, FAST, requestsOf, text } from "../support/team-helpers.ts";

type Env = ReturnType<typeof scriptedEnv>;

const running = closedAfterEach<TeamAgent>();

/** A team whose waits are recorded instead of slept. */
function recovering(
  script: Record<string, ScriptedTurn[]>,
  options: RecoveryOptions & TeamOptions = {},
) {
  const env = scriptedEnv(script);
  const delays: number[] = [];
  const agent = createAgent(env, {
    ...FAST,
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...options,
  });
  running.push(agent);
  return { env, agent, team: agent.team, delays };
}

const overloaded = () => fail(529, "overloaded_error", "Overloaded");
const tooLong = () =>
  fail(400, "invalid_request_error", "prompt is too long: 214903 tokens > 200000 maximum");
const cutOff = (text: string): ScriptedTurn => ({ text, stop_reason: "max_tokens" });
const notes = (env: Env, agent = LEAD) =>
  env.io.trace.flatMap((e) => (e.kind === "note" && e.agent === agent ? [e.text] : []));

describe("s14 error recovery", () => {
  it("keeps s13's tools: 10 for the lead, 6 for a teammate", async () => {
    const { env, agent, team } = recovering({
      lead: [use("spawn", { name: "alice", role: "dev", prompt: "hi" }), say("ok")],
      alice: [say("hi")],
    });
    await agent.send("go");
    await team.waitUntilSettled();
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s14.lead);
    expect(toolNames(env, "alice")).toEqual(CURRICULUM_TOOLS.s14.teammate);
    expect(s14.TOOLS.map((t) => t.name)).toEqual(toolNames(env));
  });

  for (const check of [
    classifiesFailures,
    overloadBackoff,
    backoffCapped,
    retryAfterWins,
    tooLongCompacts,
  ])
    it(`behaviour: ${check.id}`, () => check.run(s14, testKit()));

  it("rate limits and server errors are retried; a third failure gives up; other errors are not retried", async () => {
    expect(classify(new Error("x"))).toBe("fatal");
    const retried = recovering({
      lead: [
        fail(429, "rate_limit_error", "slow down"),
        fail(503, "api_error", "unavailable"),
        say("ok"),
      ],
    });
    await retried.agent.send("go");
    expect(retried.delays).toHaveLength(2);

    const exhausted = recovering({
      lead: [overloaded(), overloaded(), overloaded(), say("never reached")],
    });
    await expect(exhausted.agent.send("go")).rejects.toThrow(/Overloaded/);
    expect(requestsOf(exhausted.env, LEAD)).toHaveLength(3);
    expect(notes(exhausted.env).at(-1)).toMatch(/giving up after 3 tries/);

    const fatal = recovering({
      lead: [fail(401, "authentication_error", "invalid x-api-key"), say("never reached")],
    });
    await expect(fatal.agent.send("go")).rejects.toThrow(/invalid x-api-key/);
    expect(requestsOf(fatal.env, LEAD)).toHaveLength(1);
    expect(fatal.delays).toEqual([]);
  });

  it("max_tokens: asks to continue up to 3 times; the 4th cut-off in a row stops with a note", async () => {
    const finishing = recovering({
      lead: [cutOff("part 1"), cutOff(" part 2"), cutOff(" part 3"), say(" end")],
    });
    await finishing.agent.send("write a long answer");
    expect(requestsOf(finishing.env, LEAD)).toHaveLength(4);
    const history = finishing.agent.messages.map(text);
    expect(history).toEqual([
      "write a long answer",
      "part 1",
      expect.stringMatching(/^Your reply was cut off/),
      " part 2",
      expect.stringMatching(/^Your reply was cut off/),
      " part 3",
      expect.stringMatching(/^Your reply was cut off/),
      " end",
    ]);

    const endless = recovering({
      lead: [cutOff("a"), cutOff("b"), cutOff("c"), cutOff("d"), say("never reached")],
    });
    await endless.agent.send("write a long answer");
    expect(requestsOf(endless.env, LEAD)).toHaveLength(4);
    expect(notes(endless.env).at(-1)).toMatch(/cut off at max_tokens 4 times in a row: stopping/);
    expect(endless.agent.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("prompt too long: the transcript is saved, the history compacted, and the retry succeeds", async () => {
    const { env, agent } = recovering({
      lead: [
        use("bash", { command: "echo lots of output" }),
        tooLong(),
        say("SUMMARY: ran echo"),
        say("done after compaction"),
      ],
    });
    await agent.send("do something long");
    const transcripts = readdirSync(path.join(env.workspace, ".transcripts"));
    expect(transcripts).toHaveLength(1);
    const saved = readFileSync(path.join(env.workspace, ".transcripts", transcripts[0]), "utf8");
    expect(saved).toContain("do something long");
    const retry = requestsOf(env, LEAD).at(-1)!.body;
    expect(retry.messages).toHaveLength(1);
    expect(text(retry.messages[0])).toMatch(
      /^\[This conversation was compacted[\s\S]*SUMMARY: ran echo/,
    );
    expect(text(agent.messages.at(-1)!)).toBe("done after compaction");
  });

  it("a compacted teammate gets its identity block first in its new history", async () => {
    const { env, team } = recovering({
      alice: [
        use("bash", { command: "echo working" }),
        tooLong(),
        say("SUMMARY: alice ran echo"),
        say("finished"),
      ],
    });
    team.spawn("alice", "log analyst", "Start working.");
    expect(await team.waitUntilSettled()).toBe(true);
    const afterCompaction = requestsOf(env, "alice").at(-1)!.body;
    expect(afterCompaction.messages).toHaveLength(1);
    const first = text(afterCompaction.messages[0]);
    expect(
      first.startsWith("<identity>\nname: alice\nrole: log analyst\nteam lead: lead\n</identity>"),
    ).toBe(true);
    expect(first).toContain("SUMMARY: alice ran echo");
    expect(team.bus.peek(LEAD)[0]).toMatchObject({ type: "result", ok: true, content: "finished" });
  });

  it("a teammate that gives up keeps its task (in progress, its owner) and reports the failure to the lead", async () => {
    const { team, delays } = recovering({
      alice: [say("hello"), overloaded(), overloaded(), overloaded(), say("never reached")],
    });
    const task = team.board.create({ subject: "fragile work" });
    team.spawn("alice", "dev", "hi");
    expect(await team.waitUntilSettled()).toBe(true);
    expect(delays).toHaveLength(2);
    expect(team.board.get(task.id)).toMatchObject({ status: "in_progress", owner: "alice" });
    expect(team.members.get("alice")).toMatchObject({ task: task.id, state: "idle" });
    const report = team.bus.peek(LEAD).find((m) => m.type === "result" && m.ok === false);
    expect(report).toMatchObject({
      task: task.id,
      content: expect.stringMatching(/gave up: 529 overloaded_error/),
    });
  });

  it("plays its scenario offline: notes.md written after every kind of failure", async () => {
    const ws = tempDir();
    const slept: number[] = [];
    const instant: ChapterModule = {
      TOOLS: s14.TOOLS,
      // the scenario's own options (its demo's backoff) come through; only the sleep is recorded
      createAgent: (env, options) =>
        createAgent(env, { ...options, sleep: async (ms) => void slept.push(ms) }),
    };
    const { env } = await playScenario(instant, scenario, ws);
    // The demo's waits are fixed: the lead's backoff 250 ms and 500 ms, alice's retry-after 100 ms.
    expect([...slept].sort((a, b) => a - b)).toEqual([100, 100, 250, 500]);
    expect(readFileSync(path.join(ws, "notes.md"), "utf8")).toContain("db timeout");
    expect(
      JSON.parse(readFileSync(path.join(stateDirFor(ws), "tasks", "task_1.json"), "utf8")),
    ).toMatchObject({ status: "completed", owner: "alice" });
    expect(existsSync(path.join(ws, ".transcripts"))).toBe(true);
    const kinds = env.io.trace.flatMap((e) =>
      e.kind === "event" && e.type === "recovery" ? [`${e.agent}:${e.data.kind}`] : [],
    );
    expect(kinds).toEqual(
      expect.arrayContaining([
        "lead:backoff",
        "alice:too_long",
        "alice:backoff",
        "lead:max_tokens",
      ]),
    );
  });

  it("a run against a real API keeps the real backoff: 500 ms, then 1 s, each plus up to 50 % jitter", async () => {
    // A client that is not the scripted model (the scenario's demo settings must not apply), and
    // the chapter's own sleep: the test really waits, 625 ms and 1250 ms with the jitter at 0.5.
    const client = new ScriptedModel({ lead: [overloaded(), overloaded(), say("made it")] });
    const env = createEnv({ workspace: tempDir(), client: client.for("lead") });
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    try {
      const agent = createChapterAgent(s14, env, scenario) as TeamAgent;
      running.push(agent);
      const start = performance.now();
      await agent.send("hello");
      const waited = performance.now() - start;
      const delays = env.io.trace.flatMap((e) =>
        e.kind === "event" && e.type === "recovery" && e.data.kind === "backoff"
          ? [e.data.delay]
          : [],
      );
      expect(delays).toEqual([625, 1250]);
      expect(waited).toBeGreaterThanOrEqual(1_800);
      expect(text(agent.messages.at(-1)!)).toBe("made it");
    } finally {
      vi.restoreAllMocks();
    }
  });
});

// The same recovery with the real SDK client, against a local fake of the Messages API: what is
// counted here is HTTP requests, so a retry hidden in the SDK would show.
describe("s14 with the real client", () => {
  let api: FakeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  async function realTeam(replies: FakeReply[]) {
    api = await startFakeApi(replies);
    const client = await realClient({ ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url });
    const env = createEnv({ workspace: tempDir(), client, modelId: "test-model", io: createIO() });
    const delays: number[] = [];
    const agent = createAgent(env, { ...FAST, sleep: async (ms) => void delays.push(ms) });
    running.push(agent);
    const notes = () =>
      env.io.trace.flatMap((e) => (e.kind === "note" && e.agent === LEAD ? [e.text] : []));
    return { agent, delays, notes, requests: api.requests };
  }

  const rateLimited = () =>
    apiError(429, "rate_limit_error", "Number of requests has exceeded your rate limit", {
      retryAfterSeconds: 0,
    });

  it("an overload reported mid-stream as an error event is retried like a 529", async () => {
    const { agent, notes, requests } = await realTeam([
      errorMidStream("overloaded_error", "Overloaded"),
      endTurn("done after the overload"),
    ]);
    await agent.send("go");
    expect(requests).toHaveLength(2);
    expect(notes().some((n) => /try 1\/3 failed/.test(n))).toBe(true);
  });

  it("each try is one request: three rate limits are three requests, then it gives up", async () => {
    const { agent, delays, notes, requests } = await realTeam([
      rateLimited(),
      rateLimited(),
      rateLimited(),
      endTurn("never reached"),
    ]);
    await expect(agent.send("go")).rejects.toThrow(/rate limit/);
    expect(requests).toHaveLength(3);
    expect(delays).toEqual([0, 0]); // the server's retry-after: 0
    expect(notes().filter((n) => /try \d\/3 failed|giving up/.test(n))).toEqual([
      expect.stringMatching(/try 1\/3 failed/),
      expect.stringMatching(/try 2\/3 failed/),
      expect.stringMatching(/giving up after 3 tries/),
    ]);
  });

  it("the 429 of a monthly spend cap is not retried: one request, no wait, and the user reads when access resumes", async () => {
    const message =
      "You have reached your API usage limits: your organization has crossed its monthly API usage threshold. You will regain access on 2026-09-01 at 00:00 UTC.";
    const { agent, delays, requests } = await realTeam([
      apiError(429, "rate_limit_error", message, { errorCode: SPEND_CAP }), // and no retry-after
      endTurn("never reached"),
    ]);
    const failure = await agent.send("go").catch((err: unknown) => err);
    expect(classify(failure)).toBe("fatal");
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(describeModelError(failure, "test-model")).toBe(
      `The organization reached its monthly spend cap (429): ${message}`,
    );
  });
});
