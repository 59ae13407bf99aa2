// Recordings used to leave out errors and interrupts (issue 37): the player showed a request and
// then the next prompt, with nothing between. A failed model call is now a `model_error` step and
// Ctrl-C an `interrupted` step, recorded as they happen, read back by the player's own reader.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readRecording } from "../../site/lib/recording.ts";
import { budget } from "../support/budgets.ts";
import type { FakeApi } from "../support/fake-api.ts";
import { recordFailureAndInterrupt } from "../support/recordings.ts";
import { hasPseudoTerminal } from "../support/terminal.ts";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe.skipIf(!hasPseudoTerminal)("errors and interrupts in a recording", () => {
  it(
    "a failed call and a Ctrl-C are steps between their request and the next prompt",
    { timeout: budget({ cli: 4 }) },
    async () => {
      const made = await recordFailureAndInterrupt();
      api = made.api;
      const file = made.file;
      const { trace } = readRecording(readFileSync(file, "utf8"));
      const shape = trace.steps.map((s) => (s.kind === "event" ? `event:${s.type}` : s.kind));
      expect(shape).toEqual([
        "user",
        "request",
        "event:model_error",
        "user",
        "request",
        "event:interrupted",
      ]);
      expect(trace.steps[2]).toMatchObject({
        agent: "lead",
        data: { status: 529, message: "Overloaded" },
      });
      expect(trace.steps[5]).toMatchObject({ agent: "lead", data: { results: 0, partial: true } });
    },
  );
});
