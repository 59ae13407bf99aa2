// Worker for claims.test.ts: one claimer process. For each round it waits at a barrier until all
// claimers are there, then tries to claim every task on that round's board with the real claimTask.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TaskBoard } from "../../../chapters/s10-task-system/agent.ts";
import { claimTask } from "../../../chapters/s13-agent-teams/agent.ts";

const [root, name, rounds, claimers] = process.argv.slice(2);
process.stdout.write("ready\n");
while (!existsSync(path.join(root, "go"))) await sleep(2); // everyone has started

const wins: Record<number, number[]> = {};
for (let round = 0; round < Number(rounds); round++) {
  const dir = path.join(root, `round_${round}`);
  const board = new TaskBoard(path.join(dir, ".tasks"));
  // Barrier: spin until every claimer has arrived, so they all leave it at (nearly) the same moment.
  writeFileSync(path.join(dir, `at_${name}`), "");
  while (readdirSync(dir).filter((f) => f.startsWith("at_")).length < Number(claimers)) { /* spin */ }
  const ids = board.list().map((t) => t.id).sort(() => Math.random() - 0.5);
  wins[round] = ids.filter((id) => claimTask(board, id, name) !== null);
}
process.stdout.write(`${JSON.stringify({ name, wins })}\n`);
