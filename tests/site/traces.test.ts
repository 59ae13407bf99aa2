// The recorded runs the site's player and generated sequence diagrams show (site/traces/<id>.json)
// must still be what the chapter does today: each chapter's and appendix's scenario is played again
// in a temp workspace and compared with the committed trace (see canonicalTrace for what is
// compared). The same run is written as `--record` writes it and read back as the player reads a
// learner's recording: the same steps, the same player steps.
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { describe, expect, it } from "vitest";
import { allRunnable, loadChapter } from "../../chapters/_runner/chapters.ts";
import { machineSecrets, startRecording } from "../../chapters/_runner/recording.ts";
import { TRACE_VERSION, type TraceEvent, type TraceFile } from "../../chapters/_trace/contract.ts";
import { scrubber } from "../../chapters/_trace/scrub.ts";
import english from "../../i18n/ui.en.json";
import { playerSteps } from "../../site/lib/player.ts";
import { readTrace, recordTrace, TRACES_DIR } from "../../site/lib/record-trace.ts";
import { readRecording } from "../../site/lib/recording.ts";
import { stateTimeline } from "../../site/lib/run-state.ts";
import { translator } from "../../site/lib/ui-text.ts";
import { canonicalTrace, traceDifference } from "../../site/lib/trace-compare.ts";
import { agentsOf, normalizeTrace } from "../../site/lib/trace-normalize.ts";
import { sequenceFromTrace } from "../../site/lib/trace-sequence.ts";
import { stepView } from "../../site/lib/trace-view.ts";
import { teamDifference } from "../../site/lib/trace-counts.ts";
import { budget } from "../support/budgets.ts";

const chapters = allRunnable();
const t = translator(english, "en");
const NO_NOTES = { local: { phases: {}, notes: {} }, english: { phases: {}, notes: {} } };
const ADVICE =
  "Run `npm run traces` to record it again, look at the diff of site/traces/, and commit it.";

