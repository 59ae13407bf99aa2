// Third independent attack on s07's gate (2026-12-04), the door since held: `touch` spelled with
// quotes inside one alternative of a brace expansion (`{"touch",} x`, `{git"",} push`). No one
// unquoted piece of the word holds `{…,…}`, so the gate read it as the text `{touch,}`; bash runs
// `touch`. The gate now reads a brace expansion on the whole word's unquoted skeleton. Each
// generated command is first run in bash (a file appears), then put to the gate, which refuses it.
import { test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { budget } from "../support/budgets.ts";
import { braceWord, gate, MARK, runsThePayload, SEED } from "../support/gate-attack.ts";

describe("a denied command inside a brace expansion with a quoted alternative", () => {
  test.prop([braceWord.map((w) => `${w} ${MARK}`)], { seed: SEED, numRuns: 12 })(
    "bash runs it, and the gate refuses it",
    async (command) => {
      expect(await runsThePayload(command), `bash runs the payload: ${command}`).toBe(true);
      expect(await gate(command), command).not.toBeNull();
    },
    budget({ cli: 8 }),
  );
});
