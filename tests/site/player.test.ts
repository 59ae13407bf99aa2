// The player's model of a recorded run (site/lib/player.ts): plain words for every event in every
// locale, correct plurals, bookkeeping that never hides a noted step, and the code beside each
// step (its recorded `at`, site/lib/step-spots.ts) pointing at a region that exists and a line
// that does the step.
import { describe, expect, it } from "vitest";
import { readNotes } from "../../chapters/_runner/notes-files.ts";
import { LOCALES } from "../../i18n/locales.ts";
import { allChapters, chapter } from "../../site/lib/chapters.ts";
import { eventWords, playerSteps, type Translate } from "../../site/lib/player.ts";
import { regionsOf } from "../../site/lib/regions.ts";
import { codeSpots, lessonPlaces } from "../../site/lib/player-data.ts";
import { spotAt, spotOf, spotsByKind, stepKey } from "../../site/lib/step-spots.ts";
import { fc, forAll } from "../../chapters/_exercises/property.ts";
import { traceStepSchema, type TraceEvent } from "../../chapters/_trace/contract.ts";
import { sequenceFromTrace, sequenceLinks } from "../../site/lib/trace-sequence.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { allRunnable } from "../../chapters/_runner/chapters.ts";
import { translatorFor } from "../support/ui-strings.ts";
import { importsOf } from "../../site/lib/imports.ts";

/** A chapter's lesson files (agent.ts, and s13's mailbox.ts …), as the player's finder reads them. */
const filesOf = (id: string) => {
  const data = allChapters.find((c) => c.id === id);
  return data && data.files.map((f) => ({ id, file: f.file, source: f.source }));
};
/** A chapter and every chapter its code imports, directly or through another. */
const reachableMemo = new Map<string, string[]>();
const reachable = (id: string): string[] => {
  if (!reachableMemo.has(id))
    reachableMemo.set(id, [
      id,
      ...(filesOf(id) ?? []).flatMap((f) => importsOf(f.source)).flatMap((i) => reachable(i)),
    ]);
  return reachableMemo.get(id)!;
};
const dirOf = (id: string) => allRunnable().find((c) => c.id === id)!.dir;

