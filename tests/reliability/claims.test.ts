// Task claims under attack: 16 processes claim the same tasks through the real claimTask, while a
// claim lock left by a claimer that died sits on one task and a slow claimer (holding the lock for
// 1.5 s, longer than any "stale after a second" rule) is inside another. Exactly one may win each
// task; blocked, owned and finished tasks never move.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tryLock } from "../../chapters/_shared/lock.ts";
import { TaskBoard } from "../../chapters/s10-task-system/agent.ts";
import { claimTask, readyTasks } from "../../chapters/s13-agent-teams/agent.ts";
import { seedFrom, seedLine, tempDir } from "../support/helpers.ts";
import { startWorker } from "../support/workers.ts";
import { budget } from "../support/budgets.ts";

const CLAIMERS = 16;
const ROUNDS = 16; // 8 slow claimers hold 2 boards each, one after the other: 3 s of attack

/** A board with two ready tasks (#1, #2) and three that must never be claimed. */
function board(dir: string): TaskBoard {
  const b = new TaskBoard(dir);
  b.create({ subject: "ready; a crashed claimer's lock sits on it" });
  b.create({ subject: "ready; a slow claimer is inside" });
  b.create({ subject: "blocked by #1", blockedBy: [1] });
  b.create({ subject: "already owned" });
  b.update(4, { owner: "zed" });
  b.create({ subject: "completed" });
  b.update(5, { status: "completed" });
  return b;
}

/** Each task file's exact text, by id. */
const files = (b: TaskBoard) =>
  Object.fromEntries(b.list().map((t) => [t.id, readFileSync(b.path(t.id), "utf8")]));

// CLAIMERS helper processes, ROUNDS rounds each, some holding a lock for 1.5 s.
describe("task claims", { timeout: budget({ process: 9 }) }, () => {
  it(`are exclusive: ${CLAIMERS} processes, ${ROUNDS} rounds, each with a dead holder's lock and a slow holder`, async () => {
    // The order in which each claimer tries the boards and tasks comes from this seed (claimer i: seed + i).
    const seed = seedFrom("CLAIMS_SEED");
    console.info(`task claims: ${seedLine("CLAIMS_SEED", seed)}`);
    const root = tempDir("lah-claims-");
    const boards = Array.from({ length: ROUNDS }, (_, r) =>
      board(path.join(root, `round_${r}`, "tasks")),
    );
    const before = boards.map(files);

    // A claimer dies holding the claim lock of task #1 on every board.
    const crashed = startWorker("crashed-claimer", [root, String(ROUNDS)]);
    expect((await crashed.exited).signal, crashed.stderr()).toBe("SIGKILL");
    for (const b of boards) expect(existsSync(`${b.path(1)}.lock`)).toBe(true);

    const claimers = Array.from({ length: CLAIMERS }, (_, i) =>
      startWorker("claimer", [
        root,
        `mate${i}`,
        String(i),
        String(CLAIMERS),
        String(ROUNDS),
        String(seed + i),
      ]),
    );
    await Promise.all(claimers.map((c) => c.waitFor(/^ready$/m)));
    writeFileSync(path.join(root, "go"), "");
    const results = await Promise.all(
      claimers.map(async (c) => {
        const { code } = await c.exited;
        expect(code, c.stderr()).toBe(0);
        return JSON.parse(c.stdout().trim().split("\n").at(-1)!) as {
          name: string;
          wins: Record<number, number[]>;
        };
      }),
    );

    const winnersPerTask: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const id of [1, 2]) {
        const winners = results.flatMap(({ name, wins }) =>
          wins[round].includes(id) ? [name] : [],
        );
        winnersPerTask.push(winners.length);
        expect(winners, `round ${round}, task #${id}`).toHaveLength(1);
        expect(boards[round].get(id)).toMatchObject({ owner: winners[0], status: "in_progress" });
        // Task #2 went to its slow claimer: nobody broke into a lock whose holder was alive.
        if (id === 2) expect(winners[0], `round ${round}`).toBe(`mate${round % (CLAIMERS / 2)}`);
      }
      // The blocked, owned and completed tasks are exactly as they were, and no lock is left.
      const after = files(boards[round]);
      for (const id of [3, 4, 5])
        expect(after[id], `round ${round}, task #${id}`).toBe(before[round][id]);
      expect(readdirSync(boards[round].dir).filter((f) => f.includes(".lock"))).toEqual([]);
    }
    const one = winnersPerTask.filter((n) => n === 1).length;
    const winnersOfOne = new Set(
      results.flatMap(({ name, wins }) =>
        Object.values(wins).some((ids) => ids.includes(1)) ? [name] : [],
      ),
    );
    console.info(
      `task claims: ${ROUNDS} rounds × ${CLAIMERS} processes; per round a lock left by a dead claimer ` +
        `(task #1) and a claimer holding its lock for 1.5 s (task #2); ${one} of ${winnersPerTask.length} tasks had exactly one winner; ` +
        `task #1 won by ${winnersOfOne.size} different processes; ${seedLine("CLAIMS_SEED", seed)}`,
    );
  });

  it("never claims a blocked, owned or finished task, nor one a live claimer is claiming", () => {
    const b = board(tempDir("lah-claims-"));
    const before = files(b);
    expect(readyTasks(b).map((t) => t.id)).toEqual([1, 2]);
    for (const id of [3, 4, 5]) expect(claimTask(b, id, "alice"), `task #${id}`).toBeNull();
    expect(files(b)).toEqual(before);

    // Another claimer (alive: this very process) holds the lock right now: this one backs off.
    const held = tryLock(`${b.path(1)}.lock`)!;
    expect(claimTask(b, 1, "alice")).toBeNull();
    expect(b.get(1).owner).toBeNull();

    // Once it lets go, the first claim wins and the second finds the task taken.
    held.release();
    expect(claimTask(b, 1, "alice")?.owner).toBe("alice");
    expect(claimTask(b, 1, "bob")).toBeNull();
    expect(b.get(1).owner).toBe("alice");
    expect(readdirSync(b.dir).filter((f) => f.includes(".lock"))).toEqual([]);
  });
});
