// A learner's own run, read back (site/lib/recording.ts): a wrong file is refused in a sentence that
// says why. That every chapter's scripted run, written with --record, reads back as the steps of
// its committed trace and the same player steps is tests/site/traces.test.ts's (one run of each
// chapter serves both).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { recordingHeader } from "../support/recordings.ts";
import { TRACE_VERSION, type TraceEvent } from "../../chapters/_trace/contract.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import {
  problemText,
  readRecording,
  RECORDING_FORMAT,
  RecordingError,
  RecordingReader,
  type RecordingProblem,
} from "../../site/lib/recording.ts";
import { contextMeter } from "../../site/lib/run-state.ts";

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
