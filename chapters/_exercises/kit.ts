// What an exercise is made of, and what its checks may use. An exercise is named by its chapter:
// `s03` rebuilds the chapter's own mechanism, `s03.1`, `s03.2` … extend it (the workshop kit's
// exercises, in its order). Its checks are the curriculum's behaviours, written once here and run
// both by the chapter's test file (against the reference code) and by `npm run exercise -- --check`
// (against the learner's copy), so a check cannot drift from what the chapter is tested to do.
//
// A check fails by throwing a CheckFailure: a key into the exercise's words
// (chapters/<chapter>/exercises/<locale>.yaml, `messages:`) and the values the message names, so
// the same failure reads in the learner's language ("round 4's request had no <reminder>").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnv, type Env } from "../_runner/runtime.ts";
import type { ChapterModule, ScriptedTurn } from "../_shared/types.ts";

/** A behaviour did not hold. `key` names the message in the words file; `values` fill it in. */
export class CheckFailure extends Error {
  constructor(
    readonly key: string,
    readonly values: Record<string, string | number> = {},
  ) {
    super(`${key} ${JSON.stringify(values)}`);
    this.name = "CheckFailure";
  }
}

/** Throws CheckFailure(key, values) unless `condition` holds. */
export function expectThat(
  condition: unknown,
  key: string,
  values: Record<string, string | number> = {},
): asserts condition {
  if (!condition) throw new CheckFailure(key, values);
}

/** An env driven by a scripted model, with the requests it sent (what a check inspects). */
export type CheckEnv = Env & { requests: NonNullable<Env["scripted"]>["requests"] };

/** What a check gets besides the module under test: fresh workspaces and scripted envs. The
 *  chapter tests pass one whose folders their own clean-up removes; the checker its own. */
export interface CheckKit {
  workspace(): string;
  env(
    script: ScriptedTurn[] | Record<string, ScriptedTurn[]>,
    opts?: { workspace?: string; answers?: string[] },
  ): CheckEnv;
}

/** A kit whose folders are removed by `cleanUp()` (the checker's; tests use their tempDir). */
export function checkKit(makeDir?: () => string): CheckKit & { cleanUp(): void } {
  const made: string[] = [];
  const workspace =
    makeDir ??
    (() => {
      const dir = mkdtempSync(path.join(tmpdir(), "lah-check-"));
      made.push(dir);
      return dir;
    });
  return {
    workspace,
    env(script, opts = {}) {
      const env = createEnv({
        workspace: opts.workspace ?? workspace(),
        scenario: {
          script: Array.isArray(script) ? { lead: script } : script,
          answers: opts.answers,
        },
      });
      return Object.assign(env, { requests: env.scripted!.requests });
    },
    cleanUp() {
      for (const dir of made.splice(0))
        for (const d of [dir, `${dir}.harness`]) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** A piece a rebuild's learner writes: a function or method by name, and its contract in a
 *  sentence or three (blanks.ts cuts it out of the lesson and puts the answer back). */
export interface Blank {
  name: string;
  contract: string;
}

/** One behaviour. `id` keys its words (`checks.<id>`: the behaviour in plain words). */
export interface Check<M = ChapterModule> {
  id: string;
  /** How long it may take before "your code did not stop within N s" (default 10 s). */
  limitMs?: number;
  run(module: M, kit: CheckKit): Promise<void> | void;
}

/** One exercise of a chapter. */
export interface Exercise<M = ChapterModule> {
  /** "s03", "s03.1" */
  id: string;
  kind: "rebuild" | "extend";
  /** The lesson file the learner edits, in the chapter's folder ("agent.ts"). */
  file: string;
  /** Rebuild: the functions whose bodies the learner writes. Starting the exercise replaces each
   *  body by a stub that compiles, states the contract and throws "not started" (blanks.ts). */
  blanks?: Blank[];
  /** Extend: the reference answer, as the regions it replaces, each given as its text or as a
   *  change to the chapter's own region (rebuild: the chapter's own code is the answer). */
  solution?: Record<string, string | ((reference: string) => string)>;
  checks: Check<M>[];
}

/** The error a stub throws; the checker reports it as "not started", not as a failure. */
export const NOT_STARTED = "not started:";

/** An extend's answer as a change to the chapter's own region: `from` replaced by `to`, and an
 *  error naming the text when it is not there (the chapter changed, so the answer must too). */
export const change = (from: string, to: string) => (reference: string) => {
  if (!reference.includes(from)) throw new Error(`the answer's text is not in the region: ${from}`);
  return reference.replace(from, to);
};

/** What `act` threw (its message), or undefined if it did not: a refusal the chapter's code is
 *  expected to make. A stub's "not started" goes on up, so it reports as not started. */
export function refusal(act: () => unknown): string | undefined {
  try {
    act();
    return undefined;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.startsWith(NOT_STARTED)) throw err;
    return message;
  }
}
