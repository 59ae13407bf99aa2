// The player's state panels in the reader's language (site/lib/state-words.ts): the timeline
// (run-state.ts) holds data as data and our words as phrases; worded with ja, zh or de strings,
// a board (s10, s13), a request table (s15), a4's checkpoints and a5's sessions show no English
// status word, and every name, id and path is still there as the run recorded it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SEED } from "../../chapters/_exercises/property.ts";
import type { TraceEvent } from "../../chapters/_trace/contract.ts";
import de from "../../i18n/ui.de.json" with { type: "json" };
import en from "../../i18n/ui.en.json" with { type: "json" };
import ja from "../../i18n/ui.ja.json" with { type: "json" };
import zh from "../../i18n/ui.zh.json" with { type: "json" };
import { readTrace } from "../../site/lib/record-trace.ts";
import { stateTimeline, type Snapshot } from "../../site/lib/run-state.ts";
import {
  STATE_WORDS,
  STATUSES,
  stateStrings,
  stateWording,
  stateWordsStatus,
  stringsFor,
  type Cell,
  type Phrase,
} from "../../site/lib/state-words.ts";

const UI = { ja, zh, de } as const;
const english = stateStrings(en);
const wording = (locale: keyof typeof UI) =>
  stateWording(stateStrings(UI[locale]), english, locale);

/** Words a state panel says in English: statuses and the words around the data. */
const ENGLISH_WORDS =
  /\b(pending|in_progress|completed|approved|rejected|expired|working|idle|shutdown|running|failed|open|removed|allowed|refused|owner|blocked by|lane|start|resume|fork|undone|code|conversation|rounds?|tokens|not checked|kept|results?|stopped|met|not_met)\b/;

/** Every value a phrase was filled with, data only (nested phrases are words). */
const dataOf = (cell: Cell): string[] =>
  typeof cell === "string"
    ? [cell]
    : cell.flatMap(([, vars = {}]: Phrase) =>
        Object.values(vars).flatMap((v) => (Array.isArray(v) ? dataOf([v]) : [String(v)])),
      );

/** Every cell of every step's snapshot, once. */
const cellsOf = (snapshots: Snapshot[]) => {
  const cells = new Map<string, { panel: string; column: number; cell: Cell }>();
  for (const snapshot of new Set(snapshots))
    for (const [panel, rows] of Object.entries(snapshot))
      for (const row of rows!)
        row.forEach((cell, column) =>
          cells.set(JSON.stringify([panel, column, cell]), { panel, column, cell }),
        );
  return [...cells.values()];
};

