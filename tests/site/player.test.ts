// The player's model of a recorded run (site/lib/player.ts): plain words for every event in every
// locale, correct plurals, bookkeeping that never hides a noted step, and the code beside each
// step (site/lib/step-code.ts) pointing at a region that exists and a line that does the step.
import { describe, expect, it } from "vitest";
import { readNotes } from "../../chapters/_runner/notes-files.ts";
import { LOCALES } from "../../i18n/locales.ts";
import { allChapters, chapter } from "../../site/lib/chapters.ts";
import { eventWords, playerSteps, type Translate } from "../../site/lib/player.ts";
import { regionsOf } from "../../site/lib/regions.ts";
import { codeFinder } from "../../site/lib/step-code.ts";
import { sequenceFromTrace, sequenceLinks } from "../../site/lib/trace-sequence.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { allRunnable } from "../../chapters/_runner/chapters.ts";
import { translatorFor } from "../support/ui-strings.ts";
import { importsOf } from "../../site/lib/imports.ts";

const sourceOf = (id: string) => allChapters.find((c) => c.id === id)?.source;
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
    "%s: every model call, tool and event points at the line that does it",
    (id) => {
      const trace = readTrace(id)!;
      const spotOf = codeFinder(filesOf(id)!, filesOf);
      for (const step of trace.steps) {
        if (step.kind === "user" || step.kind === "note") continue;
        const spot = spotOf(step);
        const what = JSON.stringify(step).slice(0, 120);
        expect(spot, `no code for ${what}`).toBeDefined();
        const source = filesOf(spot!.chapter)!.find((f) => f.file === spot!.file)!.source;
        const region = regionsOf(source).find((r) => r.name === spot!.region);
        expect(region, `${spot!.chapter} has no region ${spot!.region}`).toBeDefined();
        expect(spot!.line).toBeGreaterThan(region!.start);
        expect(spot!.line).toBeLessThan(region!.end);
        const lines = source.split("\n");
        const line = lines[spot!.line - 1];
        const failedCall = step.kind === "event" && step.type === "model_error";
        if (step.kind === "request" || step.kind === "response" || failedCall)
          expect(line).toMatch(/messages\.create\(/);
        else if (step.kind === "event")
          expect(lines.slice(spot!.line - 3, spot!.line).join("\n")).toMatch(
            new RegExp(`(event|log)\\(|"${step.type.replace(".", "\\.")}"`),
          );
        else if (step.name.startsWith("mcp__")) expect(line).toMatch(/handlers\[\w+\]\s*=/);
        else expect(line).toContain(step.name);
        // Imported code is named as such: the chapter or one it imports, directly or not.
        expect(reachable(id)).toContain(spot!.chapter);
      }
    },
  );

  it("a step handled in a lesson file beside agent.ts points into that file: s13's mail events in mailbox.ts", () => {
    const spotOf = codeFinder(filesOf("s13")!, filesOf);
    for (const type of ["mailbox_send", "mailbox_read"] as const)
      expect(spotOf({ kind: "event", type, data: {} as never, agent: "lead" })).toMatchObject({
        chapter: "s13",
        file: "mailbox.ts",
        region: "post",
      });
    expect(
      spotOf({ kind: "event", type: "task_claimed", data: {} as never, agent: "alice" }),
    ).toMatchObject({
      file: "agent.ts",
      region: "lanes",
    });
  });

  it("the lead's model calls point at the loop, a child's at its own loop (s06)", () => {
    const data = chapter("s06");
    const spotOf = codeFinder({ id: "s06", source: data.source }, sourceOf);
    const response = (agent: string) =>
      spotOf({ kind: "response", agent, stop_reason: "end_turn", text: "", calls: [] });
    expect(response("lead")?.region).toBe("loop");
    expect(response("subagent")?.region).not.toBe("loop");
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