describe("recorded traces match what the chapters do today", () => {
  for (const info of chapters) {
    // One run of each chapter serves both claims: `npm run traces` would record the committed
    // trace again, and `--record` writes the same run as a file the player reads back.
    // Concurrent: most of a run is waiting (commands, polling, s14's real backoff sleeps).
    it.concurrent(
      `${info.id}: site/traces/${info.id}.json, and the same run written by --record and read back`,
      async ({ expect }) => {
        const committed = readTrace(info.id);
        if (!committed) throw new Error(`site/traces/${info.id}.json is missing. ${ADVICE}`);
        const { scenario } = await loadChapter(info);
        const dir = mkdtempSync(path.join(tmpdir(), "lah-rec-file-"));
        const file = path.join(dir, "run.jsonl");
        let workspace = "";
        let places: string[] = []; // the workspace, by its name and as the disk resolves it
        let recording: ReturnType<typeof startRecording> | undefined;
        const taken: TraceEvent[] = [];
        try {
          // One run, no retries: what legitimately varies between runs (which teammate took
          // which task, the interleaving, timings, made-up ids, pids, temp paths, commit hashes)
          // is blanked by canonicalTrace; who is on the team and how often each piece of work
          // was done are not.
          const today = await recordTrace(info, {
            playedIn(played) {
              workspace = played;
              places = [played, realpathSync(played)];
              // What `npm run chapter <id> -- --record FILE` does (run.ts): the same writer, fed
              // by every step the IO keeps, scrubbed of the workspace's paths.
              recording = startRecording(
                file,
                {
                  chapter: info.id,
                  name: info.name,
                  title: info.name,
                  model: "scripted",
                  prompts: scenario.prompts,
                  summary: scenario.summary,
                },
                places,
              );
            },
            onStep(step) {
              taken.push(step);
              recording!.write(step);
            },
          });
          recording!.close();
          // Gone again, and so is the harness's state beside it (left behind once: 22 folders in
          // the temp dir per recording of the traces).
          expect([workspace, stateDirFor(workspace)].filter((made) => existsSync(made))).toEqual(
            [],
          );
          const difference = traceDifference(committed, today) ?? teamDifference(committed, today);
          if (difference !== null) {
            throw new Error(
              `site/traces/${info.id}.json no longer matches what ${info.name} does today.\n` +
                `First difference: ${difference}\n${ADVICE}`,
            );
          }

          // The recording, read back: exactly the run as the IO kept it, every step, scrubbed as
          // --record scrubs (this machine's user and host too: as root, `ls -la` names root)...
          const read = readRecording(readFileSync(file, "utf8"));
          expect(read.truncated).toBeUndefined();
          expect(read.trace.chapter).toBe(info.id);
          expect(JSON.stringify(read.trace.steps)).not.toContain(places[1]);
          const steps = normalizeTrace(read.trace.steps, []);
          const scrub = scrubber(machineSecrets(places));
          expect(steps).toEqual(normalizeTrace(scrub(taken), []));
          // ...whose steps are the committed trace's, as compared above...
          const played: TraceFile = {
            ...read.trace,
            offered: committed.offered,
            agents: agentsOf(steps),
            steps,
          };
          if (!committed.offered) delete played.offered;
          expect(
            traceDifference(committed, played) ?? teamDifference(committed, played),
          ).toBeNull();
          // ...and the player's list: the same steps in plain words (a team's interleaving
          // varies, so there the lead's own steps in order, and everyone's as a set).
          const words = (trace: TraceFile) =>
            playerSteps(trace, NO_NOTES, t).map((s) => `${s.agent} ${s.kind} ${s.title}`);
          const team =
            committed.agents.length > 1 &&
            committed.steps.some((s) => s.kind === "event" && s.type.startsWith("mailbox_"));
          if (!team) expect(words(played)).toEqual(words(committed));
          else {
            const lead = (trace: TraceFile) =>
              words(trace).filter((w) => w.startsWith("lead ") && !w.startsWith("lead event"));
            expect(lead(played)).toEqual(lead(committed));
            const kinds = (trace: TraceFile) =>
              [...new Set(trace.steps.map((s) => (s.kind === "event" ? s.type : s.kind)))].sort();
            expect(kinds(played)).toEqual(kinds(committed));
          }
          // And the state panel reads it without a wrong type anywhere.
          expect(stateTimeline(played)).toHaveLength(steps.length);
        } finally {
          recording?.close();
          rmSync(dir, { recursive: true, force: true });
        }
      },
      // run beside up to five others (vitest's maxConcurrency), then read back and compared
      budget({ chapterRun: 8 }),
    );
  }

  it("has no trace for a chapter that does not exist", () => {
    const ids = chapters.map((c) => c.id);
    const stray = readdirSync(TRACES_DIR).filter(
      (f) => f.endsWith(".json") && !ids.includes(f.replace(/\.json$/, "")),
    );
    expect(stray, `remove these from site/traces/: ${stray.join(", ")}`).toEqual([]);
  });

  it("keeps machine-specific paths out of the committed traces", () => {
    for (const info of chapters) {
      const text = JSON.stringify(readTrace(info.id) ?? {});
      expect(text, info.id).not.toMatch(/lah-trace-|\/tmp\/|\/home\/|\/Users\//);
      expect(text, info.id).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    }
  });
});

describe("normalising a trace", () => {
  const raw: TraceEvent[] = [
    {
      kind: "request",
      agent: "lead",
      messages: 1,
      tools: ["bash"],
      system: "Work in /tmp/lah-x1/ws.",
    },
    {
      kind: "request",
      agent: "lead",
      messages: 3,
      tools: ["bash"],
      system: "Work in /tmp/lah-x1/ws.",
    },
    {
      kind: "tool_call",
      agent: "lead",
      id: "toolu_lead_7",
      name: "bash",
      input: { command: "ls /tmp/lah-x1/ws" },
    },
    {
      kind: "tool_result",
      agent: "lead",
      id: "toolu_lead_7",
      name: "bash",
      output: "a1b2c3d Add greet()\n9784563 initial commit",
      is_error: false,
    },
    {
      kind: "note",
      agent: "alice",
      text: "quoted 9784563 at 2026-11-30T12:01:52.391Z, saved transcript_1796040107527.jsonl (2.04ms)",
    },
    {
      kind: "event",
      agent: "alice",
      type: "mailbox_send",
      data: {
        id: "msg_mx37wslm_1617_5",
        from: "alice",
        to: "lead",
        type: "result",
        content: "done",
      },
    },
    { kind: "tool_call", agent: "alice", id: "toolu_alice_9", name: "send", input: { to: "lead" } },
    {
      kind: "tool_result",
      agent: "lead",
      id: "toolu_lead_8",
      name: "inbox",
      output: "Sent (msg_mx37wslm_1617_5)",
      is_error: false,
    },
  ];
  const steps = normalizeTrace(raw, ["/tmp/lah-x1/ws"]);

  it("replaces the workspace path, times, durations and commit hashes", () => {
    const text = JSON.stringify(steps);
    expect(text).not.toContain("/tmp/lah-x1");
    expect(text).toContain("ls <workspace>");
    expect(text).toContain("<sha> Add greet()\\n<sha> initial commit");
    expect(text).toContain("quoted <sha> at <time>, saved transcript_<epoch>.jsonl (<n>ms)");
  });

  it("renumbers made-up ids: tool ids per agent, mailbox ids by first appearance", () => {
    expect(
      steps.filter((s) => s.kind === "tool_call").map((s) => s.kind === "tool_call" && s.id),
    ).toEqual(["toolu_lead_1", "toolu_alice_1"]);
    expect(JSON.stringify(steps)).toContain('"id":"msg_1"');
    expect(JSON.stringify(steps)).toContain("Sent (msg_1)");
  });

  it("keeps a request's system prompt only when it changed for that agent", () => {
    const requests = steps.filter((s) => s.kind === "request");
    expect(requests.map((r) => r.kind === "request" && r.system)).toEqual([
      "Work in <workspace>.",
      undefined,
    ]);
  });
});

describe("comparing traces", () => {
  const trace = (steps: TraceEvent[]): TraceFile => ({
    version: TRACE_VERSION,
    chapter: "s99",
    name: "s99-x",
    summary: "",
    prompts: ["go"],
    agents: ["lead", "alice", "bob"],
    steps,
  });
  const send = (from: string, to: string, type: string): TraceEvent => ({
    kind: "event",
    agent: from,
    type: "mailbox_send",
    data: { id: "msg_1", from, to, type, content: "hi" },
  });

  it("notices a changed tool input, in order, for the lead", () => {
    const a = trace([
      {
        kind: "tool_call",
        agent: "lead",
        id: "toolu_lead_1",
        name: "bash",
        input: { command: "ls" },
      },
    ]);
    const b = trace([
      {
        kind: "tool_call",
        agent: "lead",
        id: "toolu_lead_1",
        name: "bash",
        input: { command: "ls -la" },
      },
    ]);
    expect(traceDifference(a, a)).toBeNull();
    expect(traceDifference(a, b)).toMatch(/lead, step 1[\s\S]*ls -la/);
  });

  it("accepts a different interleaving of teammates and who took which task, not different work", () => {
    const work = (who: string, file: string): TraceEvent => ({
      kind: "tool_call",
      agent: who,
      id: `toolu_${who}_1`,
      name: "write",
      input: { path: file },
    });
    const a = trace([send("lead", "alice", "message"), work("alice", "a.js"), work("bob", "b.md")]);
    const swapped = trace([
      work("alice", "b.md"),
      send("lead", "alice", "message"),
      work("bob", "a.js"),
    ]);
    const different = trace([
      send("lead", "alice", "message"),
      work("alice", "a.js"),
      work("bob", "c.md"),
    ]);
    expect(traceDifference(a, swapped)).toBeNull();
    expect(traceDifference(a, different)).toMatch(/teammates/);
  });

  it("notices work done twice, or by a renamed teammate, though the teammates' steps are compared as a set", () => {
    const work = (who: string, file: string, n = 1): TraceEvent => ({
      kind: "tool_call",
      agent: who,
      id: `toolu_${who}_${n}`,
      name: "write",
      input: { path: file },
    });
    const a = trace([send("lead", "alice", "message"), work("alice", "a.js"), work("bob", "b.md")]);
    const twice = trace([
      send("lead", "alice", "message"),
      work("alice", "a.js"),
      work("bob", "b.md"),
      work("bob", "a.js", 2),
    ]);
    const renamed = {
      ...trace([send("lead", "carol", "message"), work("carol", "a.js"), work("bob", "b.md")]),
      agents: ["lead", "carol", "bob"],
    };
    expect(teamDifference(a, twice)).toMatch(
      /write \{"path":"a\.js"\}\n {2}recorded: 1 times\n {2}today: {4}2 times/,
    );
    expect(teamDifference(a, renamed)).toMatch(
      /agents:\n {2}recorded: alice, bob, lead\n {2}today: {4}bob, carol, lead/,
    );
    expect(
      teamDifference(
        a,
        trace([work("bob", "b.md"), send("lead", "alice", "message"), work("alice", "a.js")]),
      ),
    ).toBeNull();
  });

  it("ignores noise: backoff delays, ls -l owners and dates, timings", () => {
    const backoff = (delay: number) => ({
      kind: "backoff" as const,
      attempt: 1,
      delay,
      status: 529,
    });
    const a = trace([
      { kind: "note", agent: "lead", text: "waiting 532 ms" },
      { kind: "event", agent: "lead", type: "recovery", data: backoff(532) },
    ]);
    const b = trace([
      { kind: "note", agent: "lead", text: "waiting 1485 ms" },
      { kind: "event", agent: "lead", type: "recovery", data: backoff(1485) },
    ]);
    expect(traceDifference(a, b)).toBeNull();
    expect(
      canonicalTrace(
        trace([
          {
            kind: "tool_result",
            agent: "lead",
            id: "t",
            name: "bash",
            is_error: false,
            output: "total 8\ndrwxr-xr-x  2 root root 4096 Nov 30 12:10 .",
          },
        ]),
      ).lead[0],
    ).toContain("drwxr-xr-x <ls> .");
  });
});

describe("what the site makes of a trace", () => {
  it("draws s13's team as a sequence diagram: agents as participants, messages as arrows", () => {
    const s13 = readTrace("s13");
    if (!s13) return expect.fail("site/traces/s13.json is missing");
    const diagram = sequenceFromTrace(s13);
    expect(diagram.split("\n")[0]).toBe("sequenceDiagram");
    for (const agent of s13.agents) expect(diagram).toContain(`participant ${agent}`);
    const sends = s13.steps.filter((s) => s.kind === "event" && s.type === "mailbox_send").length;
    expect(diagram.split("\n").filter((l) => /->>|-->>/.test(l))).toHaveLength(sends);
    expect(diagram).not.toMatch(/[;#]/);
  });

  it("labels s15's protocol messages with their request_id", () => {
    const s15 = readTrace("s15");
    if (!s15) return expect.fail("site/traces/s15.json is missing");
    const diagram = sequenceFromTrace(s15);
    expect(diagram).toMatch(/lead->>\w+: shutdown_request req_\d+/);
    expect(diagram).toMatch(/-->>lead: shutdown_response req_\d+/);
    expect(diagram).toMatch(/Note over \w+: req_\d+ (approved|rejected)/);
  });

  it("draws a1's MCP server as a participant: its start and every call the gate let through as arrows, a refused call as a note", () => {
    const a1 = readTrace("a1");
    if (!a1) return expect.fail("site/traces/a1.json is missing");
    const diagram = sequenceFromTrace(a1);
    expect(diagram).toContain("participant mcp_notes as MCP server notes");
    expect(diagram).toContain("lead->>mcp_notes: start, initialize, tools/list");
    const allowed = a1.steps.filter(
      (s) => s.kind === "event" && s.type === "permission" && s.data.allowed === true,
    );
    const mcpAllowed = allowed.filter(
      (s) => s.kind === "event" && s.type === "permission" && s.data.tool.startsWith("mcp__"),
    );
    expect(diagram.match(/lead->>mcp_notes: tools\/call /g)).toHaveLength(mcpAllowed.length);
    expect(diagram).toContain("Note over lead: mcp__notes__delete_note: refused by the gate");
    expect(diagram).not.toMatch(/[;#]/);
    // The tools its first request offered beyond TOOLS are kept with their definitions.
    expect(a1.offered?.map((t) => t.name)).toEqual([
      "mcp__notes__save_note",
      "mcp__notes__list_notes",
      "mcp__notes__delete_note",
    ]);
  });

  it("shows every step of a recorded run in the player, tool results marked as errors when they failed", () => {
    const s02 = readTrace("s02")!;
    const labels = {
      user: "user",
      request: (m: number, t: number) => `→ ${m}/${t}`,
      response: (s: string) => `← ${s}`,
      system: "system",
      note: "note",
      result: "result",
      error: "error",
    };
    const views = s02.steps.map((s) => stepView(s, labels));
    expect(views).toHaveLength(s02.steps.length);
    expect(views.some((v) => v.error && v.title.startsWith("error"))).toBe(true);
    expect(views.find((v) => v.kind === "request")?.title).toBe(`→ 1/5`);
  });
});
