// Worker for claims.test.ts: one of the claimers. Every round is a board of its own, and all rounds
// run at once. On each board, task #1 carries a claim lock left by a claimer that died, and task #2
// is being claimed by a slow claimer that holds the claim lock for 1.5 s. The first half of the
// processes are the slow claimers, of the boards with `board % (claimers / 2) === index`: each claims
// those first, one after another, through the real claimTask with a board whose read takes 1.5 s
// (under the lock), while the other half is free to break in if it could. Then every process claims
// whatever it finds, again and again, until every #1 and #2 has an owner, in an order drawn from the
// seed the test passes. It prints its wins.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TaskBoard, type Task } from "../../../chapters/s10-task-system/agent.ts";
import { claimTask } from "../../../chapters/s13-agent-teams/agent.ts";
import { mulberry32, shuffled } from "../random.ts";

const [root, name, index, claimers, rounds, seed] = process.argv.slice(2);
const rand = mulberry32(Number(seed ?? 0));
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
const dirOf = (round: number) => path.join(root, `round_${round}`);

/** A board whose read of task #2 takes 1.5 s: the claim lock is held that long. The marker file says
 *  the slow claim has begun, so the others start on #2 only while it is held. */
class SlowBoard extends TaskBoard {
  constructor(private readonly round: number) {
    super(path.join(dirOf(round), "tasks"));
  }
  override get(id: number): Task {
    const task = super.get(id);
    if (id === 2) {
      writeFileSync(path.join(dirOf(this.round), "slow_holds"), "");
      Atomics.wait(PAUSE, 0, 0, 1500);
    }
    return task;
  }
}

const all = Array.from({ length: Number(rounds) }, (_, r) => r);
const boards = all.map((r) => new TaskBoard(path.join(dirOf(r), "tasks")));
const wins: Record<number, number[]> = Object.fromEntries(all.map((r) => [r, []]));
process.stdout.write("ready\n");
while (!existsSync(path.join(root, "go"))) await sleep(2);

for (const round of all.filter((r) => r % (Number(claimers) / 2) === Number(index))) {
  if (claimTask(new SlowBoard(round), 2, name)) wins[round].push(2);
}
const open = (round: number) => [1, 2].some((id) => boards[round].get(id).owner === null);
const deadline = Date.now() + 20_000;
while (all.some(open) && Date.now() < deadline) {
  for (const round of shuffled(all, rand)) {
    const slowHolds = existsSync(path.join(dirOf(round), "slow_holds"));
    for (const id of shuffled([1, 2, 3, 4, 5], rand)) {
      if (id === 2 && !slowHolds) continue; // wait until the slow claimer is inside
      if (claimTask(boards[round], id, name)) wins[round].push(id);
    }
  }
  await sleep(1);
}
process.stdout.write(`${JSON.stringify({ name, wins })}\n`);
