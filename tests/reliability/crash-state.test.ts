// Crash-safe state: a writer killed with SIGKILL at random moments leaves every state file whole
// (the old version or the new one), and a broken state file found on start is reported clearly.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import { BrokenStateError, readJson } from "../../chapters/_shared/fsutil.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { TaskBoard } from "../../chapters/s10-task-system/agent.ts";
import * as s10 from "../../chapters/s10-task-system/agent.ts";
import * as s12 from "../../chapters/s12-worktree-isolation/agent.ts";
import { WorktreeManager } from "../../chapters/s12-worktree-isolation/agent.ts";
import * as s13 from "../../chapters/s13-agent-teams/agent.ts";
import type { TeamMessage } from "../../chapters/s13-agent-teams/mailbox.ts";
import * as s15 from "../../chapters/s15-team-protocols/agent.ts";
import { PendingRequests } from "../../chapters/s15-team-protocols/agent.ts";
import { mulberry32, scriptedEnv, seedFrom, seedLine, tempDir } from "../support/helpers.ts";
import {
  blobState,
  laneList,
  requestContent,
  taskDescription,
  taskVersion,
} from "../support/workers/states.ts";
import { startWorker } from "../support/workers.ts";
import { budget } from "../support/budgets.ts";

/** Writers killed one after another in each of this many folders, side by side. */
const LANES = 2;
const KILLS_PER_LANE = 15;
/** The kill moments are drawn from this seed (CRASH_SEED=<n> replays a run's choices). */
const SEED = seedFrom("CRASH_SEED");

const stub = (from: string, to: string, content: string, type: string): TeamMessage => ({
  id: "msg_stub",
  type,
  from,
  to,
  content,
  ts: "",
});

/** Files left behind by writes that were cut off. */
const tempFiles = (dir: string) =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".tmp"));

/** The version of each kind of state on disk, read with the chapters' own readers — and each checked
 *  to be exactly the state the writer wrote for that version, not a mixture or a fragment. */
function versionsOnDisk(dir: string): Record<string, number> {
  const blobFile = path.join(dir, "state.json");
  const blob = existsSync(blobFile) ? readJson<{ version: number }>(blobFile) : { version: 0 }; // 0: killed before the first write
  if (blob.version) expect(blob).toEqual(blobState(blob.version));

  const board = new TaskBoard(path.join(dir, ".tasks"));
  expect(board.list().map((t) => t.id)).toEqual([1]); // leftover temp files are not tasks
  const task = board.get(1);
  expect(task.description).toBe(taskDescription(taskVersion(task.description)));
  expect(task).toMatchObject({ id: 1, subject: "crash me", status: "pending", owner: null });

  // The request table as written (loading it would expire a leftover pending request, as a restart does).
  const requestFile = path.join(dir, ".team", "requests.json");
  const rows = Object.entries(
    existsSync(requestFile) ? readJson<Record<string, { status: string }>>(requestFile) : {},
  );
  rows.forEach(([id, row], i) => {
    expect(id).toBe(`req_${i + 1}`);
    expect(row).toMatchObject({
      type: "shutdown",
      sender: "lead",
      to: "bob",
      content: requestContent(i + 1),
    });
    // Only the newest may be pending; one a killed writer left pending was expired by the next start.
    expect(
      i < rows.length - 1 ? ["approved", "expired"] : ["pending", "approved", "expired"],
    ).toContain(row.status);
  });
  const req = rows.length * 2 - (rows.at(-1)?.[1].status === "pending" ? 1 : 0);
  if (existsSync(requestFile)) {
    // and a reader still reads it: a copy, so that the check changes nothing
    copyFileSync(requestFile, `${requestFile}.check`);
    expect(Object.keys(new PendingRequests(`${requestFile}.check`, stub).all())).toHaveLength(
      rows.length,
    );
    rmSync(`${requestFile}.check`);
  }

  const lanes = new WorktreeManager(dir).list();
  const index = lanes[0]?.taskId ?? 0;
  expect(lanes).toEqual(index ? laneList(index) : []); // 0: not written yet

  const reqPending = rows.at(-1)?.[1].status === "pending" ? 1 : 0;
  return { blob: blob.version, task: taskVersion(task.description), req, index, reqPending };
}

/** The last version the writer reported as completely written, per kind. */
function reported(stdout: string, start: Record<string, number>): Record<string, number> {
  const last = { ...start };
  for (const [, kind, n] of stdout.matchAll(/^(blob|task|req|index) (\d+)$/gm))
    last[kind] = Number(n);
  return last;
}

