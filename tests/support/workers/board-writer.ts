// Worker for board.test.ts: one process writing to a shared task board through the real TaskBoard.
//   create <board> <name> <count>        creates <count> tasks, one after another
//   block  <board> <name> <hub> <ids>    adds each id (comma-separated) to task <hub>'s blockedBy, one update each
// It prints "ready", waits until the test writes <board>/../go (so all workers start together), then
// prints one JSON line: what succeeded and the errors it got.
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TaskBoard } from "../../../chapters/s10-task-system/agent.ts";

const [mode, dir, name, ...rest] = process.argv.slice(2);
const board = new TaskBoard(dir);
process.stdout.write("ready\n");
while (!existsSync(path.join(dir, "..", "go"))) await sleep(2);

const done: number[] = [];
const errors: string[] = [];
const attempt = (work: () => number) => {
  try {
    done.push(work());
  } catch (err) {
    errors.push((err as Error).message);
  }
};
if (mode === "create") {
  for (let i = 0; i < Number(rest[0]); i++)
    attempt(() => board.create({ subject: `${name} #${i}` }).id);
} else if (mode === "block") {
  const hub = Number(rest[0]);
  for (const id of rest[1].split(",").map(Number))
    attempt(() => (board.update(hub, { addBlockedBy: [id] }), id));
} else {
  throw new Error(`unknown mode ${mode}`);
}
process.stdout.write(`${JSON.stringify({ name, done, errors })}\n`);
