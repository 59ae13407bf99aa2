// Worker for crash-state.test.ts: writes four kinds of state over and over, through the real
// chapter code, until the test kills it with SIGKILL. It starts from whatever is on disk (the
// restart after a crash) and prints one line after each write has completed.
import path from "node:path";
import { readJson, writeJsonAtomic } from "../../../chapters/_shared/fsutil.ts";
import { TaskBoard } from "../../../chapters/s10-task-system/agent.ts";
import { WorktreeManager, type Lane } from "../../../chapters/s12-worktree-isolation/agent.ts";
import type { TeamMessage } from "../../../chapters/s13-agent-teams/mailbox.ts";
import { blobState, laneList, requestContent, taskDescription, taskVersion } from "./states.ts";

// `withRequests`: also write s15's request table. Loading s15 (and with it s13 and the SDK) makes
// a start about a second slower, so the test asks for it at every third crash point only.
const [dir, withRequests] = process.argv.slice(2);
// Pipes are written synchronously on Linux: a printed line is in the pipe before the next write starts.
const done = (what: string, n: number) => process.stdout.write(`${what} ${n}\n`);

// 1. A plain large JSON state.
const blobFile = path.join(dir, "state.json");
let blob = (() => {
  try {
    return readJson<{ version: number }>(blobFile).version;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0; // the first start
    throw err;
  }
})();

// 2. The task board (s10): task #1's description grows a version each time.
const board = new TaskBoard(path.join(dir, ".tasks"));
if (board.list().length === 0)
  board.create({ subject: "crash me", description: taskDescription(0) });
let task = taskVersion(board.get(1).description);

// 3. The protocol table (s15): open a request, resolve it, open the next, ...
const deliver = (
  from: string,
  to: string,
  content: string,
  type: string,
  extra: Record<string, unknown>,
): TeamMessage => ({ id: "msg_stub", type, from, to, content, ts: "", ...extra });
const requests =
  withRequests === "yes"
    ? new (await import("../../../chapters/s15-team-protocols/agent.ts")).PendingRequests(
        path.join(dir, ".team", "requests.json"),
        deliver,
      )
    : undefined;
const rows = () => Object.entries(requests?.all() ?? {});
const step = () => rows().length * 2 - (rows().at(-1)?.[1].status === "pending" ? 1 : 0);

// 4. The worktree index (s12), through the manager's own writer and reader.
const lanes = new WorktreeManager(dir);
const saveIndex = (list: Lane[]) =>
  (lanes as unknown as { saveIndex(l: Lane[]): void }).saveIndex(list);
let index = lanes.list()[0]?.taskId ?? 0;

process.stdout.write(
  `ready blob=${blob} task=${task} index=${index}${requests ? ` req=${step()}` : ""}\n`,
);
for (;;) {
  writeJsonAtomic(blobFile, blobState(++blob));
  done("blob", blob);
  board.update(1, { description: taskDescription(++task) });
  done("task", task);
  if (requests) {
    const last = rows().at(-1);
    if (last?.[1].status === "pending") requests.resolve(last[0], "bob", true, "ok", "shutdown");
    else requests.open("shutdown", "lead", "bob", requestContent(rows().length + 1));
    done("req", step());
  }
  saveIndex(laneList(++index));
  done("index", index);
}