async function crashLane(
  dir: string,
  kills: number,
  rand: () => number,
): Promise<{ midWrite: number; final: Record<string, number> }> {
  let midWrite = 0;
  let seen: Record<string, number> = {}; // the versions on disk after the previous crash
  for (let crash = 0; crash < kills; crash++) {
    const withRequests = crash % 3 === 0;
    const writer = startWorker("state-writer", [dir, withRequests ? "yes" : "no"]);
    await writer.waitFor(/^ready .*$/m);
    const ready: Record<string, number> = Object.fromEntries(
      /^ready (.*)$/m
        .exec(writer.stdout())![1]
        .split(" ")
        .map((kv) => kv.split("="))
        .map(([k, v]) => [k, Number(v)]),
    );
    // The restarted writer starts from exactly what the last check read on disk (loading the request
    // table expires a request a killed writer left pending: one step on).
    if (crash > 0) {
      for (const kind of ["blob", "task", "index"])
        expect(ready[kind], `${kind} read on restart ${crash + 1}`).toBe(seen[kind]);
      if (withRequests)
        expect(ready.req, `req read on restart ${crash + 1}`).toBe(seen.req + seen.reqPending);
    }
    const started = { ...seen, ...ready };
    await sleep(rand() * 60); // a random moment
    writer.child.kill("SIGKILL");
    const { signal } = await writer.exited;
    expect(signal, writer.stderr()).toBe("SIGKILL");

    // Each file holds the last version reported done, or the one that was being written: never less, never broken.
    const last = reported(writer.stdout(), started);
    const onDisk = versionsOnDisk(dir);
    for (const kind of ["blob", "task", "index", "req"]) {
      const writing = kind !== "req" || withRequests;
      expect(
        writing ? [last[kind], last[kind] + 1] : [last[kind]],
        `${kind} after crash ${crash + 1}`,
      ).toContain(onDisk[kind]);
      if (onDisk[kind] !== last[kind]) midWrite++;
    }
    seen = onDisk;
  }
  return { midWrite, final: seen };
}

// The writers started again after every kill: a dozen helper processes' worth.
describe("crash-safe state", { timeout: budget({ process: 12 }) }, () => {
  it(`a writer SIGKILLed at ${LANES * KILLS_PER_LANE} random moments leaves whole files that readers still read`, async () => {
    console.info(`crash-safe state: ${seedLine("CRASH_SEED", SEED)}`);
    const dirs = Array.from({ length: LANES }, () => tempDir("lah-crash-"));
    // One generator per lane: the lanes interleave differently each run, their kill moments do not.
    const results = await Promise.all(
      dirs.map((dir, lane) => crashLane(dir, KILLS_PER_LANE, mulberry32(SEED + lane))),
    );
    const leftovers = dirs.flatMap(tempFiles);
    const written = results.map((r) => r.final.blob);
    console.info(
      `crash-safe state: ${LANES * KILLS_PER_LANE} crash points tried (SIGKILL at random moments), ` +
        `every state file whole; ${results.reduce((n, r) => n + r.midWrite, 0)} kills landed after a rename but before ` +
        `its report, ${leftovers.length} temp files left by cut-off writes; ${written.join(" and ")} versions written per lane; ` +
        seedLine("CRASH_SEED", SEED),
    );
    // The kills hit writers that were writing, and each restart went on from the version on disk:
    // every lane got past its first version (a writer killed before it wrote anything proves nothing).
    for (const [lane, n] of written.entries())
      expect(n, `lane ${lane + 1}: versions written`).toBeGreaterThan(1);
  });

  it("leftover temp files of every kind do not confuse a reader", () => {
    const ws = tempDir("lah-crash-");
    const board = new TaskBoard(path.join(ws, ".tasks"));
    board.create({ subject: "real" });
    writeFileSync(path.join(board.dir, "task_2.json.4242.1.tmp"), '{"id": 2, "subj');
    mkdirSync(path.join(stateDirFor(ws), "lanes"), { recursive: true });
    writeFileSync(path.join(stateDirFor(ws), "lanes", "index.json.4242.2.tmp"), "{");
    mkdirSync(path.join(ws, ".team"));
    writeFileSync(path.join(ws, ".team", "requests.json.4242.3.tmp"), "{");
    expect(board.list().map((t) => t.subject)).toEqual(["real"]);
    expect(new WorktreeManager(ws).list()).toEqual([]);
    expect(new PendingRequests(path.join(ws, ".team", "requests.json"), stub).all()).toEqual({});
  });
});

