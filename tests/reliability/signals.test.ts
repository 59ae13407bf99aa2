// Ctrl-C, SIGTERM and SIGHUP against a running harness: a turn stops and the prompt comes back;
// the harness ends when asked, and nothing it started is left running.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { endTurn, hang, startFakeApi, toolUse, type FakeApi } from "../support/fake-api.ts";
import { processesNamed, tempDir, waitFor } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";

const CLI = path.join(REPO_ROOT, "chapters/_runner/cli.js");
const started: ChildProcessWithoutNullStreams[] = [];
let api: FakeApi | undefined;
afterEach(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await api?.close();
});

/** The harness against the fake API, stdin kept open so the test can type. */
function harness(chapter: string, apiUrl: string) {
  const child = spawn(process.execPath, [CLI, chapter, "--workspace", tempDir()], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      NO_COLOR: "1",
      ANTHROPIC_API_KEY: "test",
      ANTHROPIC_BASE_URL: apiUrl,
    },
  });
  started.push(child);
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return {
    child,
    out: () => stdout,
    type: (line: string) => child.stdin.write(`${line}\n`),
    exited,
  };
}

const mark = (what: string) => `lah-sig-${what}-${process.pid}-${Date.now()}`;

// Each test is a harness session against the fake API, with a command or two.
describe("signals", { timeout: budget({ cli: 2, command: 1 }) }, () => {
  it("Ctrl-C during a command ends the command (and its children) and gives the prompt back", async () => {
    const name = mark("int-cmd");
    api = await startFakeApi([
      toolUse("bash", {
        command: `(exec -a ${name} sleep 30) & (exec -a ${name} sleep 30); echo $((6*7))`,
      }),
      endTurn("back at your service"),
    ]);
    const h = harness("s01", api.url);
    h.type("run the slow thing");
    await waitFor(() => processesNamed(name) === 2, "the command to start", budget("cli"));
    h.child.kill("SIGINT");
    await waitFor(() => h.out().includes("interrupted"), "the turn to stop");
    await waitFor(() => processesNamed(name) === 0, "the command to end");
    expect(h.out()).not.toMatch(/\b42\b/);
    h.type("are you there?");
    await waitFor(() => h.out().includes("back at your service"), "the next turn to answer");
    h.child.stdin.end();
    expect(await h.exited).toBe(0);
    // The interrupted turn is kept as far as it got (interrupted-turn.ts): the prompt, the call, a
    // result that says the command was stopped (never its half output), the note, the new prompt.
    const last = JSON.stringify(api.requests.at(-1)!.body.messages);
    expect(last).toContain("run the slow thing");
    expect(last).toContain("interrupted by the user before it finished");
    expect(last).toContain("The user interrupted this turn");
    expect(last).not.toMatch(/\b42\b/);
  });

  it("Ctrl-C during a model call that hangs stops the call; a second Ctrl-C ends the harness", async () => {
    api = await startFakeApi([hang(), endTurn("answered"), hang()]);
    const h = harness("s02", api.url);
    h.type("first");
    await waitFor(() => api!.requests.length === 1, "the model call");
    h.child.kill("SIGINT");
    await waitFor(() => h.out().includes("interrupted"), "the call to stop");
    h.type("second");
    await waitFor(() => h.out().includes("answered"), "the next turn");
    h.type("third");
    await waitFor(() => api!.requests.length === 3, "the third call");
    h.child.kill("SIGINT");
    // Signals of one kind do not queue: wait until this one is seen before sending the next.
    await waitFor(() => h.out().split("interrupting").length === 3, "the first Ctrl-C to be seen");
    h.child.kill("SIGINT");
    expect(await h.exited).toBe(130);
  });

  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    it(`${signal} ends the harness and every command and background job it started`, async () => {
      const fg = mark(`${signal}-fg`);
      const bg = mark(`${signal}-bg`);
      api = await startFakeApi([
        toolUse("background_run", { command: `(exec -a ${bg} sleep 30) & wait` }),
        toolUse("bash", { command: `exec -a ${fg} sleep 30` }),
      ]);
      const h = harness("s11", api.url);
      h.type("start both");
      await waitFor(
        () => processesNamed(fg) === 1 && processesNamed(bg) === 1,
        "both commands to start",
        budget("cli"),
      );
      h.child.kill(signal);
      expect(await h.exited).toBe(code);
      await waitFor(() => processesNamed(fg) + processesNamed(bg) === 0, "every command to end");
    });
  }
});
