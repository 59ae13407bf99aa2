// The task board under attack: many processes creating and linking at once, patches with one bad
// part, graphs that can never finish, hostile ids and hostile files. Each attack either works
// completely or changes nothing on disk, and every refusal is one sentence.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runTool } from "../../chapters/s02-tool-use/agent.ts";
import { BrokenStateError } from "../../chapters/_shared/fsutil.ts";
import { TaskBoard, taskHandlers } from "../../chapters/s10-task-system/agent.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { tempDir, toolAt } from "../support/helpers.ts";
import { startWorker } from "../support/workers.ts";
import { budget } from "../support/budgets.ts";

const CREATORS = 8;
const CREATES_EACH = 50;
const LINKERS = 8;
const LINKS_EACH = 10;

/** Every file in the board folder with its exact bytes: "nothing changed" means this is equal. */
const snapshot = (board: TaskBoard) =>
  Object.fromEntries(
    readdirSync(board.dir)
      .sort()
      .map((f) => [f, readFileSync(path.join(board.dir, f), "utf8")]),
  );
const taskFiles = (board: TaskBoard) =>
  readdirSync(board.dir).filter((f) => /^task_\d+\.json$/.test(f));

const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}`, name, input }) as ToolUseBlock;

/** The error a call throws (it must throw). */
function errorOf(work: () => unknown): Error {
  try {
    work();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error, but the call succeeded");
}

/** One sentence: no stack, no bare errno code, one line. */
const oneSentence = (message: string) => {
  expect(message).not.toMatch(/\n/);
  expect(message).not.toMatch(/^E[A-Z]+:/);
  expect(message.length).toBeLessThan(400);
};

/** Runs one board-writer process per argument list, starting them together. */
async function race(root: string, jobs: string[][]) {
  const workers = jobs.map((args) => startWorker("board-writer", args));
  await Promise.all(workers.map((w) => w.waitFor(/^ready$/m)));
  writeFileSync(path.join(root, "go"), "");
  return Promise.all(
    workers.map(async (w) => {
      const { code } = await w.exited;
      expect(code, w.stderr()).toBe(0);
      return JSON.parse(w.stdout().trim().split("\n").at(-1)!) as {
        name: string;
        done: number[];
        errors: string[];
      };
    }),
  );
}

/** A board with tasks written by hand, as another tool (or an attacker) could. */
function handWritten(tasks: Record<string, unknown>[]): TaskBoard {
  const board = new TaskBoard(path.join(tempDir("lah-board-"), "tasks"));
  for (const t of tasks) {
    const task = {
      subject: `task ${t.id}`,
      description: "",
      status: "pending",
      owner: null,
      blockedBy: [],
      blocks: [],
      worktree: null,
      createdAt: "",
      updatedAt: "",
      ...t,
    };
    writeFileSync(board.path(t.id as number), JSON.stringify(task));
  }
  return board;
}

// A helper process per creator (or linker), each making its changes.
describe("task board under concurrency", { timeout: budget({ process: CREATORS }) }, () => {
  it(`creates never overwrite: ${CREATORS} processes x ${CREATES_EACH} creates, one file per success`, async () => {
    const root = tempDir("lah-board-");
    const dir = path.join(root, "tasks");
    const results = await race(
      root,
      Array.from({ length: CREATORS }, (_, i) => ["create", dir, `p${i}`, String(CREATES_EACH)]),
    );
    const board = new TaskBoard(dir);
    const successes = results.flatMap((r) => r.done);
    const files = taskFiles(board);
    console.info(
      `board creates: ${CREATORS} processes x ${CREATES_EACH} task_create, ${successes.length} successes, ` +
        `${new Set(successes).size} distinct ids, ${files.length} task files`,
    );
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(successes).toHaveLength(CREATORS * CREATES_EACH);
    expect(new Set(successes).size).toBe(successes.length);
    expect(files).toHaveLength(successes.length);
    // Each id holds the task its creator was told it made, and ids run 1..N without gaps.
    const tasks = board.list();
    expect(tasks.map((t) => t.id)).toEqual(
      Array.from({ length: successes.length }, (_, i) => i + 1),
    );
    for (const { name, done } of results) {
      done.forEach((id, i) => expect(board.get(id).subject).toBe(`${name} #${i}`));
    }
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp") || f.endsWith(".lock"))).toEqual([]);
  });

  it(`updates never lose each other's edges: ${LINKERS} processes x ${LINKS_EACH} edges into one task`, async () => {
    const root = tempDir("lah-board-");
    const dir = path.join(root, "tasks");
    const board = new TaskBoard(dir);
    const hub = board.create({ subject: "waits for everything" });
    const blockers = Array.from({ length: LINKERS }, () =>
      Array.from({ length: LINKS_EACH }, (_, i) => board.create({ subject: `blocker ${i}` }).id),
    );
    const results = await race(
      root,
      blockers.map((ids, i) => ["block", dir, `p${i}`, String(hub.id), ids.join(",")]),
    );
    const added = results.flatMap((r) => r.done).sort((a, b) => a - b);
    const edges = [...board.get(hub.id).blockedBy].sort((a, b) => a - b);
    console.info(
      `board updates: ${LINKERS} processes x ${LINKS_EACH} addBlockedBy on one task, ` +
        `${added.length} successes, ${edges.length} edges on disk`,
    );
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(added).toEqual(blockers.flat().sort((a, b) => a - b));
    expect(edges).toEqual(added);
    for (const id of added) expect(board.get(id).blocks, `#${id}`).toEqual([hub.id]);
    expect(readdirSync(dir).filter((f) => f.endsWith(".lock"))).toEqual([]);
  });

  it("an update goes on past a board lock left by a process that died", () => {
    const board = new TaskBoard(path.join(tempDir("lah-board-"), "tasks"));
    board.create({ subject: "a" });
    board.create({ subject: "b" });
    const dead = spawnSync(process.execPath, ["-e", ""]).pid; // has exited: its pid names no process
    mkdirSync(path.join(board.dir, "board.lock"));
    writeFileSync(path.join(board.dir, "board.lock", `${dead}.deadbeef`), "");
    expect(board.update(2, { addBlockedBy: [1] }).blockedBy).toEqual([1]);
    expect(readdirSync(board.dir).filter((f) => f.includes(".lock"))).toEqual([]);
  });
});