describe("a broken state file found on start", () => {
  const TRUNCATED = '{\n  "id": 1,\n  "subject": "half a ta';

  it("task board: BrokenStateError naming the file, and task_list answers with an error result", async () => {
    const ws = tempDir("lah-broken-");
    const tasks = path.join(stateDirFor(ws), "tasks");
    new TaskBoard(tasks).create({ subject: "fine" });
    writeFileSync(path.join(tasks, "task_1.json"), TRUNCATED);
    const board = new TaskBoard(tasks);
    expect(() => board.list()).toThrow(BrokenStateError);
    expect(() => board.get(1)).toThrow(
      /state file .*task_1\.json is not valid JSON .*fix or delete it/,
    );

    const env = scriptedEnv(
      [
        { calls: [{ name: "task_list", input: {} }] },
        { text: "The board is broken; please fix it." },
      ],
      { workspace: ws },
    );
    const agent = s10.createAgent(env);
    await agent.send("what is on the board?");
    const result = env.io.trace.find((e) => e.kind === "tool_result");
    expect(result).toMatchObject({ name: "task_list", is_error: true });
    expect((result as { output: string }).output).toMatch(
      /task_1\.json is not valid JSON.*fix or delete it/,
    );
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant" }); // the loop went on to the model's answer
  });

  it("team (s13): the lead's task_list is an error result, and an idle teammate notes it instead of crashing", async () => {
    const ws = tempDir("lah-broken-");
    mkdirSync(path.join(stateDirFor(ws), "tasks"), { recursive: true }); // the team's board is harness state
    writeFileSync(path.join(stateDirFor(ws), "tasks", "task_1.json"), TRUNCATED);
    const env = scriptedEnv(
      {
        lead: [
          { calls: [{ name: "task_list", input: {} }] },
          {
            calls: [{ name: "spawn", input: { name: "alice", role: "tester", prompt: "say hi" } }],
          },
          { calls: [{ name: "inbox", input: { wait: true } }] },
          { text: "done" },
        ],
        alice: [{ text: "hi" }],
      },
      { workspace: ws },
    );
    const agent = s13.createAgent(env, { pollMs: 5, idleWaitMs: 10, settleTimeoutMs: 5_000 });
    await agent.send("go");
    await agent.close!();
    const taskList = env.io.trace.find((e) => e.kind === "tool_result" && e.name === "task_list");
    expect(taskList).toMatchObject({ is_error: true });
    const notes = env.io.trace
      .filter((e) => e.kind === "note" && e.agent === "alice")
      .map((e) => (e as { text: string }).text);
    expect(notes.join("\n")).toMatch(
      /cannot read the task board: state file .*task_1\.json is not valid JSON/,
    );
    expect(notes.join("\n")).not.toMatch(/crashed/);
  });

  it("worktree index: BrokenStateError, and worktree_list answers with an error result", async () => {
    const ws = tempDir("lah-broken-");
    mkdirSync(path.join(stateDirFor(ws), "lanes"), { recursive: true });
    writeFileSync(
      path.join(stateDirFor(ws), "lanes", "index.json"),
      '{ "lanes": [ { "name": "api", "pa',
    );
    expect(() => new WorktreeManager(ws).list()).toThrow(BrokenStateError);

    const env = scriptedEnv(
      [{ calls: [{ name: "worktree_list", input: {} }] }, { text: "The lane index is broken." }],
      { workspace: ws },
    );
    await s12.createAgent(env).send("which lanes are there?");
    const result = env.io.trace.find((e) => e.kind === "tool_result");
    expect(result).toMatchObject({ name: "worktree_list", is_error: true });
    expect((result as { output: string }).output).toMatch(
      /index\.json is not valid JSON.*fix or delete it/,
    );
  });

  it("valid JSON of the wrong shape: a BrokenStateError naming the file and what is wrong, never a TypeError", () => {
    const ws = tempDir("lah-broken-");
    const write = (file: string, text: string) => {
      const full = path.isAbsolute(file) ? file : path.join(ws, file);
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, text);
    };
    const laneIndex = path.join(stateDirFor(ws), "lanes", "index.json");
    const refuses = (read: () => unknown, message: RegExp) => {
      let error: unknown;
      try {
        read();
      } catch (err) {
        error = err;
      }
      expect(error, String(message)).toBeInstanceOf(BrokenStateError);
      expect((error as Error).message).toMatch(message);
    };

    // The task board (s10): a list, a task without id, a task without a known status.
    const board = new TaskBoard(path.join(ws, ".tasks"));
    for (const [text, problem] of [
      ["[]", /task_1\.json is not a task \(expected a JSON object\); fix or delete it/],
      ["null", /task_1\.json is not a task \(expected a JSON object\)/],
      [
        '{"subject": "no id", "status": "pending", "blockedBy": [], "blocks": []}',
        /task_1\.json is not a task \("id" must be a whole number\)/,
      ],
      [
        '{"id": 1, "subject": "no status", "blockedBy": [], "blocks": []}',
        /task_1\.json is not a task \("status" must be one of pending, in_progress, completed\)/,
      ],
      [
        '{"id": 1, "subject": "x", "status": "pending", "blockedBy": 3, "blocks": []}',
        /"blockedBy" and "blocks" must be lists/,
      ],
    ] as const) {
      write(".tasks/task_1.json", text);
      refuses(() => board.list(), problem);
      refuses(() => board.get(1), problem);
    }

    // The lane index (s12): {} and a lane without a branch.
    write(laneIndex, "{}");
    refuses(
      () => new WorktreeManager(ws).list(),
      /index\.json is not a lane index \(expected \{"lanes": \[\.\.\.\]\}\); fix or delete it/,
    );
    refuses(() => new WorktreeManager(ws).get("api"), /index\.json is not a lane index/);
    write(laneIndex, '{"lanes": [{"name": "api", "path": ".worktrees/api", "taskId": null}]}');
    refuses(
      () => new WorktreeManager(ws).list(),
      /index\.json is not a lane index \(lane 1 needs a name, path, branch and a taskId/,
    );

    // The request table (s15): null, a list, a row without a status.
    for (const [text, problem] of [
      [
        "null",
        /requests\.json is not a request table \(expected a JSON object: request_id → request\); fix or delete it/,
      ],
      ["[1, 2]", /requests\.json is not a request table \(expected a JSON object/],
      [
        '{"req_1": {"type": "shutdown", "sender": "lead", "to": "bob", "content": "stop"}}',
        /requests\.json is not a request table \(req_1 needs a type, sender, to, content and a status \(pending, approved, rejected, expired\)\)/,
      ],
    ] as const) {
      write(".team/requests.json", text);
      refuses(() => new PendingRequests(path.join(ws, ".team", "requests.json"), stub), problem);
    }
  });

  it("a wrong-shape state file reaches the model as an error result, and the loop goes on", async () => {
    const ws = tempDir("lah-broken-");
    mkdirSync(path.join(stateDirFor(ws), "lanes"), { recursive: true });
    writeFileSync(path.join(stateDirFor(ws), "lanes", "index.json"), "{}");
    const env = scriptedEnv(
      [
        { calls: [{ name: "worktree_list", input: {} }] },
        { calls: [{ name: "worktree_create", input: { name: "api" } }] },
        { text: "The lane index is broken." },
      ],
      { workspace: ws },
    );
    const agent = s12.createAgent(env);
    await agent.send("which lanes are there?");
    const outputs = env.io.trace.flatMap((e) => (e.kind === "tool_result" ? [e] : []));
    expect(outputs.map((r) => [r.name, r.is_error])).toEqual([
      ["worktree_list", true],
      ["worktree_create", true],
    ]);
    for (const r of outputs)
      expect(r.output).toMatch(/index\.json is not a lane index.*fix or delete it/);
    expect(existsSync(path.join(ws, ".worktrees", "api"))).toBe(false); // nothing was created on a broken index
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("protocol requests (s15): createAgent refuses with a BrokenStateError; the CLI prints one line, no stack", async () => {
    const ws = prepareWorkspace(tempDir("lah-broken-")); // the harness's own state folder, marked
    mkdirSync(path.join(stateDirFor(ws), "team"), { recursive: true }); // the request table is harness state
    writeFileSync(
      path.join(stateDirFor(ws), "team", "requests.json"),
      '{ "req_1": { "type": "shutdown", "sta',
    );
    const env = scriptedEnv([{ text: "never reached" }], { workspace: ws });
    expect(() => s15.createAgent(env)).toThrow(BrokenStateError);
    expect(() => s15.createAgent(env)).toThrow(
      /requests\.json is not valid JSON.*fix or delete it/,
    );

    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = spawn(
        process.execPath,
        [path.join(REPO_ROOT, "chapters/_runner/cli.js"), "s15", "--workspace", ws],
        {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" },
        },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.stdin.end("hi\n");
      child.on("close", (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/state file .*requests\.json is not valid JSON .*fix or delete it/);
    expect(stdout + stderr).not.toMatch(/\n\s+at /);
  });
});
