// Worker for claims.test.ts: a claimer that dies in the middle of claiming task #1 on every board.
// Its board's read of task #1 (made under the claim lock) starts the claim on the next board, so it
// ends up holding all the claim locks at once — then it kills itself with SIGKILL, as a crash would.
import path from "node:path";
import { TaskBoard, type Task } from "../../../chapters/s10-task-system/agent.ts";
import { claimTask } from "../../../chapters/s13-agent-teams/agent.ts";

const [root, rounds] = process.argv.slice(2);

class CrashingBoard extends TaskBoard {
  constructor(private readonly round: number) {
    super(path.join(root, `round_${round}`, "tasks"));
  }
  override get(id: number): Task {
    if (id !== 1) return super.get(id);
    if (this.round + 1 < Number(rounds)) claimTask(new CrashingBoard(this.round + 1), 1, "crashed");
    else process.kill(process.pid, "SIGKILL");
    return super.get(id);
  }
}
claimTask(new CrashingBoard(0), 1, "crashed");
