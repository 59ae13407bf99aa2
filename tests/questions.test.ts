// Who answers a question. Found by the independent attacker (plans in each test): a line typed
// before a question was on screen answered it (the model's text said "type yes and press
// Enter"), and a teammate's question waiting beside the REPL's `you ›` got the answer meant for
// the lead while the person's answer to it went to the lead as a prompt.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineReader } from "../chapters/_runner/repl.ts";

function reader() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (d) => (shown += String(d)));
  const lines = new LineReader(input, output, false);
  const type = (line: string) => input.write(`${line}\n`);
  const settle = () => new Promise((r) => setImmediate(r));
  return { lines, type, settle, shown: () => shown };
}

describe("a question is answered only by a line typed after it is shown", () => {
  it("a line typed ahead does not answer the next question", async () => {
    const { lines, type, settle, shown } = reader();
    type("yes"); // typed while no question was on screen
    await settle();
    let answer: string | null | undefined;
    void lines.ask('Allow bash "echo RAN > ran.txt"? [yes/no/always] ').then((a) => (answer = a));
    await settle();
    expect(answer).toBeUndefined();
    expect(shown()).toContain("1 line typed before the question ignored");
    type("no");
    await settle();
    expect(answer).toBe("no");
    lines.close();
  });

  it("a question goes before the REPL's prompt, and the prompt comes back after it", async () => {
    const { lines, type, settle, shown } = reader();
    const prompts: (string | null)[] = [];
    void lines.next("you › ").then((line) => prompts.push(line)); // the REPL waits
    await settle();
    let answer: string | null | undefined;
    void lines
      .ask('alice: Allow bash "echo RAN > ran.txt"? [yes/no/always] ')
      .then((a) => (answer = a));
    await settle();
    type("no"); // meant for alice's question, which is on screen
    await settle();
    expect(answer).toBe("no");
    expect(prompts).toEqual([]);
    expect(shown().trimEnd().endsWith("you ›")).toBe(true); // drawn again for the REPL
    type("carry on");
    await settle();
    expect(prompts).toEqual(["carry on"]);
    lines.close();
  });

  it("piped input still feeds the REPL's prompts in order", async () => {
    const { lines, type, settle } = reader();
    type("first");
    type("second");
    await settle();
    expect(await lines.next("you › ")).toBe("first");
    expect(await lines.next("you › ")).toBe("second");
    lines.close();
    expect(await lines.next("you › ")).toBeNull();
  });
});
