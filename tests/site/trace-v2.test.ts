// Version-2 recordings still open: the trace contract upgrades them as they are read
// (chapters/_trace/v2.ts), adding the state events version 3 records (todos, task, job_started)
// so the player's panels show what they showed then. The fixtures are traces committed in
// version 2 (tests/fixtures/trace-v2/<id>.json, copied before the traces were recorded again).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fc, forAll } from "../../chapters/_exercises/property.ts";
import {
  OLDEST_READABLE,
  parseTraceFile,
  RECORDING_FORMAT,
  stepUpgrader,
  TRACE_VERSION,
  type TraceEvent,
} from "../../chapters/_trace/contract.ts";
import { v2TaskLine } from "../../chapters/_trace/v2.ts";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { readRecording } from "../../site/lib/recording.ts";
import { stateTimeline, type Snapshot } from "../../site/lib/run-state.ts";
import { machineFocus } from "../../site/lib/state-machines.ts";
import { sequenceFromTrace } from "../../site/lib/trace-sequence.ts";

const FIXTURES = path.join(REPO_ROOT, "tests/fixtures/trace-v2");
const v2Text = (id: string) => readFileSync(path.join(FIXTURES, `${id}.json`), "utf8");
const ADDED = new Set(["todos", "task", "job_started"]);
const added = (s: TraceEvent) => s.kind === "event" && ADDED.has(s.type);
/** The panels a run shows, each different state once, in order. */
const states = (snapshots: Snapshot[]) =>
  snapshots.map((s) => JSON.stringify(s)).filter((s, i, all) => s !== all[i - 1]);

