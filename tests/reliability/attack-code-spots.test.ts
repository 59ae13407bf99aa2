// Attacks on "each recorded step says where the code that took it is" (trace version 4): the
// writer (chapters/_runner/code-spots.ts) and the reader (site/lib/step-spots.ts, the
// "Open a recording…" worker). Written by a tester who did not write that code, briefed with its
// claim; all ten were red on 5164fee. Where no line can be known (a question asked from a
// then-callback: the stack no longer holds who asked), no spot is the right answer, never a wrong one.
import { readFileSync } from "node:fs";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { budget } from "../support/budgets.ts";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { codeSpotter } from "../../chapters/_runner/code-spots.ts";
import { allRunnable } from "../../chapters/_runner/chapters.ts";
import type { StepAt, TraceEvent, TraceFile } from "../../chapters/_trace/contract.ts";
import { TRACE_VERSION } from "../../chapters/_trace/contract.ts";
import { spotAt, spotOf, spotsByKind } from "../../site/lib/step-spots.ts";
import { readTrace, recordTrace } from "../../site/lib/record-trace.ts";
import { lessonPlaces, recordingCode } from "../../site/lib/player-data.ts";
import { allChapters, chapter } from "../../site/lib/chapters.ts";
import { readRecording } from "../../site/lib/recording.ts";
import { recordingHeader } from "../support/recordings.ts";
import english from "../../i18n/ui.en.json" with { type: "json" };

const ROOT = REPO_ROOT;
/** A recording's first line for a run of s02, of `version`. */
const S02_HEADER = (version = TRACE_VERSION) =>
  recordingHeader({ version, chapter: "s02", name: "s02-tool-use", title: "Tool use" });
const lineAt = (at: StepAt | undefined) =>
  at ? readFileSync(path.join(ROOT, at.file), "utf8").split("\n")[at.line - 1].trim() : "(no spot)";
const where = (at: StepAt | undefined) =>
  at ? `${at.file}:${at.line} ${lineAt(at)}` : "(no spot)";
const toolCall = (name: string, agent = "lead"): TraceEvent =>
  ({ kind: "tool_call", agent, id: "call_1", name, input: {} }) as TraceEvent;

// ── the writer: a tool's handler, found by its name ─────────────────────────────────────────

describe("a tool call's spot is its handler (code-spots.ts handlerOf)", () => {
  it("a2: the lead's `send` tool is the send tool's handler, not the agent's own send(prompt) turn method", () => {
    // a2 offers `send` (s13's tool, s15's guardedSend in a2's team). The parser's first
    // `send` in a2's files is `async send(prompt) {` of the object createAgent returns.
    const at = codeSpotter("a2-full-harness")(toolCall("send"));
    expect(lineAt(at), where(at)).not.toMatch(/send\(prompt\)/);
    // the handler's code: s15's guardedSend, which a2's team is given for `send`
    expect(lineAt(at), where(at)).toMatch(/function guardedSend\(.*\): ToolHandler/);
  });

  it("s09: a `read` tool call is the read tool's handler, not the memory folder's read helper", () => {
    // s09 offers s02's `read`; the first `read:` in s09's own file is jailed()'s
    // `read: (file: string) => readInside(root, rel(file))`, the harness reading MEMORY.md.
    const at = codeSpotter("s09-memory-system")(toolCall("read"));
    expect(at?.file, where(at)).toBe("chapters/s02-tool-use/agent.ts");
  });

  it("s13: a teammate's send and the lead's are the code that handles both, not the lead's table", () => {
    // Both tables have `send:` (agent.ts: the lead's `send: this.sendTool(LEAD)`, a teammate's
    // `send: this.sendTool(member.name)`); the lookup ignored who called and showed the lead's
    // table to a teammate. Both are made by sendTool: its code is the handler, whoever calls.
    const spotter = codeSpotter("s13-agent-teams");
    const teammate = spotter(toolCall("send", "alice"));
    expect(lineAt(teammate), where(teammate)).toMatch(/^sendTool\(from: string\): ToolHandler/);
    expect(spotter(toolCall("send", "lead"))).toEqual(teammate);
  });

  it("a tool name no chapter offers (a model's made-up call) is not pinned on an unrelated function", () => {
    // s02's dispatch answers `Error: unknown tool` (s02 agent.ts); the spotter instead finds a1's
    // MCP `handlers[name] = …` for any unknown name, and s02's Agent.send for `send`.
    const cases = [
      ["a1-mcp-servers", "grep"],
      ["s02-tool-use", "send"],
      ["s12-worktree-isolation", "send"],
    ] as const;
    const wrong = cases.flatMap(([folder, name]) => {
      const at = codeSpotter(folder)(toolCall(name));
      return at === undefined || /unknown tool/.test(lineAt(at))
        ? []
        : [`${folder} ${name} → ${where(at)}`];
    });
    expect(wrong).toEqual([]);
  });
});

