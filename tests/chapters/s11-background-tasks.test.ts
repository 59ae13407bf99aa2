import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s11 from "../../chapters/s11-background-tasks/agent.ts";
import { BackgroundJobs, createAgent } from "../../chapters/s11-background-tasks/agent.ts";
import scenario from "../../chapters/s11-background-tasks/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { MessageParam } from "../../chapters/_shared/types.ts";
import {
  processesNamed,
  scriptedEnv,
  tempDir,
  testKit,
  toolNames,
  waitFor,
  toolAt,
  scratchArgs,
} from "../support/helpers.ts";
import {
  deliveredOnce,
  inFinishOrder,
  returnsAtOnce,
  waitsForPending,
} from "../../chapters/s11-background-tasks/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

/** All text the harness injected as background results, across a history. */
const injected = (messages: MessageParam[]): string[] =>
  messages
    .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
    .flatMap((b) =>
      b.type === "text" && b.text.startsWith("<background-results>") ? [b.text] : [],
    );

/** Waits for a file a command writes (failing after 10 s), so a test never races its own fixture. */
async function waitForFile(file: string): Promise<string> {
  const text = () => (existsSync(file) ? readFileSync(file, "utf8").trim() : "");
  await waitFor(() => text() !== "", `${file} to be written`);
  return text();
}

describe("s11 background tasks", () => {
  it("offers the base tools plus background_run and check_background (7)", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s11.lead);
  });

  it("the queue hands each finished result out once", async () => {
    const jobs = new BackgroundJobs(...scratchArgs());
    jobs.start("echo hi");
    await jobs.nextResult();
    expect(jobs.drain().map((j) => j.id)).toEqual(["bg_1"]);
    expect(jobs.drain()).toEqual([]);
    await jobs.close();
  });

  for (const check of [returnsAtOnce, deliveredOnce, inFinishOrder, waitsForPending])
    it(`behaviour: ${check.id}`, () => check.run(s11, testKit()));

  it("a command that runs too long gets status timeout, and its whole process group is killed", async () => {
    const name = `lah-s11-timeout-${process.pid}-${Date.now()}`;
    const env = scriptedEnv([
      use("background_run", {
        command: `(exec -a ${name} sleep 30) & echo started > child.pid; wait`,
        timeout: 0.4,
      }),
      say("waiting"),
      use("check_background", { id: "bg_1" }),
      say("done"),
    ]);
    const agent = createAgent(env);
    await agent.send("go");
    expect(await waitForFile(path.join(env.workspace, "child.pid"))).toBe("started");
    expect(injected(agent.messages).join("")).toMatch(/\[bg_1\] timeout \(killed after 0\.4s\)/);
    const check = env.io.trace.filter((e) => e.kind === "tool_result").at(-1);
    expect(check?.kind === "tool_result" && check.output).toMatch(/^\[bg_1\] timeout/);
    await waitFor(() => processesNamed(name) === 0, `${name} to end`);
  });

  it("close() kills commands that are still running, children included", async () => {
    const ws = tempDir();
    const name = `lah-s11-close-${process.pid}-${Date.now()}`;
    const agent = createAgent(
      scriptedEnv(
        [
          use("background_run", {
            command: `(exec -a ${name} sleep 30) & echo started > child.pid; wait`,
          }),
          use("bash", { command: "echo other work" }),
        ],
        { workspace: ws },
      ),
    );
    const sending = agent.send("go"); // the model has no more turns but the command keeps the loop waiting
    expect(await waitForFile(path.join(ws, "child.pid"))).toBe("started");
    // the subshell may not have exec'd `sleep` yet when the file appears
    await waitFor(() => processesNamed(name) === 1, `${name} to start`);
    await agent.close!();
    await sending;
    await waitFor(() => processesNamed(name) === 0, `${name} to end`);
  });

  it("plays its scenario offline: the build lands on disk, is still running at the check, and its result is injected once", async () => {
    const ws = tempDir();
    const { env, agent } = await playScenario(s11, scenario, ws);
    expect(readFileSync(path.join(ws, "dist/app.js"), "utf8")).toContain("bundle v1");
    expect(readFileSync(path.join(ws, "RELEASE_NOTES.md"), "utf8")).toContain("Release 1.0");
    expect(injected(agent.messages)).toHaveLength(1);
    const last = env.io.trace.filter((e) => e.kind === "response").at(-1);
    expect(last?.kind === "response" && last.text).toContain("build ok: dist/app.js");
    // The build waited for the notes it packs: it cannot have finished before they were written.
    expect(readFileSync(path.join(ws, "dist/RELEASE_NOTES.md"), "utf8")).toContain("Release 1.0");
    const check = env.io.trace.find(
      (e) => e.kind === "tool_result" && e.name === "check_background",
    );
    expect(check?.kind === "tool_result" && check.output).toMatch(/^\[bg_1\] running/);
    const notes = env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
    expect(notes).toEqual([
      "waiting for 1 background command(s) to finish…",
      "background results injected: bg_1 completed",
    ]);
    expect(env.scripted?.finished).toBe(true); // every scripted turn was played, none left over
  });
});

describe("s11's jobs, reported to the trace", () => {
  it("background_run reports the job it started, by the id its answer names", async () => {
    const jobs = new BackgroundJobs(...scratchArgs());
    const events: unknown[] = [];
    try {
      const handlers = s11.backgroundHandlers(jobs, {
        event: (type, data) => events.push({ type, data }),
      });
      for (const command of ["true", "echo 'Started bg_9 in the background: no'"]) {
        const output = await handlers.background_run({ command }, toolAt(tempDir()));
        const job = jobs.list().at(-1)!;
        expect(output).toBe(s11.startedLine(job));
        expect(events.at(-1)).toEqual({ type: "job_started", data: { id: job.id, command } });
      }
      expect(events).toHaveLength(2);
      expect(jobs.list().map((j) => j.id)).toEqual(["bg_1", "bg_2"]);
      // A command refused starts no job and reports none.
      await expect(async () =>
        handlers.background_run({ command: " " }, toolAt(tempDir())),
      ).rejects.toThrow();
      expect(events).toHaveLength(2);
    } finally {
      await jobs.close();
    }
  });
});
