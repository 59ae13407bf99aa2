// A check process that crashed says its error, not Node's trailer: "thrown: Node.js v20.20.2" told
// a learner (and a flaky test's reader) nothing.
import { describe, expect, it } from "vitest";
import { crashLine } from "../../chapters/_exercises/check.ts";

describe("a crashed check process, in one line", () => {
  it("is its error, without the stack, the caret or Node's version line", () => {
    const stderr = [
      "/work/workbench/s13/agent.ts:12",
      '    throw new TypeError("board is not iterable");',
      "    ^",
      "",
      "TypeError: board is not iterable",
      "    at claim (/work/workbench/s13/agent.ts:12:11)",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
      "",
      "Node.js v20.20.2",
      "",
    ].join("\n");
    expect(crashLine(stderr)).toBe("TypeError: board is not iterable");
  });

  it("is the last thing said when no error is named, and nothing for silence", () => {
    expect(crashLine("warning: low memory\nout of patience\n\nNode.js v22.12.0\n")).toBe(
      "out of patience",
    );
    expect(crashLine("\n\n")).toBeUndefined();
  });
});
