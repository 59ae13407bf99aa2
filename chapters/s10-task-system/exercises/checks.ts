// s10's exercises: rebuild the unblocking (completing a task frees its dependants); extend the
// board (no pending → completed; a "ready" line). The behaviours are the curriculum's for s10, and
// tests/chapters/s10-task-system.test.ts runs the same ones against the chapter's own code.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { say, use } from "../../_shared/scripted.ts";
import type * as S10 from "../agent.ts";
import type { Task, TaskBoard } from "../agent.ts";
import {
  change,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckKit,
  type Exercise,
  refusal,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S10;

const boardIn = (module: M, kit: CheckKit): TaskBoard =>
  new module.TaskBoard(path.join(kit.workspace(), "tasks"));
const ids = (list: number[]) => (list.length ? list.map((id) => `#${id}`).join(", ") : "none");
const same = (a: number[], b: number[]) => [...a].sort().join() === [...b].sort().join();

/** Starts a task, then completes it (the way every board allows). */
function finish(board: TaskBoard, id: number): void {
  board.update(id, { status: "in_progress" });
  board.update(id, { status: "completed" });
}

function expectBlockedBy(board: TaskBoard, task: number, expected: number[], done: string) {
  const got = board.get(task).blockedBy;
  expectThat(same(got, expected), "still-blocked", {
    task,
    done,
    got: ids(got),
    expected: ids(expected),
  });
}

export const blockedCannotStart: Check<M> = {
  id: "blocked-cannot-start",
  run(module, kit) {
    const board = boardIn(module, kit);
    const first = board.create({ subject: "module" });
    const second = board.create({ subject: "test", blockedBy: [first.id] });
    for (const status of ["in_progress", "completed"] as const) {
      const refused = refusal(() => board.update(second.id, { status }));
      expectThat(refused !== undefined, "blocked-started", { status });
      const now = board.get(second.id).status;
      expectThat(now === "pending", "refused-but-changed", { status, got: now });
    }
    // A task the files say is in_progress while it still has a blocker (another writer, a crash):
    // it may always go back to pending.
    const stuck: Task = { ...board.get(second.id), status: "in_progress" };
    writeFileSync(board.path(second.id), `${JSON.stringify(stuck, null, 2)}\n`);
    const back = refusal(() => board.update(second.id, { status: "pending" }));
    const now = board.get(second.id).status;
    expectThat(back === undefined && now === "pending", "back-to-pending-refused", {
      got: back ?? now,
    });
  },
};

export const unblocksDependant: Check<M> = {
  id: "unblocks-dependant",
  async run(module, kit) {
    const env = kit.env([
      use("task_create", { subject: "module" }),
      use("task_create", { subject: "test", blockedBy: [1] }),
      use("task_update", { id: 1, status: "in_progress" }),
      use("task_update", { id: 1, status: "completed" }),
      use("task_update", { id: 2, status: "in_progress" }),
      say("done"),
    ]);
    await module.createAgent(env).send("go");
    const results = env.io.trace.flatMap((e) =>
      e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
    );
    const stub = results.find((r) => r.output.includes(NOT_STARTED));
    if (stub) throw new Error(stub.output.slice(stub.output.indexOf(NOT_STARTED)));
    const [, , , complete, start] = results;
    expectThat(complete?.output.includes("Unblocked: [ ] #2"), "no-unblocked-line", {
      got: complete?.output ?? "nothing",
    });
    expectThat(start && !start.isError, "start-refused", { got: start?.output ?? "nothing" });
    const board = new module.TaskBoard(path.join(env.stateDir, "tasks"));
    const [one, two] = [board.get(1), board.get(2)];
    expectThat(one.status === "completed", "wrong-status", {
      task: 1,
      got: one.status,
      expected: "completed",
    });
    expectThat(one.blocks.length === 0, "blocks-kept", { task: 1, got: ids(one.blocks) });
    expectThat(two.status === "in_progress", "wrong-status", {
      task: 2,
      got: two.status,
      expected: "in_progress",
    });
  },
};

export const waitsForEveryBlocker: Check<M> = {
  id: "waits-for-every-blocker",
  async run(module, kit) {
    const board = boardIn(module, kit);
    const a = board.create({ subject: "a" });
    const c = board.create({ subject: "c" });
    const b = board.create({ subject: "b", blockedBy: [a.id, c.id] });
    finish(board, a.id);
    expectBlockedBy(board, b.id, [c.id], `#${a.id}`);
    expectThat(!board.isReady(board.get(b.id)), "ready-too-early", { task: b.id, open: c.id });
    finish(board, c.id);
    expectBlockedBy(board, b.id, [], `#${a.id} and #${c.id}`);
    expectThat(board.isReady(board.get(b.id)), "not-ready", { task: b.id });
    await boardRule(module, kit);
  },
};

export const onlyCompletionFrees: Check<M> = {
  id: "only-completion-frees",
  run(module, kit) {
    const board = boardIn(module, kit);
    const a = board.create({ subject: "a" });
    const b = board.create({ subject: "b", blockedBy: [a.id] });
    for (const status of ["in_progress", "pending"] as const) {
      board.update(a.id, { status });
      const got = board.get(b.id).blockedBy;
      expectThat(got.includes(a.id), "freed-too-early", { task: b.id, blocker: a.id, status });
    }
  },
};

export const freesHalfWrittenEdge: Check<M> = {
  id: "frees-half-written-edge",
  run(module, kit) {
    const board = boardIn(module, kit);
    const a = board.create({ subject: "a" });
    const b = board.create({ subject: "b", blockedBy: [a.id] });
    // A crash between the two writes of an edge: b waits for a, but a's file does not say so.
    const half: Task = { ...board.get(a.id), blocks: [] };
    writeFileSync(board.path(a.id), `${JSON.stringify(half, null, 2)}\n`);
    // A task that has nothing to do with a: completing a changes nothing in it, so its file
    // keeps the time it last changed.
    const other = board.create({ subject: "other" });
    const long = "2020-01-01T00:00:00.000Z";
    writeFileSync(
      board.path(other.id),
      `${JSON.stringify({ ...other, updatedAt: long }, null, 2)}\n`,
    );
    finish(board, a.id);
    expectBlockedBy(board, b.id, [], `#${a.id}`);
    const updated = board.get(other.id).updatedAt;
    expectThat(updated === long, "untouched-rewritten", { task: other.id, done: `#${a.id}` });
  },
};

// ---- The board's rule, tried on generated plans (a property check) ----

type Status = Task["status"];
/** One step of a generated plan: a new task waiting for some earlier ones, or a status move. */
type Op = { create: number[] } | { task: number; status: Status };

const opsArb: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc
        .uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 3 })
        .map((create) => ({ create })),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        task: fc.integer({ min: 1, max: 5 }),
        status: fc.constantFrom<Status>("in_progress", "completed", "completed", "pending"),
      }),
    },
  ),
  { minLength: 3, maxLength: 16 },
);