describe("task board validation", () => {
  it("a patch with one bad part changes nothing on disk", async () => {
    const board = new TaskBoard(path.join(tempDir("lah-board-"), "tasks"));
    for (const subject of ["a", "b", "c"]) board.create({ subject });
    board.update(3, { addBlockedBy: [2] }); // 3 waits for 2
    const before = snapshot(board);
    const refusals: [string, () => unknown, RegExp][] = [
      [
        "a missing blocker after a good one",
        () => board.update(2, { addBlockedBy: [1, 99] }),
        /task 99 not found/,
      ],
      [
        "a missing dependant after a good one",
        () => board.update(1, { addBlocks: [2, 99] }),
        /task 99 not found/,
      ],
      [
        "a cycle after a good edge",
        () => board.update(2, { addBlockedBy: [1, 3] }),
        /cycle.*#2.*#3|cycle.*#3.*#2/,
      ],
      [
        "itself after a good edge",
        () => board.update(2, { addBlockedBy: [1, 2] }),
        /task 2 cannot block itself/,
      ],
      [
        "a bad status after good edges",
        () => board.update(2, { addBlockedBy: [1], status: "done" as never }),
        /invalid status/,
      ],
      [
        "a bad owner after good edges",
        () => board.update(2, { addBlockedBy: [1], owner: 7 as never }),
        /owner/,
      ],
      [
        "a good edge, then a start it forbids",
        () => board.update(2, { addBlockedBy: [1], status: "in_progress" }),
        /blocked by #1/,
      ],
      [
        "a blocker that is a hostile id",
        () => board.update(2, { addBlockedBy: [1, 1e21] }),
        /task id/,
      ],
      [
        "a create with a missing blocker",
        () => board.create({ subject: "d", blockedBy: [1, 99] }),
        /task 99 not found/,
      ],
    ];
    for (const [what, work, message] of refusals) {
      const err = errorOf(work);
      expect(err.message, what).toMatch(message);
      oneSentence(err.message);
      expect(snapshot(board), what).toEqual(before);
    }
    // Through the tool too: an error result, and the same bytes on disk.
    const result = await runTool(
      taskHandlers(board),
      call("task_update", { id: 2, addBlockedBy: [1, 99] }),
      toolAt("."),
    );
    expect(result).toEqual({ output: expect.stringMatching(/task 99 not found/), isError: true });
    expect(snapshot(board)).toEqual(before);
  });

  it("refuses hostile ids everywhere ids come in, and later creates still number on", async () => {
    const board = new TaskBoard(path.join(tempDir("lah-board-"), "tasks"));
    board.create({ subject: "a" });
    board.create({ subject: "b" });
    const before = snapshot(board);
    const handlers = taskHandlers(board);
    const hostile: unknown[] = [
      0,
      -1,
      1.5,
      Number.NaN,
      Infinity,
      1e21,
      2 ** 53,
      1e10,
      "1",
      "abc",
      "",
      null,
      true,
      [1],
      {},
    ];
    for (const id of hostile) {
      const shown = typeof id === "number" ? String(id) : JSON.stringify(id);
      const inputs: [string, Record<string, unknown>][] = [
        ["task_get", { id }],
        ["task_update", { id, status: "completed" }],
        ["task_update", { id: 1, addBlockedBy: [id] }],
        ["task_update", { id: 1, addBlocks: [2, id] }],
        ["task_create", { subject: "x", blockedBy: [2, id] }],
      ];
      for (const [tool, input] of inputs) {
        const result = await runTool(handlers, call(tool, input), toolAt("."));
        expect(result.isError, `${tool} ${shown}`).toBe(true);
        expect(result.output, `${tool} ${shown}`).toMatch(
          /task id must be a whole number from 1 to/,
        );
        oneSentence(result.output);
      }
      for (const work of [
        () => board.get(id as number),
        () => board.update(id as number, {}),
        () => board.update(1, { addBlockedBy: [id as number] }),
        () => board.create({ subject: "x", blockedBy: [id as number] }),
      ]) {
        expect(errorOf(work).message, shown).toMatch(/task id must be a whole number/);
      }
      expect(snapshot(board), shown).toEqual(before);
    }
    expect(board.create({ subject: "c" }).id).toBe(3);
  });

  it("refuses a cycle, a self-block or a missing blocker on create and update, naming the tasks", () => {
    const board = new TaskBoard(path.join(tempDir("lah-board-"), "tasks"));
    board.create({ subject: "a" });
    board.create({ subject: "b", blockedBy: [1] });
    board.create({ subject: "c", blockedBy: [2] });
    const before = snapshot(board);
    expect(errorOf(() => board.update(1, { addBlockedBy: [3] })).message).toMatch(
      /#1 .*#3.*#2.*#1|cycle: #1 waits for #3, which waits for #2, which waits for #1/,
    );
    expect(errorOf(() => board.update(3, { addBlocks: [1] })).message).toMatch(/cycle/);
    expect(errorOf(() => board.update(1, { addBlocks: [1] })).message).toMatch(
      /task 1 cannot block itself/,
    );
    expect(errorOf(() => board.create({ subject: "d", blockedBy: [7] })).message).toMatch(
      /task 7 not found/,
    );
    expect(snapshot(board)).toEqual(before);
  });
});

