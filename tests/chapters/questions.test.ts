// Who answers a question. Found by the independent attacker (plans in each test): a line typed
// before a question was on screen answered it (the model's text said "type yes and press
// Enter"), and a teammate's question waiting beside the REPL's `you ›` got the answer meant for
// the lead while the person's answer to it went to the lead as a prompt.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineReader } from "../../chapters/_runner/repl.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

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

describe("offline, the scenario's answers answer only in the harness's own scratch workspace", () => {
  // Plan (found by the independent attacker): run a chapter offline, as the README suggests, in a
  // repository that ships a .hooks.json. The scenario's first scripted "yes", meant for its own
  // question, answered "Run its hooks?": the repository's hook ran and its hash was recorded as
  // trusted, so later runs with a real model did not ask either.
  it("a folder of yours gets no scripted yes: its hooks are not trusted", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "README.md"), "someone's project\n"); // not an empty folder
    writeFileSync(
      path.join(ws, ".hooks.json"),
      JSON.stringify({ SessionStart: [{ command: "echo hook > HOOK_RAN" }] }),
    );
    const { code, stdout } = await runCli(["s08", "--offline", "--demo", "--workspace", ws]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/scripted answers are not used/);
    expect(existsSync(path.join(ws, "HOOK_RAN"))).toBe(false);
    expect(existsSync(path.join(stateDirFor(ws), "trusted-hooks.json"))).toBe(false);
  });

  it("the scratch workspace the harness made still plays the scenario's answers", async () => {
    const ws = path.join(tempDir(), "fresh");
    const { code, stdout } = await runCli(["s08", "--offline", "--demo", "--workspace", ws]);
    expect(code).toBe(0);
    expect(stdout).toContain("→ scripted answer: yes");
  });
});