// ── the writer: a recorded a2 run ───────────────────────────────────────────────────────────

describe("a2's recorded run (recordTrace, as npm run traces does)", () => {
  let a2: TraceFile;
  beforeAll(
    async () => {
      a2 = await recordTrace(allRunnable().find((c) => c.id === "a2")!);
    },
    budget({ chapterRun: 1 }),
  );

  it("a permission question points at the gate that asks it, not at the queue that serialises questions", () => {
    // oneQuestionAtATime: `last.then(() => env.ask(question, choices))` runs the question in a
    // then-callback, so the synchronous stack is that helper alone.
    const asked = a2.steps.filter(
      (s): s is Extract<TraceEvent, { kind: "note" }> =>
        s.kind === "note" && /^Allow \w+ .*→ scripted answer/.test(s.text),
    );
    expect(asked.length).toBeGreaterThan(0);
    const wrong = asked
      .filter((s) => s.at && !/Allow/.test(lineAt(s.at)))
      .map((s) => `${s.text.slice(0, 30)}… → ${where(s.at)}`);
    expect([...new Set(wrong.map((w) => w.replace(/^.*→ /, "")))]).toEqual([]);
  });

  it("the hooks' trust question is s08's question, as in s08's own run", () => {
    const trust = (steps: readonly TraceEvent[]) =>
      steps.find(
        (s) => s.kind === "note" && s.text.startsWith("This workspace's .hooks.json wants to run"),
      )?.at;
    const s08 = trust(readTrace("s08")!.steps);
    expect(s08?.file).toBe("chapters/s08-hook-system/agent.ts");
    const at = trust(a2.steps);
    // a2 asks through its one-question-at-a-time queue, from a then-callback: the stack holds no
    // more than the queue, so the right answer is s08's line or none, never the queue's.
    if (at) expect(where(at)).toBe(where(s08));
  });

  it("a model request is the model call, not the prompt-cache wrapper every call passes through", () => {
    // promptCached: `create: (body, options) => client.messages.create(withPromptCache(body), options)`
    // passes on what it was given, but as withPromptCache(body): the relay rule misses it.
    const places = lessonPlaces(chapter("a2"));
    const requests = a2.steps.filter((s) => s.kind === "request");
    const regions = new Set(requests.map((s) => spotAt(places, s.at)?.region));
    expect([...regions], where(requests[0].at)).not.toContain("cache");
  });
});

// ── the reader ─────────────────────────────────────────────────────────────────────────────

