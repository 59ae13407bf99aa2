// The state the player shows beside each step (site/lib/run-state.ts) and the state machines it
// lights up (site/lib/state-machines.ts), rebuilt from the committed recordings and checked
// against what the run itself printed and against the chapters' own tables.
import { describe, expect, it } from "vitest";
import { STATUS_FLOW } from "../../chapters/s10-task-system/agent.ts";
import { TRANSITIONS } from "../../chapters/s15-team-protocols/agent.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import type { TraceEvent } from "../../chapters/_trace/contract.ts";
import { contextMeter, stateTimeline as timeline } from "../../site/lib/run-state.ts";
import { stateTimelineInEnglish as stateTimeline } from "../support/state-text.ts";
import {
  machineDiagram,
  machineEdges,
  machineFocus,
  MACHINES,
} from "../../site/lib/state-machines.ts";

const trace = (id: string) => readTrace(id)!;

describe("the state after each step", () => {
  it("s10: the board at the end is the board the last task_list printed", () => {
    const run = trace("s10");
    const last = stateTimeline(run).at(-1)!;
    const printed = run.steps.findLast((s) => s.kind === "tool_result" && s.name === "task_list");
    if (printed?.kind !== "tool_result") throw new Error("s10 never listed its board");
    const lines = printed.output.split("\n").filter((l) => /^\[/.test(l));
    expect(
      last.tasks!.map(([mark, id, subject, notes]) => `${mark} ${id} ${subject}  (${notes})`),
    ).toEqual(lines);
  });

  it("a4: the checkpoint list is one row per prompt, marked where the rewinds went", () => {
    const run = trace("a4");
    const prompts = run.prompts.filter((p) => !p.startsWith("/"));
    const rows = stateTimeline(run).at(-1)!.checkpoints!;
    expect(rows.map(([id]) => id)).toEqual(prompts.map((_, i) => `#${i + 1}`));
    expect(rows.map(([, , rewound]) => rewound)).toEqual([
      "",
      "code (undone)",
      "↺ conversation",
      "",
    ]);
  });

  it("s03: the todo list is the last list the model wrote", () => {
    const run = trace("s03");
    const call = run.steps.findLast((s) => s.kind === "tool_call" && s.name === "todo");
    if (call?.kind !== "tool_call") throw new Error("s03 wrote no todo list");
    const items = (call.input as { items: { text: string }[] }).items;
    expect(
      stateTimeline(run)
        .at(-1)!
        .todos!.map((row) => row[1]),
    ).toEqual(items.map((i) => i.text));
  });

  it("s13: every teammate ends shut down, with its mail read", () => {
    const run = trace("s13");
    const roster = stateTimeline(run).at(-1)!.roster!;
    const teammates = roster.filter(([name]) => name !== "lead");
    expect(teammates.map(([name]) => name).sort()).toEqual(["alice", "bob"]);
    for (const [, state, , unread] of teammates) {
      expect(state).toBe("shutdown");
      expect(unread).toBe("0");
    }
  });

  it("s15: each request's row holds its last recorded status", () => {
    const run = trace("s15");
    const last = new Map<string, string>();
    for (const s of run.steps)
      if (s.kind === "event" && s.type === "protocol")
        last.set(String(s.data.request_id), String(s.data.status));
    const rows = stateTimeline(run).at(-1)!.requests!;
    expect(new Map(rows.map(([id, , , status]) => [id, status]))).toEqual(last);
  });

  it("a3: the files read, each at the version the model last saw, as the run's reads printed it", () => {
    const run = trace("a3");
    const states = stateTimeline(run);
    // Where the first patch is refused, the panel still has price.ts at the version its edit made.
    const refused = run.steps.findIndex(
      (s) => s.kind === "tool_result" && s.name === "apply_patch" && s.is_error,
    );
    expect(states[refused].files).toEqual([
      ["src/price.ts", "v2", "edit"],
      ["src/report.ts", "v1", "read"],
    ]);
    // Each read's "(version N)" is the version the panel shows right after it.
    run.steps.forEach((step, i) => {
      if (step.kind !== "tool_result" || step.name !== "read") return;
      const shown = /\(version (\d+)\)$/.exec(step.output)![1];
      const call = run.steps.find((s) => s.kind === "tool_call" && s.id === step.id);
      const file = (call?.kind === "tool_call" && (call.input as { path: string }).path) || "";
      expect(states[i].files!.find((row) => row[0] === file)?.[1]).toBe(`v${shown}`);
    });
    expect(states.at(-1)!.files).toEqual([
      ["src/price.ts", "v4", "apply_patch"],
      ["src/report.ts", "v3", "edit"],
      ["src/vat.ts", "v1", "apply_patch"],
    ]);
  });

  it("a failed call and a Ctrl-C are rows of the recovery panel, beside s14's retries", () => {
    const steps: TraceEvent[] = [
      { kind: "user", agent: "lead", text: "go" },
      { kind: "request", agent: "lead", messages: 1, tools: [] },
      {
        kind: "event",
        agent: "lead",
        type: "model_error",
        data: { status: 529, message: "Overloaded" },
      },
      {
        kind: "event",
        agent: "lead",
        type: "recovery",
        data: { kind: "backoff", attempt: 1, delay: 1, status: 529 },
      },
      { kind: "event", agent: "lead", type: "interrupted", data: { results: 1, partial: true } },
    ];
    const states = stateTimeline({ ...trace("s01"), steps });
    expect(states[1].recovery).toBeUndefined();
    expect(states[2].recovery).toEqual([["error", "HTTP 529: Overloaded"]]);
    expect(states.at(-1)!.recovery).toEqual([
      ["error", "HTTP 529: Overloaded"],
      ["backoff", "HTTP 529, try 1"],
      ["interrupted", "kept 1 result + partial answer"],
    ]);
  });

  it("a step that changes nothing shares the snapshot before it", () => {
    const states = timeline(trace("s13"));
    const distinct = new Set(states);
    expect(distinct.size).toBeLessThan(states.length / 2);
  });
});

describe("the context meter", () => {
  it("s05: compaction shows as a drop; every request has a size", () => {
    const run = trace("s05");
    const points = contextMeter(run).filter((p) => p.agent === "lead");
    expect(points.every((p) => p.tokens > 0)).toBe(true);
    const compacted = run.steps.findIndex((s) => s.kind === "event" && s.type === "compacted");
    const before = points.filter((p) => p.step < compacted).at(-1)!;
    const after = points.find((p) => p.step > compacted)!;
    expect(after.tokens).toBeLessThan(before.tokens / 3);
    expect(after.messages).toBe(1);
  });

  it("s06: the child starts from one message, and its reading never enters the parent's context", () => {
    const points = contextMeter(trace("s06"));
    const child = points.filter((p) => p.agent === "subagent");
    const parentBefore = points.filter((p) => p.agent === "lead" && p.step < child[0].step).at(-1)!;
    const parentAfter = points.find((p) => p.agent === "lead" && p.step > child.at(-1)!.step)!;
    expect(child[0].messages).toBe(1);
    // The parent grows by the child's summary only, far less than the child's own last context.
    expect(parentAfter.tokens - parentBefore.tokens).toBeLessThan(child.at(-1)!.tokens / 2);
  });
});

describe("the state machines", () => {
  it("are drawn from the chapters' own tables, every allowed move an arrow", () => {
    expect(MACHINES.s10.table).toBe(STATUS_FLOW);
    expect(MACHINES.s15.table).toBe(TRANSITIONS);
    const diagram = machineDiagram(MACHINES.s15);
    for (const [from, targets] of Object.entries(TRANSITIONS))
      for (const to of targets) expect(diagram).toContain(`${from} --> ${to}`);
    expect(machineEdges(MACHINES.s15)[0]).toBe("[*]>pending");
  });

  it.each([["s10"], ["s13"], ["s15"]])(
    "%s: every move the run made is one its table allows",
    (id) => {
      const machine = MACHINES[id];
      const moves = machineFocus(id, trace(id)).filter((f) => f?.from);
      expect(moves.length).toBeGreaterThan(1);
      for (const move of moves) {
        const allowed =
          move!.from === "[*]"
            ? move!.state === machine.initial
            : machine.table[move!.from!].includes(move!.state);
        expect(allowed, `${move!.who}: ${move!.from} → ${move!.state}`).toBe(true);
      }
    },
  );

  it("s10: the last task ends completed, after in_progress", () => {
    const moves = machineFocus("s10", trace("s10")).filter((f) => f?.from && f.who === "#2");
    expect(moves.map((m) => `${m!.from}>${m!.state}`)).toEqual([
      "[*]>pending",
      "pending>in_progress",
      "in_progress>completed",
    ]);
  });
});
