// From the independent attack on s07's permission gate (tests/open-doors/attack2-gate.test.ts holds
// the findings still open): an allow rule for a wrapper allowed what it wrapped. Seen failing on the
// gate before the fix; now every command a wrapper runs must be allowed too. The model is scripted
// and its calls go through the real chapter agent; commands really run, in the sandbox.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { budget } from "../support/budgets.ts";
import { runAll } from "../support/gate-attack.ts";

describe("s07's gate, after the independent attack: wrappers", () => {
  // Policy: allow `find *` and `timeout *` only; the commands they run need rules of their own.
  it(
    "an allow rule for find (or timeout) does not allow the command it runs",
    async () => {
      const { env, asked } = await runAll(
        {
          mode: "default",
          allow: [
            { tool: "bash", pattern: "find *" },
            { tool: "bash", pattern: "timeout *" },
          ],
          deny: [],
        },
        [
          "touch precious-1.txt precious-2.txt", // asked, answered "no": stays as it is
          "find . -maxdepth 0 -exec touch pwned-find.txt {} +",
          "timeout 5 touch pwned-timeout.txt",
        ],
      );
      const made = ["find", "timeout"].filter((n) =>
        existsSync(path.join(env.workspace, `pwned-${n}.txt`)),
      );
      expect(made).toEqual([]);
      expect(asked).toHaveLength(3); // each touch is asked about
    },
    budget({ cli: 2 }),
  );
});