const showOp = (op: Op, id: number) =>
  "create" in op
    ? `create #${id}${op.create.length ? ` after ${ids(op.create)}` : ""}`
    : `#${op.task} → ${op.status}`;

/** Plays `ops` on the learner's board and on a model of the rule side by side: a move the flow
 *  allows is refused while the task has blockers (unless it goes back to pending) and then
 *  changes nothing; completing a task takes it out of every blockedBy, so a task is free exactly
 *  when the last of its blockers is completed. After each step every task must match. */
async function boardRule(module: M, kit: CheckKit) {
  await forAll(
    opsArb,
    (ops) => {
      const board = boardIn(module, kit);
      const model = new Map<number, { status: Status; blockedBy: Set<number> }>();
      const story: string[] = [];
      for (const op of ops) {
        if ("create" in op) {
          const known = op.create.filter((b) => model.has(b));
          const task = board.create({ subject: `task ${model.size + 1}`, blockedBy: known });
          const open = known.filter((b) => model.get(b)!.status !== "completed");
          model.set(task.id, { status: "pending", blockedBy: new Set(open) });
          story.push(showOp({ create: known }, task.id));
        } else {
          const m = model.get(op.task);
          if (!m) continue;
          const flows = op.status === m.status || module.STATUS_FLOW[m.status].includes(op.status);
          if (!flows) continue; // not setStatus's to judge: the flow refuses it first
          story.push(showOp(op, op.task));
          const blocked = op.status !== "pending" && m.blockedBy.size > 0;
          const refused = refusal(() => board.update(op.task, { status: op.status }));
          if (blocked || op.status === m.status) {
            if (blocked)
              expectThat(refused !== undefined, "board-blocked-moved", {
                story: story.join(" · "),
                task: op.task,
                status: op.status,
                open: ids([...m.blockedBy]),
              });
          } else {
            expectThat(refused === undefined, "board-refused", {
              story: story.join(" · "),
              task: op.task,
              status: op.status,
              error: refused ?? "",
            });
            m.status = op.status;
            if (op.status === "completed")
              for (const other of model.values()) other.blockedBy.delete(op.task);
          }
        }
        for (const [id, m] of model) {
          const now = board.get(id);
          const got = `${now.status}, blocked by ${ids([...now.blockedBy])}`;
          const expected = `${m.status}, blocked by ${ids([...m.blockedBy])}`;
          expectThat(
            now.status === m.status && same(now.blockedBy, [...m.blockedBy]),
            "board-differs",
            { story: story.join(" · "), task: id, got, expected },
          );
          const ready = m.status === "pending" && m.blockedBy.size === 0;
          expectThat(board.isReady(now) === ready, ready ? "not-ready" : "ready-too-early", {
            task: id,
            open: [...m.blockedBy].join(", #"),
          });
        }
      }
    },
    { runs: 30 },
  );
}