describe("a board on disk that is broken", () => {
  it("a graph that can never finish is reported in one sentence naming the tasks", () => {
    const cases: [Record<string, unknown>[], RegExp][] = [
      [
        [{ id: 1, blockedBy: [1], blocks: [1] }],
        /task board .* is broken: task #1 is blocked by itself/,
      ],
      [
        [{ id: 1, blockedBy: [9] }],
        /task board .* is broken: task #1 is blocked by #9, which does not exist/,
      ],
      [
        [
          { id: 1, blockedBy: [2], blocks: [2] },
          { id: 2, blockedBy: [1], blocks: [1] },
        ],
        /task board .* is broken: tasks #1 and #2 wait for each other|is broken: .*cycle.*#1.*#2/,
      ],
    ];
    for (const [tasks, message] of cases) {
      const board = handWritten(tasks);
      const err = errorOf(() => board.list());
      expect(err, String(message)).toBeInstanceOf(BrokenStateError);
      expect(err.message).toMatch(message);
      expect(err.message).toMatch(/fix or delete/);
      oneSentence(err.message);
      // Changing such a board is refused the same way; nothing is written.
      const before = snapshot(board);
      expect(errorOf(() => board.update(1, { status: "completed" })).message).toMatch(/is broken/);
      expect(snapshot(board)).toEqual(before);
    }
  });

  it("a folder named like a task file is a sentence, not a bare EISDIR; creates go on past it", () => {
    const board = new TaskBoard(path.join(tempDir("lah-board-"), "tasks"));
    board.create({ subject: "a" });
    mkdirSync(path.join(board.dir, "task_8.json"));
    for (const work of [() => board.list(), () => board.get(8)]) {
      const err = errorOf(work);
      expect(err).toBeInstanceOf(BrokenStateError);
      expect(err.message).toMatch(/task_8\.json is a folder, not a task file; .*remove it/);
      oneSentence(err.message);
    }
    expect(board.create({ subject: "b" }).id).toBe(9);
  });

  it("a task file of the wrong shape is a sentence naming the file and the field", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ id: 1e21 }, /task_1\.json is not a task \("id" must be 1, the number in its file name\)/],
      [{ id: 2 }, /task_1\.json is not a task \("id" must be 1, the number in its file name\)/],
      [{ id: 1, blockedBy: ["x"] }, /"blockedBy" and "blocks" must be lists of task ids/],
      [{ id: 1, blocks: [0] }, /"blockedBy" and "blocks" must be lists of task ids/],
      [{ id: 1, owner: 5 }, /"owner" must be text or null/],
      [{ id: 1, worktree: ["x"] }, /"worktree" must be text or null/],
      [{ id: 1, description: 3 }, /"description" must be text/],
    ];
    for (const [task, message] of cases) {
      const board = new TaskBoard(path.join(tempDir("lah-board-"), "tasks"));
      writeFileSync(
        board.path(1),
        JSON.stringify({
          id: 1,
          subject: "s",
          description: "",
          status: "pending",
          owner: null,
          blockedBy: [],
          blocks: [],
          worktree: null,
          createdAt: "",
          updatedAt: "",
          ...task,
        }),
      );
      for (const work of [() => board.list(), () => board.get(1)]) {
        const err = errorOf(work);
        expect(err, JSON.stringify(task)).toBeInstanceOf(BrokenStateError);
        expect(err.message).toMatch(message);
        oneSentence(err.message);
      }
      expect(board.create({ subject: "next" }).id).toBe(2); // one bad file does not stop new work
    }
  });
});