describe("the state panels in the reader's language", () => {
  it.each([
    ["s10", "tasks", 3],
    ["s13", "tasks", 3],
    ["s13", "roster", 1],
    ["s15", "requests", 3],
    ["s15", "roster", 1],
    ["a4", "checkpoints", 2],
    ["a5", "sessions", 1],
  ] as const)("%s: the %s panel's column %i is in ja, zh and de words", (id, panel, column) => {
    const cells = cellsOf(stateTimeline(readTrace(id)!)).filter(
      (c) => c.panel === panel && c.column === column,
    );
    const worded = cells.filter((c) => typeof c.cell !== "string");
    expect(worded.length, `${id} ${panel}: no worded cell`).toBeGreaterThan(0);
    for (const locale of ["ja", "zh", "de"] as const) {
      const word = wording(locale);
      for (const { cell } of cells) {
        const { text, english } = word(cell);
        expect(english, `${locale}: ${JSON.stringify(cell)} has no translation`).toBe(false);
        // No English status word is left in our words (the data in them is the run's).
        const words = dataOf(cell).reduce((rest, data) => rest.split(data).join(" "), text);
        expect(words, `${locale}: ${text}`).not.toMatch(ENGLISH_WORDS);
        for (const data of dataOf(cell)) expect(text, locale).toContain(data);
      }
    }
  });

  it("words every status the chapters record, in every locale, never as the English", () => {
    for (const locale of ["ja", "zh", "de"] as const) {
      const word = wording(locale);
      for (const status of STATUSES) {
        const { text, english } = word([[`is.${status}`]]);
        expect(english, `${locale}: ${status}`).toBe(false);
        expect(text, `${locale}: ${status}`).not.toBe(status);
      }
    }
  });

  it("keeps the board's names, ids and lanes as data, whatever they are, in every locale", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
    fc.assert(
      fc.property(
        fc.record({
          owner: fc.option(name, { nil: null }),
          lane: fc.option(name, { nil: null }),
          blockedBy: fc.array(fc.integer({ min: 1, max: 99 }), { maxLength: 3 }),
          status: fc.constantFrom("pending", "in_progress", "completed"),
        }),
        (task) => {
          const steps: TraceEvent[] = [
            {
              kind: "event",
              agent: "lead",
              type: "task",
              data: { task: 7, subject: "Write it", ...task },
            } as TraceEvent,
          ];
          const [row] = stateTimeline({ ...readTrace("s10")!, steps })[0].tasks!;
          const notes = row[3];
          for (const locale of ["ja", "zh", "de"] as const) {
            const { text } = wording(locale)(notes);
            for (const data of [task.owner, task.lane, ...task.blockedBy.map((b) => `#${b}`)])
              if (data) expect(text).toContain(data);
            expect(text.replace(task.owner ?? "\0", "").replace(task.lane ?? "\0", "")).not.toMatch(
              /\b(owner|blocked by|lane)\b/,
            );
          }
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });

  it("shows a word a locale lacks in English, flagged, and data as it is", () => {
    const partial = stateStrings(ja);
    delete partial[`${STATE_WORDS}is.approved`];
    const word = stateWording(partial, english, "ja");
    expect(word([["is.approved"]])).toEqual({ text: "approved", english: true });
    expect(word([["is.pending"]])).toEqual({
      text: ja[`${STATE_WORDS}is.pending`],
      english: false,
    });
    expect(word("req_1")).toEqual({ text: "req_1", english: false });
  });

  it("picks the plural form of the reader's language", () => {
    const de = wording("de");
    expect(de([["kept", { count: 1 }]]).text).toBe("1 Ergebnis behalten");
    expect(de([["kept", { count: 2 }]]).text).toBe("2 Ergebnisse behalten");
  });

  it("the translation status counts the state words: every one translated; one taken out is missing", () => {
    const all = Object.keys(stateStrings(en)).length;
    const status = stateWordsStatus(en, { ja, zh, de });
    for (const locale of ["ja", "zh", "de"] as const)
      expect(status[locale]).toEqual({ fresh: all, missing: [], unused: [] });
    const { [`${STATE_WORDS}is.idle`]: _idle, ...lacking } = ja as Record<string, string>;
    const less = stateWordsStatus(en, {
      ja: { ...lacking, [`${STATE_WORDS}old`]: "古い" },
      zh,
      de,
    });
    expect(less.ja).toEqual({
      fresh: all - 1,
      missing: [`${STATE_WORDS}is.idle`],
      unused: [`${STATE_WORDS}old`],
    });
  });

  it.each(["s01", "s10", "s13", "s15", "a4", "a5", "a7", "s14"])(
    "%s: the words its player data carries word every cell as all the words do",
    (id) => {
      const cells = cellsOf(stateTimeline(readTrace(id)!)).map((c) => c.cell);
      for (const locale of ["ja", "zh", "de"] as const) {
        const carried = stringsFor(cells, UI[locale]);
        const word = stateWording(carried, stringsFor(cells, en), locale);
        const full = wording(locale);
        for (const cell of cells) expect(word(cell), locale).toEqual(full(cell));
        if (cells.every((c) => typeof c === "string"))
          expect(Object.keys(carried).sort(), "only the separator and the notice").toEqual([
            `${STATE_WORDS}english`,
            `${STATE_WORDS}sep`,
          ]);
      }
    },
  );

  it("a recording's hostile values stay its data: never a placeholder, a pattern or a key", () => {
    const hostile = "{{tasks}} $& $' <img src=x onerror=alert(1)> __proto__";
    const steps: TraceEvent[] = [
      {
        kind: "event",
        agent: "lead",
        type: "task",
        data: {
          task: 1,
          subject: hostile,
          status: "pending",
          owner: hostile,
          blockedBy: [],
          lane: hostile,
        },
      },
      {
        kind: "event",
        agent: "lead",
        type: "protocol",
        data: { request_id: hostile, type: hostile, from: "lead", to: "bob", status: "__proto__" },
      },
      {
        kind: "event",
        agent: "lead",
        type: "member_state",
        data: { name: hostile, state: "constructor" },
      },
    ] as TraceEvent[];
    const last = stateTimeline({ ...readTrace("s15")!, steps }).at(-1)!;
    // a status no chapter has is data, not a key looked up
    expect(last.requests![0][3]).toBe("__proto__");
    expect(last.roster![0][1]).toBe("constructor");
    for (const locale of ["ja", "zh", "de"] as const) {
      const notes = wording(locale)(last.tasks![0][3]);
      expect(notes.english).toBe(false);
      expect(notes.text.split(hostile)).toHaveLength(3); // owner and lane, each once, as they are
    }
  });
});