describe("the reader (site/lib/step-spots.ts)", () => {
  it("a version-3 recording's step is shown at its own line, not at the first line of its kind", () => {
    // byKind is keyed by event type alone: s14's `recovery` of max_tokens is shown at the
    // 529-backoff line, a4's rewind undo at the rewind's, s15's protocol reply at its request …
    const wrong: string[] = [];
    for (const c of allChapters) {
      const trace = readTrace(c.id);
      if (!trace) continue;
      const places = lessonPlaces(chapter(c.id));
      const byKind = spotsByKind(places, trace.steps);
      trace.steps.forEach((step, i) => {
        if (step.kind !== "event" || !step.at) return;
        const real = spotAt(places, step.at);
        const { at: _at, ...v3 } = step;
        const shown = spotOf(places, v3 as TraceEvent, byKind);
        const name = (x: typeof real) => x && `${x.chapter}/${x.file}:${x.line}`;
        // its own line, or none where its kind was taken at several: never another step's
        if (real && shown && name(shown) !== name(real))
          wrong.push(`${c.id} #${i} ${step.type}: ${name(real)} shown at ${name(shown)}`);
      });
    }
    expect(wrong).toEqual([]);
  });

  it("a person's words (a user step) show no lesson code, whatever `at` a recording gives them", () => {
    // The writer never puts `at` on a user step ("the person's words, not the code's"); the
    // schema accepts one and spotOf shows the region.
    const text = [
      S02_HEADER(),
      JSON.stringify({
        kind: "user",
        agent: "lead",
        text: "Ignore the code panel: it shows the line that wrote this prompt.",
        at: { file: "chapters/s02-tool-use/agent.ts", line: 332 },
      }),
      "",
    ].join("\n");
    const { trace } = readRecording(text);
    const spot = spotOf(lessonPlaces(chapter("s02")), trace.steps[0]);
    expect(spot).toBeUndefined();
  });
});

// ── the reader: the "Open a recording…" worker, run as the page runs it ────────────────────────

describe("the Open a recording… worker (recording-worker.ts)", () => {
  const reports: unknown[] = [];
  let onmessage: ((e: { data: unknown }) => void) | undefined;
  beforeAll(async () => {
    const self = { postMessage: (r: unknown) => reports.push(r), onmessage: undefined };
    vi.stubGlobal("self", self);
    // What /recording-data/<id>.json serves (site/pages/recording-data/[chapter].json.ts).
    vi.stubGlobal("fetch", async (url: string) => {
      const id = /recording-data\/(\w+)\.json/.exec(decodeURIComponent(url))![1];
      return new Response(JSON.stringify({ chapter: id, ...recordingCode(chapter(id)) }));
    });
    await import("../../site/components/player/recording-worker.ts");
    onmessage = self.onmessage as unknown as typeof onmessage;
  });
  afterAll(() => vi.unstubAllGlobals());

  const open = async (text: string) => {
    reports.length = 0;
    onmessage!({
      data: {
        file: new Blob([text]),
        strings: english,
        lang: "en",
        data: "/recording-data/{chapter}.json",
      },
    });
    await vi.waitFor(() => {
      if (!reports.some((r) => (r as { type: string }).type === "done")) throw new Error("not yet");
    });
    return reports.find((r) => (r as { type: string }).type === "done") as {
      data: { spots: ([string, number] | null)[] };
    };
  };

  it("a version-4 recording of a learner's copy (--mine: no `at`, on purpose) shows none of the chapter's code", async () => {
    // run.ts: "a learner's copy is not code the site has", so --mine --record writes no `at`;
    // the worker still looks every step up by kind in the chapter's own run (byKind, meant for
    // version-3 files) and shows the reference code beside the learner's own run.
    const s02 = readTrace("s02")!;
    const lines = [S02_HEADER(), ...s02.steps.map(({ at: _at, ...step }) => JSON.stringify(step))];
    const done = await open(lines.join("\n") + "\n");
    const shown = done.data.spots.filter(Boolean);
    expect(
      `${shown.length} of ${done.data.spots.length} steps show code, e.g. ${JSON.stringify(shown.slice(0, 2))}`,
    ).toBe(`0 of ${done.data.spots.length} steps show code, e.g. []`);
  });

  it("a version-3 recording (no `at` anywhere) still shows the code of the kinds its chapter takes at one line", async () => {
    const s02 = readTrace("s02")!;
    const lines = [S02_HEADER(3), ...s02.steps.map(({ at: _at, ...step }) => JSON.stringify(step))];
    const done = await open(lines.join("\n") + "\n");
    const bash = s02.steps.findIndex((s) => s.kind === "tool_call" && s.name === "bash");
    expect(done.data.spots[bash]).not.toBeNull();
    expect(done.data.spots.filter(Boolean).length).toBeGreaterThan(s02.steps.length / 2);
  });
});
