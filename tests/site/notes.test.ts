// Step notes (chapters/<chapter>/notes/<locale>.yaml): every note names a step of the chapter's
// recorded run, every model turn and prompt of every run has an English note, translations only
// use English keys, and the terminal prints the same notes the player shows.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allRunnable, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { attachNotes, parseNotes, StepKeys } from "../../chapters/_runner/notes.ts";
import {
  notesFile,
  notesFor,
  readNotes,
  terminalLocale,
} from "../../chapters/_runner/notes-files.ts";
import type { TraceEvent } from "../../chapters/_trace/contract.ts";
import { TRANSLATED_LOCALES } from "../../i18n/locales.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { notesHash, notesStatus } from "../../site/lib/translation.ts";
import { runCli } from "../support/run-cli.ts";

const chapters = allRunnable();
const claim = (task: number, owner: string) => ({ task, owner, lane: null });
const request = {
  request_id: "req_1",
  type: "shutdown",
  from: "lead",
  to: "bob",
  status: "pending",
};

describe("step keys", () => {
  it("count prompts, each agent's responses, harness lines and events as a run happens", () => {
    const steps: TraceEvent[] = [
      { kind: "user", agent: "lead", text: "go" },
      { kind: "request", agent: "lead", messages: 1, tools: [] },
      { kind: "response", agent: "lead", stop_reason: "tool_use", text: "", calls: ["spawn"] },
      { kind: "event", agent: "alice", type: "task_claimed", data: claim(1, "alice") },
      { kind: "response", agent: "alice", stop_reason: "end_turn", text: "", calls: [] },
      { kind: "event", agent: "bob", type: "task_claimed", data: claim(2, "bob") },
      { kind: "note", agent: "lead", text: "cleared" },
      { kind: "response", agent: "lead", stop_reason: "end_turn", text: "", calls: [] },
    ];
    const keys = new StepKeys();
    expect(steps.map((s) => keys.keysOf(s))).toEqual([
      ["prompt#1"],
      [],
      ["lead#1"],
      ["alice@task_claimed#1", "@task_claimed#1", "alice@task_claimed", "@task_claimed"],
      ["alice#1"],
      ["bob@task_claimed#1", "@task_claimed#2", "bob@task_claimed"],
      ["harness#1"],
      ["lead#2"],
    ]);
  });

  it("a key that names no step is reported, and the most specific key wins", () => {
    const steps: TraceEvent[] = [
      { kind: "event", agent: "bob", type: "protocol", data: request },
      { kind: "event", agent: "bob", type: "protocol", data: request },
    ];
    const { byStep, unused } = attachNotes(steps, {
      phases: { "@protocol": "Requests" },
      notes: { "@protocol#2": "any", "bob@protocol#2": "bob's", "lead#4": "nowhere" },
    });
    expect(byStep.map((s) => s.note)).toEqual([undefined, "bob's"]);
    expect(byStep[0].phase).toBe("Requests");
    expect(unused).toEqual(["lead#4"]);
  });
});

