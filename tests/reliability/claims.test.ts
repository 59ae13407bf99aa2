// Task claims under contention: several processes claim the same ready task at the same moment
// through the real claimTask. Exactly one may win; blocked, owned and finished tasks never move.
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TaskBoard } from "../../chapters/s10-task-system/agent.ts";
import { claimTask, readyTasks } from "../../chapters/s13-agent-teams/agent.ts";
import { tempDir } from "../helpers.ts";
import { startWorker } from "./workers.ts";

const CLAIMERS = 6;
const ROUNDS = 20;

/** A board with one ready task (#1) and four that must never be claimed. */
function board(dir: string): TaskBoard {
  const b = new TaskBoard(dir);
  b.create({ subject: "ready: pending, no owner, nothing blocks it" });
  b.create({ subject: "blocked by #1", blockedBy: [1] });
  b.create({ subject: "already owned" });
  b.update(3, { owner: "zed" });
  b.create({ subject: "in progress" });
  b.update(4, { owner: "zed", status: "in_progress" });
  b.create({ subject: "completed" });
  b.update(5, { status: "completed" });
  return b;
}

/** Each task file's exact text, by id. */
const files = (b: TaskBoard) => Object.fromEntries(b.list().map((t) => [t.id, readFileSync(b.path(t.id), "utf8")]));

describe("task claims", () => {
  it(`are exclusive: ${CLAIMERS} processes race for one ready task, ${ROUNDS} rounds`, async () => {
    const root = tempDir("lah-claims-");
    const boards = Array.from({ length: ROUNDS }, (_, r) => board(path.join(root, `round_${r}`, ".tasks")));
    const before = boards.map(files);

    const claimers = Array.from({ length: CLAIMERS }, (_, i) =>
      startWorker("claimer", [root, `mate${i}`, String(ROUNDS), String(CLAIMERS)]));
    await Promise.all(claimers.map((c) => c.waitFor(/^ready$/m)));
    writeFileSync(path.join(root, "go"), "");
    const results = await Promise.all(claimers.map(async (c) => {
      const { code } = await c.exited;
      expect(code, c.stderr()).toBe(0);
      return JSON.parse(c.stdout().trim().split("\n").at(-1)!) as { name: string; wins: Record<number, number[]> };
    }));

    let races = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const winners = results.flatMap(({ name, wins }) => wins[round].map((id) => ({ name, id })));
      // Exactly one claim succeeded, and it was the ready task.
      expect(winners, `round ${round}`).toHaveLength(1);
      expect(winners[0].id).toBe(1);
      const task = boards[round].get(1);
      expect(task.owner).toBe(winners[0].name);
      expect(task.status).toBe("in_progress");
      // The blocked, owned, in-progress and completed tasks are exactly as they were.
      const after = files(boards[round]);
      for (const id of [2, 3, 4, 5]) expect(after[id], `round ${round}, task #${id}`).toBe(before[round][id]);
      expect(readdirSync(boards[round].dir).filter((f) => f.endsWith(".lock"))).toEqual([]);
      races++;
    }
    const byWinner = Object.fromEntries(results.map(({ name, wins }) => [name, Object.values(wins).flat().length]));
    console.info(`task claims: ${races} claim races run, ${CLAIMERS} processes each, one winner every time (wins: ${JSON.stringify(byWinner)})`);
  }, 60_000);

  it("never claims a blocked, owned, started or finished task, nor one someone is claiming", () => {
    const b = board(tempDir("lah-claims-"));
    const before = files(b);
    expect(readyTasks(b).map((t) => t.id)).toEqual([1]);
    for (const id of [2, 3, 4, 5]) expect(claimTask(b, id, "alice"), `task #${id}`).toBeNull();
    expect(files(b)).toEqual(before);

    // Another claimer holds the lock right now: this one backs off and changes nothing.
    writeFileSync(`${b.path(1)}.lock`, "");
    expect(claimTask(b, 1, "alice")).toBeNull();
    expect(b.get(1).owner).toBeNull();

    // Once the lock is gone, the first claim wins and the second finds the task taken.
    rmSync(`${b.path(1)}.lock`);
    expect(claimTask(b, 1, "alice")?.owner).toBe("alice");
    expect(claimTask(b, 1, "bob")).toBeNull();
    expect(b.get(1).owner).toBe("alice");
    expect(readdirSync(b.dir).filter((f) => f.endsWith(".lock"))).toEqual([]);
  });
});

describe("a claim lock left by a process that died", () => {
  it("is removed once stale, so the task can be claimed again", () => {
    const board = new TaskBoard(path.join(tempDir(), ".tasks"));
    const task = board.create({ subject: "orphaned" });
    const lock = `${board.path(task.id)}.lock`;
    writeFileSync(lock, "");
    expect(claimTask(board, task.id, "alice")).toBeNull(); // a fresh lock: someone is claiming
    const old = new Date(Date.now() - 5000);
    utimesSync(lock, old, old);
    expect(claimTask(board, task.id, "alice")).toBeNull(); // stale: removed, not taken
    expect(claimTask(board, task.id, "alice")?.owner).toBe("alice");
  });
});
