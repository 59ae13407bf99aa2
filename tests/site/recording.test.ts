// A learner's own run, read back (site/lib/recording.ts): the recording every chapter's scripted
// run writes with --record gives the steps of its committed trace (site/traces/<id>.json) and the
// same player steps; and a wrong file is refused in a sentence that says why.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recordingHeader } from "../support/recordings.ts";
import { allRunnable, loadChapter, playChapter } from "../../chapters/_runner/chapters.ts";
import { codeSpotter } from "../../chapters/_runner/code-spots.ts";
import { createIO } from "../../chapters/_runner/printer.ts";
import { machineSecrets, startRecording } from "../../chapters/_runner/recording.ts";
import { scrubber } from "../../chapters/_trace/scrub.ts";
import { TRACE_VERSION, type TraceEvent, type TraceFile } from "../../chapters/_trace/contract.ts";
import english from "../../i18n/ui.en.json";
import { playerSteps } from "../../site/lib/player.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import {
  problemText,
  readRecording,
  RECORDING_FORMAT,
  RecordingError,
  RecordingReader,
  type RecordingProblem,
} from "../../site/lib/recording.ts";
import { contextMeter, stateTimeline } from "../../site/lib/run-state.ts";
import { traceDifference } from "../../site/lib/trace-compare.ts";
import { teamDifference } from "../../site/lib/trace-counts.ts";
import { agentsOf, normalizeTrace } from "../../site/lib/trace-normalize.ts";
import { translator } from "../../site/lib/ui-text.ts";
import { budget } from "../support/budgets.ts";

const t = translator(english, "en");
const NO_NOTES = { local: { phases: {}, notes: {} }, english: { phases: {}, notes: {} } };
const header = (extra: Record<string, unknown> = {}) => recordingHeader(extra);
const s01 = readTrace("s01")!;
const lines = (steps: unknown[]) => steps.map((s) => JSON.stringify(s)).join("\n");
const problemOf = (text: string): RecordingProblem | undefined => {
  try {
    readRecording(text);
    return undefined;
  } catch (err) {
    if (err instanceof RecordingError) return err.problem;
    throw err;
  }
};