describe("a notes file", () => {
  it("a malformed one is an error that names the file and the problem", () => {
    expect(() => parseNotes("notes: [", "x/ja.yaml")).toThrow(/x\/ja\.yaml: not valid YAML/);
    expect(() => parseNotes("notez: {}", "f")).toThrow(/f: unknown field notez/);
    expect(() => parseNotes("notes:\n  lead 3: x", "f")).toThrow(/"lead 3" is not a step key/);
    expect(() => parseNotes("notes:\n  lead#3: [a]", "f")).toThrow(/notes\.lead#3 must be text/);
  });
});

describe.each(chapters.map((c) => [c.id, c] as const))("%s's notes", (id, info) => {
  const trace = readTrace(id)!;
  const english = readNotes(info.dir, "en");

  it("exist in English for every prompt and model turn, and name only steps of the run", () => {
    expect(existsSync(notesFile(info.dir, "en")), `${id} has no notes/en.yaml`).toBe(true);
    const { byStep, unused } = attachNotes(trace.steps, english);
    expect(unused).toEqual([]);
    const silent = trace.steps
      .map((step, i) => ({ step, ...byStep[i] }))
      .filter(({ step, note }) => (step.kind === "user" || step.kind === "response") && !note)
      .map(({ keys }) => keys[0]);
    expect(silent, `steps without a note (npm run notes -- ${id})`).toEqual([]);
    expect(Object.keys(english.phases).length).toBeGreaterThanOrEqual(2);
  });

  it.each(TRANSLATED_LOCALES.map((l) => [l]))("in %s use only English keys", (locale) => {
    const file = notesFile(info.dir, locale);
    if (!existsSync(file)) return; // reported by npm run i18n:status; the player shows English
    const translated = readNotes(info.dir, locale);
    expect(translated.sourceHash, `${file} records no sourceHash`).toMatch(/^[0-9a-f]{12}$/);
    for (const key of Object.keys(translated.notes)) expect(english.notes).toHaveProperty([key]);
    for (const key of Object.keys(translated.phases)) expect(english.phases).toHaveProperty([key]);
  });
});

describe("translation status of notes", () => {
  it("a translation is fresh only while its sourceHash is the English file's hash", () => {
    const rows = notesStatus(REPO_ROOT);
    for (const row of rows.filter((r) => r.status !== "missing")) {
      const english = readFileSync(`${REPO_ROOT}/${row.english}`, "utf8");
      const recorded = readNotes(
        `${REPO_ROOT}/${row.english.replace(/\/notes\/en\.yaml$/, "")}`,
        row.locale,
      ).sourceHash;
      expect(row.status).toBe(recorded === notesHash(english) ? "fresh" : "stale");
    }
    // The hash ignores reflowing and the sourceHash line itself.
    expect(notesHash("notes:\n  lead#1: a b")).toBe(
      notesHash('sourceHash: "x"\nnotes:\n  lead#1:   a\n    b\n'),
    );
    expect(notesHash("notes:\n  lead#1: a b")).not.toBe(notesHash("notes:\n  lead#1: a c"));
  });

  it("the terminal falls back to English for a note not translated yet", () => {
    const s05 = chapters.find((c) => c.id === "s05")!;
    const merged = notesFor(s05.dir, "de");
    const english = readNotes(s05.dir, "en");
    for (const key of Object.keys(english.notes)) expect(merged.notes[key]).toBeTruthy();
  });
});

describe("the terminal", () => {
  it("picks the notes' language from --lang, then LANG; a wrong --lang is a clear error", () => {
    expect(terminalLocale(undefined, { LANG: "de_DE.UTF-8" })).toBe("de");
    expect(terminalLocale(undefined, { LANG: "fr_FR.UTF-8" })).toBe("en");
    expect(terminalLocale("ja", { LANG: "de_DE.UTF-8" })).toBe("ja");
    expect(() => terminalLocale("xx", {})).toThrow(/--lang must be one of en, ja, zh, de/);
  });

  it("--demo prints each step's note and phase offline; a real model's run gets none", async () => {
    const s05 = chapters.find((c) => c.id === "s05")!;
    const notes = readNotes(s05.dir, "en");
    const ws = `${REPO_ROOT}/.workspace/test-notes-s05`;
    const offline = await runCli(["s05", "--demo", "--reset", "--workspace", ws, "--lang", "en"]);
    expect(offline.code).toBe(0);
    const flat = offline.stdout.replace(/\s*│\s*/g, " ").replace(/\s+/g, " ");
    for (const note of [notes.notes["lead#7"], notes.notes["harness#1"], notes.notes["prompt#2"]])
      expect(flat).toContain(note.replace(/\s+/g, " ").trim());
    expect(offline.stdout).toContain(`── ${notes.phases["lead#7"]} ──`);
    // The notes come after their step: the compact call's note follows its reply text.
    expect(flat.indexOf("Compacting to free the context.")).toBeLessThan(
      flat.indexOf(notes.notes["lead#7"].replace(/\s+/g, " ").trim()),
    );
    const wrong = await runCli(["s05", "--demo", "--lang", "klingon"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--lang must be one of/);
  });
});

describe("folded translations", () => {
  it("a wrapped line inside Chinese or Japanese text gets no space; English keeps its spaces", () => {
    const notes = parseNotes(
      "notes:\n  lead#1: >-\n    模型先调用工具，\n    然后继续。\n  lead#2: >-\n    ツールを\n    呼び出します。\n  lead#3: >-\n    two\n    words\n",
    );
    expect(notes.notes["lead#1"]).toBe("模型先调用工具，然后继续。");
    expect(notes.notes["lead#2"]).toBe("ツールを呼び出します。");
    expect(notes.notes["lead#3"]).toBe("two words");
  });
});