describe("a version-2 trace, read by version 3", () => {
  it.each([["s03"], ["s10"], ["s11"], ["s13"]])(
    "%s: every step is kept, and the panels go through the states the re-recorded run shows",
    (id) => {
      const old = JSON.parse(v2Text(id)) as { version: number; steps: TraceEvent[] };
      expect(old.version).toBe(2);
      const read = readRecording(v2Text(id));
      expect(read.trace.version).toBe(TRACE_VERSION);
      // Nothing of the old run is lost or changed; only state events are added.
      expect(read.trace.steps.filter((s) => !added(s))).toEqual(old.steps);
      expect(read.trace.steps.some(added)).toBe(true);
      // The same as the run recorded again in version 3 (the scenario is the same; a team's
      // turns may interleave otherwise each run, so for s13 only where the run ends is compared).
      const [then, now] = [read.trace, readTrace(id)!].map((t) => states(stateTimeline(t)));
      if (id === "s13") expect(then.at(-1)).toEqual(now.at(-1));
      else expect(then).toEqual(now);
      // The committed reader (record-trace) upgrades it the same way.
      expect(parseTraceFile(v2Text(id)).steps).toEqual(read.trace.steps);
    },
  );

  it("a1: the MCP server's tools are named as version 3 names them, and the diagram is the same", () => {
    const read = readRecording(v2Text("a1")).trace;
    const started = read.steps.find((s) => s.kind === "event" && s.type === "mcp_server");
    expect(started).toMatchObject({
      data: { server: "notes", offered: { mcp__notes__save_note: "save_note" } },
    });
    const diagram = sequenceFromTrace(read);
    expect(diagram).toContain("tools/call save_note");
    expect(diagram).toBe(sequenceFromTrace(readTrace("a1")!));
  });

  it("s10: the state machine lights the same moves", () => {
    const moves = (steps: ReturnType<typeof machineFocus>) =>
      steps.flatMap((f) => (f?.from ? [`${f.who} ${f.from}>${f.state}`] : []));
    const upgraded = machineFocus("s10", readRecording(v2Text("s10")).trace);
    expect(moves(upgraded)).toEqual(moves(machineFocus("s10", readTrace("s10")!)));
  });

  it("a version-2 recording (JSON Lines) is upgraded line by line, as a trace file is", () => {
    const old = JSON.parse(v2Text("s11")) as { steps: TraceEvent[] };
    const header = {
      format: RECORDING_FORMAT,
      version: 2,
      chapter: "s11",
      name: "s11-background-tasks",
      title: "s11",
      model: "scripted",
      started: "2026-01-01T00:00:00.000Z",
    };
    const text = [header, ...old.steps].map((l) => JSON.stringify(l)).join("\n");
    const read = readRecording(text);
    expect(read.header?.version).toBe(2);
    expect(read.trace.steps).toEqual(readRecording(v2Text("s11")).trace.steps);
    const started = read.trace.steps.filter((s) => s.kind === "event" && s.type === "job_started");
    expect(started).toHaveLength(1);
  });

  it("a version-1 trace is still refused: record it again", () => {
    expect(() => parseTraceFile(JSON.stringify({ steps: [] }), "old.json")).toThrow(
      new RegExp(
        `old\\.json is a version 1 trace; this harness reads versions ${OLDEST_READABLE} to ${TRACE_VERSION}: record it again`,
      ),
    );
    expect(() => stepUpgrader(TRACE_VERSION + 1)).toThrow(RangeError);
  });

  it("a version-3 trace (steps without `at`) is read as it is", () => {
    const today = readTrace("s02")!;
    const v3 = { ...today, version: 3, steps: today.steps.map(({ at: _at, ...step }) => step) };
    const read = parseTraceFile(JSON.stringify(v3), "v3.json");
    expect(read.version).toBe(TRACE_VERSION);
    expect(read.steps).toEqual(v3.steps);
    expect(read.steps.some((s) => "at" in s)).toBe(false);
  });

  it("the upgrade keeps every step of any version-2 run, in order, and adds only state events", async () => {
    const agent = fc.constantFrom("lead", "alice");
    const id = fc.constantFrom("t1", "t2", "t3");
    const name = fc.constantFrom("todo", "task_list", "task_update", "background_run", "bash");
    const step: fc.Arbitrary<TraceEvent> = fc.oneof(
      fc.record({
        kind: fc.constant("tool_call" as const),
        agent,
        id,
        name,
        input: fc.oneof(
          fc.constant(null),
          fc.record({ items: fc.array(fc.anything(), { maxLength: 3 }) }),
          fc.record({ command: fc.string() }),
        ),
      }),
      fc.record({
        kind: fc.constant("tool_result" as const),
        agent,
        id,
        name,
        output: fc.oneof(
          fc.string(),
          fc.constantFrom("[x] #1 done  (owner: bob)", "Started bg_3 in the background: make"),
        ),
        is_error: fc.boolean(),
      }),
      fc.record({ kind: fc.constant("note" as const), agent, text: fc.string() }),
    );
    await forAll(fc.array(step, { maxLength: 12 }), (steps) => {
      const upgrade = stepUpgrader(2);
      const out = steps.flatMap(upgrade);
      expect(out.filter((s) => !added(s))).toEqual(steps);
      // A state event comes right before the (successful) tool result it was read from.
      out.forEach((s, i) => {
        if (!added(s)) return;
        const next = out.slice(i + 1).find((n) => !added(n));
        expect(next).toMatchObject({ kind: "tool_result", is_error: false });
      });
    });
  });

  it("reads version 2's board line: status, owner, blockers and lane", () => {
    expect(
      v2TaskLine("Unblocked: [>] #12 Test it (both)  (owner: al; blocked by #1, #3; lane: a-b)"),
    ).toEqual({
      task: 12,
      status: "in_progress",
      subject: "Test it (both)",
      owner: "al",
      blockedBy: [1, 3],
      lane: "a-b",
    });
    expect(v2TaskLine("[ ] #2 Docs")).toMatchObject({
      status: "pending",
      owner: null,
      blockedBy: [],
      lane: null,
    });
    expect(v2TaskLine("3 tasks: 1 completed, 0 in progress, 2 pending")).toBeUndefined();
    expect(v2TaskLine("[?] #2 Docs")).toBeUndefined();
  });
});