describe("reading a recording", () => {
  it("reads a recording's header and steps, and a trace file such as site/traces/s01.json", () => {
    const read = readRecording(`${header()}\n${lines(s01.steps)}\n`);
    expect(read.source).toBe("recording");
    expect(read.header?.model).toBe("scripted");
    expect(read.trace.steps).toEqual(s01.steps);
    expect(read.truncated).toBeUndefined();
    const file = readRecording(readFileSync("site/traces/s01.json", "utf8"));
    expect(file.source).toBe("trace");
    expect(file.trace.steps).toEqual(s01.steps);
    expect(file.trace.agents).toEqual(["lead"]);
  });

  it("reads the same in chunks of any size as in one piece", () => {
    const text = `${header()}\n${lines(s01.steps)}\n`;
    for (const size of [1, 7, 100, 4096]) {
      const reader = new RecordingReader();
      for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
      expect(reader.finish().trace.steps, `chunks of ${size}`).toEqual(s01.steps);
    }
  });

  it("refuses what is not a recording: other JSON, JSON Lines, text, binary, nothing", () => {
    const refused = [
      readFileSync("package.json", "utf8"),
      '{"a":1}\n{"b":2}\n',
      "[1, 2, 3]",
      "hello, world\n",
      "\u0000\u0001\u00ff\u00fe binary",
      "",
      "\n\n",
      `{"format":"${RECORDING_FORMAT}","version":${TRACE_VERSION}}\n`, // a header without its fields
    ];
    for (const text of refused)
      expect(problemOf(text), JSON.stringify(text)).toEqual({ code: "not-recording" });
    expect(problemText({ code: "not-recording" })).toMatch(/^This is not a recording/);
  });

  it("refuses a newer (or older) version, saying which one it reads", () => {
    const newer = problemOf(`${header({ version: TRACE_VERSION + 1, extra: true })}\n`);
    expect(newer).toEqual({ code: "newer", version: TRACE_VERSION + 1, supported: TRACE_VERSION });
    expect(problemText(newer!)).toBe(
      `This run was recorded by a newer version of the harness (version ${TRACE_VERSION + 1}); this site reads version ${TRACE_VERSION}.`,
    );
    expect(problemOf(JSON.stringify({ ...s01, version: 1 }))).toMatchObject({
      code: "older",
      version: 1,
    });
  });

  it("shows the steps before a last line cut short (a run that crashed)", () => {
    const text = `${header()}\n${lines(s01.steps)}`;
    const cut = text.slice(0, text.lastIndexOf("\n") + 20);
    const read = readRecording(cut);
    const n = s01.steps.length;
    expect(read.trace.steps).toEqual(s01.steps.slice(0, -1));
    expect(read.truncated).toEqual({ code: "truncated", step: n, shown: n - 1 });
    expect(problemText(read.truncated!)).toBe(
      `The recording is truncated at step ${n}: showing ${n - 1} steps.`,
    );
  });

  it("names the step in the middle that is wrong, and why", () => {
    const steps: unknown[] = structuredClone(s01.steps);
    steps[3] = {
      kind: "tool_result",
      agent: "lead",
      id: "x",
      name: "bash",
      output: 42,
      is_error: false,
    };
    expect(problemOf(`${header()}\n${lines(steps)}\n`)).toEqual({
      code: "invalid-step",
      step: 4,
      reason: "output: expected string, received number",
    });
    steps[3] = {
      kind: "event",
      agent: "lead",
      type: "permission",
      data: { tool: 1, allowed: true, reason: null },
    };
    expect(problemOf(`${header()}\n${lines(steps)}\n`)).toMatchObject({
      step: 4,
      reason: "data.tool: expected string, received number",
    });
    steps[3] = { kind: "event", agent: "lead", type: "teleport", data: {} };
    expect(problemOf(`${header()}\n${lines(steps)}\n`)).toMatchObject({
      reason: 'unknown event type "teleport"',
    });
    steps[3] = { kind: "dream", agent: "lead" };
    expect(problemOf(`${header()}\n${lines(steps)}\n`)).toMatchObject({
      reason: 'unknown kind "dream"',
    });
    steps[3] = "{not json";
    expect(
      problemOf(`${header()}\n${lines(steps).replace('"{not json"', "{not json")}\n`),
    ).toMatchObject({ step: 4, reason: "it is not JSON" });
    expect(problemText({ code: "invalid-step", step: 4, reason: "it is not JSON" })).toBe(
      "Step 4 is not a step this site can show: it is not JSON.",
    );
  });

  it("keeps only what each step's schema has: the player's code never meets another type", () => {
    const step = { kind: "user", agent: "lead", text: "hi", extra: { __proto__: 1 }, html: "<b>" };
    const read = readRecording(`${header()}\n${JSON.stringify(step)}\n`);
    expect(read.trace.steps).toEqual([{ kind: "user", agent: "lead", text: "hi" }]);
    // A protocol field of a mailbox message may be a plain value, never an object.
    const send = (extra: unknown) => ({
      kind: "event",
      agent: "lead",
      type: "mailbox_send",
      data: { id: "m1", type: "message", from: "lead", to: "bob", content: "hi", approve: extra },
    });
    expect(readRecording(`${header()}\n${JSON.stringify(send(true))}\n`).trace.steps).toHaveLength(
      1,
    );
    expect(problemOf(`${header()}\n${JSON.stringify(send({ a: 1 }))}\n{}\n`)).toMatchObject({
      code: "invalid-step",
      step: 1,
    });
  });

  it("counts the API's tokens in the context meter when a response has usage, else the estimate", () => {
    const steps: TraceEvent[] = [
      { kind: "request", agent: "lead", messages: 1, tokens: 100, tools: [] },
      {
        kind: "response",
        agent: "lead",
        stop_reason: "end_turn",
        text: "",
        calls: [],
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cache_read_input_tokens: 1000,
          cache_creation_input_tokens: 200,
        },
      },
      { kind: "request", agent: "lead", messages: 3, tokens: 300, tools: [] },
      { kind: "response", agent: "lead", stop_reason: "end_turn", text: "", calls: [] },
    ];
    const read = readRecording(`${header()}\n${lines(steps)}\n`);
    expect(contextMeter(read.trace)).toEqual([
      { step: 0, agent: "lead", messages: 1, tokens: 1210, measured: true },
      { step: 2, agent: "lead", messages: 3, tokens: 300 },
    ]);
  });
});

