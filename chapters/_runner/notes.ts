// Step notes: a sentence or two on what a step of a chapter's scripted run does and why now.
// One source for the terminal (`--step`, `--demo`) and the site's player. They live beside the
// chapter, one file per locale: chapters/<chapter>/notes/en.yaml (the source), ja.yaml, zh.yaml,
// de.yaml (translations, which record the hash of the English file they were made from).
//
//   sourceHash: "1a2b3c4d5e6f"   # translations only: see site/lib/translation.ts
//   phases:                      # parts of the run a reader can jump to, keyed by their first step
//     lead#1: Planning
//   notes:
//     prompt#1: The first request …
//     lead#1: The model answers with a tool call, so the loop goes on …
//     "@compacted": The history is now one summary …
//
// A key names a step of the run, counted the same way while the run happens and in a recording:
//   prompt#N          the N-th prompt a person sent (the scenario's prompts, in order)
//   <agent>#N         that agent's N-th model response (lead#3, alice#1, subagent#2)
//   harness#N         the N-th line the harness printed on its own (a "◆" step: a cleared result…)
//   @<event>#N        the N-th harness event of that type, whoever raised it (@task_claimed#2)
//   <agent>@<event>#N the N-th such event of one agent (bob@member_state#3)
// "#1" may be left out: `@compacted` is `@compacted#1`.
//
// This module is pure (the site's player and the browser's recording reader use it); reading the
// files is notes-files.ts's.
import { parse } from "yaml";
import type { TraceEvent } from "../_trace/contract.ts";

export interface StepNotes {
  /** Translations: the hash of the English notes file they were made from. */
  sourceHash?: string;
  phases: Record<string, string>;
  notes: Record<string, string>;
}

export const EMPTY_NOTES: StepNotes = { phases: {}, notes: {} };

export function parseNotes(text: string, file = "notes"): StepNotes {
  let data: unknown;
  try {
    data = parse(text) ?? {};
  } catch (err) {
    throw new Error(`${file}: not valid YAML (${(err as Error).message.split("\n")[0]})`);
  }
  const record = (value: unknown, field: string): Record<string, string> => {
    if (value === undefined || value === null) return {};
    if (typeof value !== "object" || Array.isArray(value))
      throw new Error(`${file}: "${field}" must map step keys to text`);
    const out: Record<string, string> = {};
    for (const [key, text] of Object.entries(value)) {
      if (typeof text !== "string") throw new Error(`${file}: ${field}.${key} must be text`);
      if (!KEY.test(key)) throw new Error(`${file}: "${key}" is not a step key (${KEY_HELP})`);
      out[key] = unfoldCJK(text);
    }
    return out;
  };
  const { sourceHash, phases, notes, ...rest } = data as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new Error(`${file}: unknown field ${unknown.join(", ")}`);
  return {
    ...(sourceHash !== undefined ? { sourceHash: String(sourceHash) } : {}),
    phases: record(phases, "phases"),
    notes: record(notes, "notes"),
  };
}

/** YAML's folded text (`>-`) joins wrapped lines with a space, which is wrong between Chinese or
 *  Japanese characters: a translator may wrap lines anywhere, so such a space is taken out. */
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303f\\uff00-\\uffef";
const FOLDED_CJK = new RegExp(`(?<=[${CJK}]) (?=[${CJK}])`, "gu");
const unfoldCJK = (text: string) => text.replace(FOLDED_CJK, "");

const KEY = /^(?:prompt#\d+|[\w.-]+#\d+|(?:[\w.-]+)?@[\w.-]+(?:#\d+)?)$/;
const KEY_HELP = "prompt#N, <agent>#N, harness#N, @<event>#N or <agent>@<event>#N";

/** Counts steps as they happen and names each one; feed it every step in order. */
export class StepKeys {
  #counts = new Map<string, number>();
  #next(group: string): number {
    const n = (this.#counts.get(group) ?? 0) + 1;
    this.#counts.set(group, n);
    return n;
  }
  /** The keys this step answers to (most specific first); empty for steps notes don't attach to. */
  keysOf(step: TraceEvent): string[] {
    if (step.kind === "user") return [`prompt#${this.#next("prompt")}`];
    if (step.kind === "response") return [`${step.agent}#${this.#next(`${step.agent}#`)}`];
    if (step.kind === "note") return [`harness#${this.#next("harness")}`];
    if (step.kind !== "event") return [];
    const own = this.#next(`${step.agent}@${step.type}`);
    const any = this.#next(`@${step.type}`);
    const keys = [`${step.agent}@${step.type}#${own}`, `@${step.type}#${any}`];
    if (own === 1) keys.push(`${step.agent}@${step.type}`);
    if (any === 1) keys.push(`@${step.type}`);
    return keys;
  }
}

/** The first entry of `table` any of the keys names. */
const pick = (table: Record<string, string>, keys: string[]) =>
  keys.map((k) => table[k]).find((t) => t !== undefined);

/** For each step of a run: its note and the phase it starts, if any. `unused` lists keys that
 *  name no step, so a test can catch a note left behind when a scenario changes. */
export function attachNotes(
  steps: readonly TraceEvent[],
  notes: StepNotes,
): {
  byStep: { keys: string[]; note?: string; phase?: string }[];
  unused: string[];
} {
  const keyer = new StepKeys();
  const used = new Set<string>();
  const byStep = steps.map((step) => {
    const keys = keyer.keysOf(step);
    for (const k of keys) if (k in notes.notes || k in notes.phases) used.add(k);
    return { keys, note: pick(notes.notes, keys), phase: pick(notes.phases, keys) };
  });
  const unused = [...Object.keys(notes.notes), ...Object.keys(notes.phases)].filter(
    (k) => !used.has(k),
  );
  return { byStep, unused: [...new Set(unused)] };
}

/** A run's notes told as it happens (--step, --demo): feed it every step in order; it gives the
 *  phase a step starts and its note, if any, by the same keys the site's player uses. */
export function noteTeller(
  notes: StepNotes,
): (step: TraceEvent) => { phase?: string; note?: string } {
  const keyer = new StepKeys();
  return (step) => {
    const keys = keyer.keysOf(step);
    return {
      phase: keys.map((k) => notes.phases[k]).find(Boolean),
      note: keys.map((k) => notes.notes[k]).find(Boolean),
    };
  };
}