// #region extend checks
export const refusesPendingToCompleted: Check<M> = {
  id: "refuses-pending-to-completed",
  run(module, kit) {
    const board = boardIn(module, kit);
    const task = board.create({ subject: "a" });
    const refused = refusal(() => board.update(task.id, { status: "completed" }));
    expectThat(refused !== undefined, "pending-completed");
    const now = board.get(task.id).status;
    expectThat(now === "pending", "refused-but-changed", { status: "completed", got: now });
    expectThat(refused.includes("in_progress"), "refusal-says-nothing", { got: refused });
  },
};

export const completesAfterStarting: Check<M> = {
  id: "completes-after-starting",
  run(module, kit) {
    const board = boardIn(module, kit);
    const task = board.create({ subject: "a" });
    board.update(task.id, { status: "in_progress" });
    const refused = refusal(() => board.update(task.id, { status: "completed" }));
    expectThat(refused === undefined, "completion-refused", { got: refused ?? "" });
  },
};

export const readyLine: Check<M> = {
  id: "ready-line",
  run(module, kit) {
    const board = boardIn(module, kit);
    const free = board.create({ subject: "free" }); // ready
    const started = board.create({ subject: "started" });
    board.create({ subject: "waits", blockedBy: [started.id] });
    board.update(started.id, { status: "in_progress" });
    const owned = board.create({ subject: "owned" });
    board.update(owned.id, { owner: "alice" });
    const done = board.create({ subject: "done" });
    finish(board, done.id);
    const last = board.create({ subject: "also free" }); // ready
    const text = module.renderBoard(board.list());
    const line = text.split("\n").find((l) => /^\s*ready\b/i.test(l));
    expectThat(line, "no-ready-line", { got: text });
    const got = [...line.replace(/^\s*ready/i, "").matchAll(/\d+/g)].map((m) => Number(m[0]));
    const expected = [free.id, last.id];
    expectThat(same(got, expected), "ready-ids", { got: ids(got), expected: ids(expected) });
  },
};
// #endregion extend checks

export const exercises: Exercise<M>[] = [
  {
    id: "s10",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "setStatus",
        contract: [
          "Called by update() with the task, its new status (already checked against STATUS_FLOW),",
          "every task by id (in memory) and the set of tasks to write. Change nothing on disk.",
          "A task that still has blockers may only stay or go back to pending: throw otherwise.",
          "Set the status. On completed, remove the task's id from the blockedBy of EVERY task that",
          "names it (not only those in its blocks), add each one changed to `changed`, and empty",
          "the task's blocks: a finished task blocks nothing. Add the task itself to `changed`.",
        ].join("\n"),
      },
    ],
    checks: [
      blockedCannotStart,
      unblocksDependant,
      waitsForEveryBlocker,
      onlyCompletionFrees,
      freesHalfWrittenEdge,
    ],
  },
  {
    id: "s10.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      task: change('pending: ["in_progress", "completed"]', 'pending: ["in_progress"]'),
      status: change(
        "    if (status !== task.status && !STATUS_FLOW[task.status].includes(status))",
        `    if (task.status === "pending" && status === "completed")
      throw new Error(\`task \${task.id} is still pending: set it in_progress first, then completed\`);
    if (status !== task.status && !STATUS_FLOW[task.status].includes(status))`,
      ),
    },
    checks: [refusesPendingToCompleted, completesAfterStarting, blockedCannotStart],
  },
  {
    id: "s10.2",
    kind: "extend",
    file: "agent.ts",
    solution: {
      render: change(
        "    ...tasks.map(taskLine),\n",
        `    ...tasks.map(taskLine),
    // What a new worker could pick up now: pending, nobody owns it, nothing blocks it.
    \`ready: \${
      tasks
        .filter((t) => t.status === "pending" && !t.owner && t.blockedBy.length === 0)
        .map((t) => \`#\${t.id}\`)
        .join(", ") || "none"
    }\`,
`,
      ),
    },
    checks: [readyLine, unblocksDependant],
  },
];
