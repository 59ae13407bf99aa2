// `npm run exercise` as a learner uses it, in a workbench of the test's own (LAH_WORKBENCH): start,
// check, the reference answer, progress, and every mistake answered with a sentence.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXERCISE_CLI, runCli } from "../support/run-cli.ts";
import { tempDir } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";

function workbench() {
  const root = tempDir("lah-workbench-");
  const run = (args: string[], input?: string) =>
    runCli(args, {
      program: EXERCISE_CLI,
      input,
      env: { LAH_WORKBENCH: root, LANG: "en_US.UTF-8" },
    });
  return { root, run, file: (id: string) => path.join(root, id, "agent.ts") };
}

// Each test starts the command line several times (and --check a child of its own): on a busy
// 2-core machine that is seconds per start, so the tests get the time end-to-end tests need.
describe("npm run exercise", { timeout: budget({ cli: 8 }) }, () => {
  it("starts s03 with the stub, checks it as not started, then passes on the reference answer", async () => {
    const { run, file } = workbench();
    const started = await run(["s03"]);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/Your copy: .*s03-todo-write\/agent\.ts/);
    const copy = readFileSync(file("s03-todo-write"), "utf8");
    expect(copy).toContain('throw new Error("not started: reminderDue")');
    expect(copy).toContain(
      'from "../../../../work'.slice(0, 0) + "/chapters/s02-tool-use/agent.ts",
    );

    const stub = await run(["s03", "--check"]);
    expect(stub.code).toBe(1);
    expect(stub.stdout).toMatch(/✗ the reminder is injected after 3 rounds/);
    expect(stub.stdout).toMatch(/not started: reminderDue is still the stub that throws/);
    expect(stub.stdout).toMatch(/hint 1\/3:/);
    expect(stub.stdout).toMatch(/0 of 3 checks pass/);

    expect((await run(["s03", "--solution"])).code).toBe(1); // no TTY, no --yes: asks for --yes
    expect((await run(["s03", "--solution", "--yes"])).code).toBe(0);
    const passing = await run(["s03", "--check"]);
    expect(passing.stdout).toMatch(/Every check passes/);
    expect(passing.code).toBe(0);

    const status = JSON.parse((await run(["--status", "--json"])).stdout) as {
      exercise: string;
      state: string;
      passed: number;
      total: number;
    }[];
    expect(status.find((s) => s.exercise === "s03")).toMatchObject({
      state: "passing",
      passed: 3,
      total: 3,
    });
    expect(status.find((s) => s.exercise === "s03.1")).toMatchObject({ state: "not started" });
  });

  it("never overwrites a learner's work when the exercise is started again", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    writeFileSync(file("s03-todo-write"), "// my own work\n");
    const again = await run(["s03"]);
    expect(again.stdout).toMatch(/already there, as you left it/);
    expect(readFileSync(file("s03-todo-write"), "utf8")).toBe("// my own work\n");
  });

  it("a syntax error is a sentence with the file and line, not a stack", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    const f = file("s03-todo-write");
    writeFileSync(
      f,
      readFileSync(f, "utf8").replace(
        "export const REMIND_AFTER = 3;",
        "export const REMIND_AFTER = = 3;",
      ),
    );
    const out = await run(["s03", "--check"]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/your code does not load: agent\.ts:\d+:\d+: Unexpected "="/);
    expect(out.stdout + out.stderr).not.toMatch(/\n\s+at /); // no stack frames
  });

  it("a type error is a line with the file, line and TypeScript's message, and the check fails", async () => {
    const { run, file } = workbench();
    await run(["s03", "--solution", "--yes"]);
    const f = file("s03-todo-write");
    const text = readFileSync(f, "utf8").replace(
      "export const REMIND_AFTER = 3;",
      'export const REMIND_AFTER: number = "3" as unknown as string;',
    );
    writeFileSync(f, text);
    const line = text.split("\n").findIndex((l) => l.includes("REMIND_AFTER: number")) + 1;
    const out = await run(["s03", "--check"]);
    expect(out.stdout).toContain(
      `type error at agent.ts:${line}:14: Type 'string' is not assignable to type 'number'.`,
    );
    expect(out.code).toBe(1);
  });

  it("an exception names the line of the learner's file", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    const f = file("s03-todo-write");
    const text = readFileSync(f, "utf8").replace(
      'throw new Error("not started: reminderDue");',
      "return (planning as unknown as { x: { y: string } }).x.y;",
    );
    writeFileSync(f, text);
    const line = text.split("\n").findIndex((l) => l.includes(".x.y;")) + 1;
    const out = await run(["s03", "--check"]);
    expect(out.stdout).toContain(
      `your code threw at agent.ts:${line}: Cannot read properties of undefined`,
    );
  });

  it("answers in the learner's language, from --lang or LANG", async () => {
    const { run } = workbench();
    const ja = await run(["s03", "--lang", "ja"]);
    expect(ja.stdout).toMatch(/あなたのコピー/);
    const de = await runCli(["s03", "--check"], {
      program: EXERCISE_CLI,
      env: { LAH_WORKBENCH: tempDir("lah-workbench-"), LANG: "de_DE.UTF-8" },
    });
    expect(de.stderr).toMatch(/ist noch nicht begonnen/);
  });

  it("an unknown exercise is one sentence naming the known ones", async () => {
    const { run } = workbench();
    const out = await run(["s99"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/there is no exercise "s99" \(known: s01, .*s03\.1/);
  });

  it("lists every exercise with its state, and writes nothing in the repository", async () => {
    const { root, run } = workbench();
    const out = await run([]);
    expect(out.stdout).toMatch(/^s01\s+rebuild\s+not started/m);
    expect(out.stdout).toMatch(/^s03\.1\s+extend/m);
    expect(existsSync(path.join(root, "s01-agent-loop"))).toBe(false);
  });

  it("npm run chapter s03 -- --mine runs the learner's copy with the chapter's scenario", async () => {
    const { root, run } = workbench();
    const none = await runCli(["s03", "--mine", "--demo"], { env: { LAH_WORKBENCH: root } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no copy of s03 yet: start one with npm run exercise s03/);
    await run(["s03"]);
    await run(["s03", "--solution", "--yes"]);
    const ws = tempDir("lah-ws-");
    const out = await runCli(["s03", "--mine", "--demo", "--workspace", ws], {
      env: { LAH_WORKBENCH: root },
    });
    expect(out.stdout).toMatch(/code: your copy, .*s03-todo-write\/agent\.ts/);
    expect(out.stdout).toMatch(/reminder injected/);
    expect(out.code).toBe(0);
  });
});