describe("every chapter's scripted run, recorded with --record and read back", () => {
  for (const info of allRunnable()) {
    it.concurrent(
      `${info.id}: the steps and the player's steps of site/traces/${info.id}.json`,
      async () => {
        const committed = readTrace(info.id)!;
        const { scenario } = await loadChapter(info);
        // The workspace as `npm run traces` makes it (its own temp folder: `ls -la` shows it).
        const workspace = mkdtempSync(path.join(tmpdir(), `lah-rec-${info.id}-`));
        const dir = mkdtempSync(path.join(tmpdir(), `lah-rec-file-`));
        const file = path.join(dir, "run.jsonl");
        try {
          // What `npm run chapter <id> -- --record FILE` does (run.ts): the same writer, fed by
          // every step the IO records.
          const recording = startRecording(
            file,
            {
              chapter: info.id,
              name: info.name,
              title: info.name,
              model: "scripted",
              prompts: scenario.prompts,
              summary: scenario.summary,
            },
            [workspace, realpathSync(workspace)],
          );
          // ...and each step with where the chapter's code took it, as run.ts asks for it.
          const io = createIO({
            onStep: recording.write,
            where: codeSpotter(path.basename(info.dir)),
          });
          await playChapter(info, workspace, io);
          recording.close();
          const read = readRecording(readFileSync(file, "utf8"));
          expect(read.truncated).toBeUndefined();
          expect(read.trace.chapter).toBe(info.id);
          expect(JSON.stringify(read.trace.steps)).not.toContain(realpathSync(workspace));
          const steps = normalizeTrace(read.trace.steps, []);
          // Exactly the run as the IO kept it, every step, scrubbed as --record scrubs (this
          // machine's user and host too: as root, `ls -la` names root)...
          const scrub = scrubber(machineSecrets([workspace, realpathSync(workspace)]));
          expect(steps).toEqual(normalizeTrace(scrub([...io.trace]), []));
          // ...and the committed trace's steps, as the traces test compares them.
          const today: TraceFile = {
            ...read.trace,
            offered: committed.offered,
            agents: agentsOf(steps),
            steps,
          };
          if (!committed.offered) delete today.offered;
          expect(traceDifference(committed, today) ?? teamDifference(committed, today)).toBeNull();
          // The player's list: the same steps in plain words (a team's interleaving varies, so
          // there the lead's own steps in order, and everyone's as a set).
          const words = (trace: TraceFile) =>
            playerSteps(trace, NO_NOTES, t).map((s) => `${s.agent} ${s.kind} ${s.title}`);
          const team =
            committed.agents.length > 1 &&
            committed.steps.some((s) => s.kind === "event" && s.type.startsWith("mailbox_"));
          if (!team) expect(words(today)).toEqual(words(committed));
          else {
            const lead = (trace: TraceFile) =>
              words(trace).filter((w) => w.startsWith("lead ") && !w.startsWith("lead event"));
            expect(lead(today)).toEqual(lead(committed));
            const kinds = (trace: TraceFile) =>
              [...new Set(trace.steps.map((s) => (s.kind === "event" ? s.type : s.kind)))].sort();
            expect(kinds(today)).toEqual(kinds(committed));
          }
          // And the state panel reads it without a wrong type anywhere.
          expect(stateTimeline(today)).toHaveLength(steps.length);
        } finally {
          rmSync(dir, { recursive: true, force: true });
          rmSync(workspace, { recursive: true, force: true });
        }
      },
      // run beside up to five others (vitest's maxConcurrency), then read back and compared
      budget({ chapterRun: 8 }),
    );
  }
});