describe("the code beside each step", () => {
  it.each(allChapters.map((c) => [c.id]))(
    "%s: every model call, tool, event and note of the run points at the line that does it",
    (id) => {
      const trace = readTrace(id)!;
      const spots = codeSpots(chapter(id));
      trace.steps.forEach((step, i) => {
        if (step.kind === "user") return;
        const what = JSON.stringify(step).slice(0, 120);
        // A slash command's output is printed by the runner (playScenario), not a lesson.
        if (step.kind === "note" && !step.at) return;
        const spot = spots[i];
        expect(spot, `no code for ${what} (at ${JSON.stringify(step.at)})`).toBeDefined();
        const source = filesOf(spot!.chapter)!.find((f) => f.file === spot!.file)!.source;
        const region = regionsOf(source).find((r) => r.name === spot!.region);
        expect(region, `${spot!.chapter} has no region ${spot!.region}`).toBeDefined();
        expect(spot!.line).toBeGreaterThan(region!.start);
        expect(spot!.line).toBeLessThan(region!.end);
        const lines = source.split("\n");
        const line = lines[spot!.line - 1];
        // The call that does it may run over a few lines (`this.log({\n event: "…"`).
        const call = lines.slice(spot!.line - 1, spot!.line + 4).join("\n");
        const failedCall = step.kind === "event" && step.type === "model_error";
        if (step.kind === "request" || step.kind === "response" || failedCall)
          expect(line, what).toMatch(/messages\.create\(/);
        else if (step.kind === "event") expect(call, what).toContain(`"${step.type}"`);
        else if (step.kind === "note") expect(call, what).toMatch(/\b(?:note\w*|ask)\(/);
        else if (step.name.startsWith("mcp__")) expect(line).toMatch(/handlers\[\w+\]\s*=/);
        else expect(line, what).toContain(step.name);
        // Imported code is named as such: the chapter or one it imports, directly or not.
        expect(reachable(id)).toContain(spot!.chapter);
      });
    },
  );

  it("a step taken in a lesson file beside agent.ts points into that file: s13's mail events in mailbox.ts", () => {
    const trace = readTrace("s13")!;
    const spots = codeSpots(chapter("s13"));
    const spotOfType = (type: string) =>
      spots[trace.steps.findIndex((s) => s.kind === "event" && s.type === type)];
    for (const type of ["mailbox_send", "mailbox_read"])
      expect(spotOfType(type)).toMatchObject({
        chapter: "s13",
        file: "mailbox.ts",
        region: "post",
      });
    expect(spotOfType("task_claimed")).toMatchObject({ file: "agent.ts", region: "lanes" });
  });

  it("the lead's model calls point at the loop, a child's at its own loop (s06)", () => {
    const trace = readTrace("s06")!;
    const spots = codeSpots(chapter("s06"));
    const regionsOf = (agent: string) =>
      new Set(
        trace.steps.flatMap((s, i) =>
          s.kind === "response" && s.agent === agent ? [spots[i]?.region] : [],
        ),
      );
    expect([...regionsOf("lead")]).toEqual(["loop"]);
    const child = [...regionsOf("subagent")];
    expect(child.length).toBeGreaterThan(0);
    expect(child).not.toContain("loop");
  });

  it("a relay is not where a step is taken: s12's worktree events point at the line that logs each", () => {
    // s12's manager logs through a callback the chapter passes in (`({ event, ...data }) =>
    // env.io.event(event, data)`) and a log(entry) method: both only pass on what they were given.
    const trace = readTrace("s12")!;
    const spots = codeSpots(chapter("s12"));
    const lines = new Map<string, number>();
    trace.steps.forEach((s, i) => {
      if (s.kind === "event" && s.type.startsWith("worktree_")) lines.set(s.type, spots[i]!.line);
    });
    expect(lines.size).toBeGreaterThanOrEqual(3);
    expect(new Set(lines.values()).size).toBe(lines.size); // each type its own line
  });

  it("a recording made before steps said where (version 3) still finds its code by the kind of step", () => {
    const trace = readTrace("s02")!;
    const places = lessonPlaces(chapter("s02"));
    const byKind = spotsByKind(places, trace.steps);
    const old = trace.steps.map(({ at: _at, ...step }) => step as TraceEvent);
    const found = old.map((step) => spotOf(places, step, byKind));
    expect(found.filter(Boolean).length).toBe(trace.steps.filter((s) => s.at).length);
    const bash = old.findIndex((s) => s.kind === "tool_call" && s.name === "bash");
    expect(found[bash]).toEqual(spotAt(places, trace.steps[bash].at));
    // and a spot never comes from outside the lessons: an `at` naming another file finds nothing
    expect(
      spotOf(places, {
        ...trace.steps[bash],
        at: { file: "chapters/s02-tool-use/scenario.ts", line: 3 },
      }),
    ).toBeUndefined();
  });
});

describe("a recording's `at`, read", () => {
  it("names a lesson file of the repository, or the step is refused; it is only looked up", () => {
    const step = { kind: "note", agent: "lead", text: "hi" };
    for (const file of [
      "chapters/s02-tool-use/agent.ts",
      "chapters/s13-agent-teams/mailbox.ts",
      "chapters/a1-mcp-servers/agent.ts",
    ])
      expect(traceStepSchema.safeParse({ ...step, at: { file, line: 3 } }).success, file).toBe(
        true,
      );
    for (const file of [
      "chapters/../../etc/passwd.ts",
      "/etc/passwd",
      "chapters/s02-tool-use/exercises/checks.ts",
      "chapters/_runner/run.ts",
      "__proto__",
      "https://example.com/x.ts",
    ])
      expect(traceStepSchema.safeParse({ ...step, at: { file, line: 3 } }).success, file).toBe(
        false,
      );
    expect(
      traceStepSchema.safeParse({
        ...step,
        at: { file: "chapters/s02-tool-use/agent.ts", line: 0 },
      }).success,
    ).toBe(false);
    // A lesson file the chapter does not reach shows no code (its places are the site's own).
    const places = lessonPlaces(chapter("s02"));
    expect(
      spotOf(places, {
        ...step,
        kind: "note",
        at: { file: "chapters/s13-agent-teams/mailbox.ts", line: 70 },
      } as TraceEvent),
    ).toBeUndefined();
  });
});

describe("an older recording's steps, found by their kind", () => {
  it("any run, any step: the spot shown is the step's own or none, never another step's (property)", async () => {
    // The rule spotsByKind keeps: a kind is looked up only if the chapter's run took it at one
    // line. Runs are generated from s13's places (four files, many regions), with steps of a few
    // kinds taken at a few lines each.
    const places = lessonPlaces(chapter("s13"));
    const lines = Object.entries(places).flatMap(([file, place]) =>
      place.regions.slice(0, 3).map((r) => ({ file, line: r.start + 1 })),
    );
    const step = fc.record({
      kind: fc.constantFrom("tool_call", "event", "request", "note"),
      name: fc.constantFrom("bash", "send", "task_update"),
      agent: fc.constantFrom("lead", "alice"),
      at: fc.option(fc.constantFrom(...lines), { nil: undefined }),
    });
    const asStep = (s: {
      kind: string;
      name: string;
      agent: string;
      at?: { file: string; line: number };
    }): TraceEvent =>
      (s.kind === "tool_call"
        ? { kind: "tool_call", agent: s.agent, id: "t", name: s.name, input: {}, at: s.at }
        : s.kind === "event"
          ? { kind: "event", agent: s.agent, type: "task", data: {}, at: s.at }
          : s.kind === "note"
            ? { kind: "note", agent: s.agent, text: s.name, at: s.at }
            : { kind: "request", agent: s.agent, messages: 1, tools: [], at: s.at }) as TraceEvent;
    await forAll(
      fc.array(step, { minLength: 1, maxLength: 30 }),
      (generated) => {
        const run = generated.map(asStep);
        const byKind = spotsByKind(places, run);
        for (const taken of run) {
          const { at: _at, ...older } = taken;
          const shown = spotOf(places, older as TraceEvent, byKind);
          if (!shown) continue;
          // every step of that kind in the run was taken where it is shown
          for (const other of run)
            if (stepKey(other) === stepKey(taken) && other.at)
              expect(spotAt(places, other.at)).toEqual(shown);
        }
      },
      { runs: 200 },
    );
  });
});

describe("plain words", () => {
  it.each(LOCALES.map((l) => [l]))(
    "every event of every run has a headline in %s, with no placeholder left",
    (locale) => {
      const t = translatorFor(locale) as Translate;
      for (const c of allChapters) {
        for (const step of readTrace(c.id)!.steps) {
          if (step.kind !== "event") continue;
          const words = eventWords(step, t);
          expect(words, `${c.id} ${step.type}`).not.toBe(step.type);
          expect(words).not.toMatch(/\{\w+\}|undefined|\[object/);
        }
      }
    },
  );

  it.each(LOCALES.map((l) => [l]))(
    "a failed model call and a Ctrl-C have headlines in %s that say what happened",
    (locale) => {
      const t = translatorFor(locale) as Translate;
      const events = [
        { type: "model_error", data: { status: 529, message: "Overloaded" } },
        { type: "model_error", data: { status: null, message: "socket hang up" } },
        { type: "interrupted", data: { results: 2, partial: true } },
        { type: "interrupted", data: { results: 0, partial: false } },
      ] as const;
      const [overload, network, kept, none] = events.map((e) => eventWords(e, t));
      expect(overload).toMatch(/529.*Overloaded/);
      expect(network).toContain("socket hang up");
      expect(kept).toMatch(/Ctrl-C|Strg-C/);
      expect(kept).toContain("2");
      expect(kept).not.toBe(none.replace("0", "2"));
      for (const words of [overload, network, kept, none])
        expect(words).not.toMatch(/\{\w+\}|undefined|\[object|model_error/);
    },
  );

  it("counts read right: 1 message, 2 messages; 1 Nachricht, 2 Nachrichten", () => {
    const en = translatorFor("en");
    const de = translatorFor("de");
    expect(en("player.messages", { count: 1 })).toBe("1 message");
    expect(en("player.messages", { count: 5 })).toBe("5 messages");
    expect(en("player.tools", { count: 1 })).toBe("1 tool");
    expect(de("player.messages", { count: 1 })).toBe("1 Nachricht");
    expect(de("player.messages", { count: 2 })).toBe("2 Nachrichten");
    expect(translatorFor("ja")("player.messages", { count: 1 })).toBe("メッセージ 1 件");
  });
});

describe("the player's steps", () => {
  it("s05: notes land on their steps, bookkeeping is marked, a noted step is never bookkeeping", () => {
    const trace = readTrace("s05")!;
    const english = readNotes(dirOf("s05"), "en");
    const t = translatorFor("en") as Translate;
    const steps = playerSteps(trace, { local: english, english }, t);
    const compactReply = steps.findIndex(
      (s) => s.kind === "response" && s.title.includes("compact"),
    );
    expect(steps[compactReply].note).toBe(english.notes["lead#7"].trim());
    expect(steps[compactReply].phase).toBe(english.phases["lead#7"]);
    expect(steps.filter((s) => s.kind === "request").every((s) => s.minor)).toBe(true);
    expect(steps.filter((s) => s.note).every((s) => !s.minor)).toBe(true);
    const compacted = steps.find((s) => s.kind === "event")!;
    expect(compacted.title).toMatch(/history compacted: ~1003 → ~139 tokens/);
    expect(compacted.raw).toContain('"transcript"');
    expect(steps.find((s) => s.kind === "request")!.title).toBe("→ model · 1 message · 6 tools");
  });

  it("a locale without a translation of a note shows the English one, marked as such", () => {
    const trace = readTrace("s05")!;
    const english = readNotes(dirOf("s05"), "en");
    const t = translatorFor("de") as Translate;
    const local = { phases: {}, notes: { "lead#1": "Ein gewöhnlicher Werkzeugaufruf." } };
    const steps = playerSteps(trace, { local, english }, t);
    const first = steps.find((s) => s.kind === "response")!;
    expect(first.note).toBe("Ein gewöhnlicher Werkzeugaufruf.");
    expect(first.noteFallback).toBeUndefined();
    const second = steps.filter((s) => s.kind === "response")[1];
    expect(second.note).toBe(english.notes["lead#2"].trim());
    expect(second.noteFallback).toBe(true);
  });
});

describe("the generated sequence diagram and the player", () => {
  it.each([["s13"], ["s15"], ["a1"]])(
    "%s: each arrow and note knows the step it came from",
    (id) => {
      const trace = readTrace(id)!;
      const code = sequenceFromTrace(trace).split("\n");
      const links = sequenceLinks(trace);
      const arrows = code.filter((l) => /^\s*\S+?(?:--?>>|-\))\S/.test(l));
      const notes = code.filter((l) => /^\s*Note over /.test(l));
      expect(links.messages).toHaveLength(arrows.length);
      expect(links.notes).toHaveLength(notes.length);
      links.messages.forEach((stepIndex, k) => {
        const step = trace.steps[stepIndex];
        if (step.kind === "event" && step.type === "mailbox_send")
          expect(arrows[k]).toContain(String(step.data.type));
        else if (step.kind === "tool_call")
          expect(arrows[k]).toMatch(/spawn|tools\/call|-->>\w+: (?:result|error)$/);
        else expect(step.kind === "event" && step.type === "mcp_server").toBe(true);
      });
      // In step order, as the run happened.
      expect([...links.messages].sort((a, b) => a - b)).toEqual(links.messages);
    },
  );
});
