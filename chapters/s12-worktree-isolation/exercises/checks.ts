// s12's exercises: rebuild the lane binding (which task may get a lane, the task bound to its lane
// when the lane is made, unbound, and completed if asked, when it is removed). The behaviours are
// the curriculum's for s12, and tests/chapters/s12-worktree-isolation.test.ts runs the same ones
// against the chapter's own code. Every check works in a temporary git repository of its own.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stateDirFor } from "../../_shared/paths.ts";
import { say, use } from "../../_shared/scripted.ts";
import { TaskBoard } from "../../s10-task-system/agent.ts";
import type * as S12 from "../agent.ts";
import type { WorktreeManager } from "../agent.ts";
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

type M = typeof S12;

/** A fresh workspace with a task board and the module's lane manager on it. */
function setup(module: M, kit: CheckKit) {
  const ws = kit.workspace();
  const board = new TaskBoard(path.join(stateDirFor(ws), "tasks"));
  return { ws, board, lanes: new module.WorktreeManager(ws, { board }) };
}

const kinds = (lanes: WorktreeManager, name: string) =>
  lanes
    .events()
    .filter((e) => e.worktree === name)
    .map((e) => e.event);
const shown = (list: string[]) => list.join(", ") || "none";

/** The lane's task on disk: bound to `lane` (or to none) and in `status`. */
function expectTask(
  board: TaskBoard,
  id: number,
  expected: { worktree: string | null; status: string },
) {
  const task = board.get(id);
  expectThat(task.worktree === expected.worktree, "wrong-lane", {
    task: id,
    got: task.worktree ?? "none",
    expected: expected.worktree ?? "none",
  });
  expectThat(task.status === expected.status, "wrong-status", {
    task: id,
    got: task.status,
    expected: expected.status,
  });
}

export const createBindsTask: Check<M> = {
  id: "create-binds-task",
  limitMs: 20_000,
  async run(module, kit) {
    const env = kit.env([
      use("task_create", { subject: "Build the login page" }),
      use("worktree_create", { name: "login", task_id: 1 }),
      say("done"),
    ]);
    await module.createAgent(env).send("go");
    const results = env.io.trace.flatMap((e) =>
      e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
    );
    const stub = results.find((r) => r.output.includes(NOT_STARTED));
    if (stub) throw new Error(stub.output.slice(stub.output.indexOf(NOT_STARTED)));
    const created = results[1];
    expectThat(created && !created.isError, "create-refused", {
      got: created?.output ?? "nothing",
    });
    const folder = path.join(env.workspace, ".worktrees", "login");
    expectThat(existsSync(path.join(folder, ".git")), "no-checkout", { path: ".worktrees/login" });
    const branch = execFileSync("git", ["branch", "--show-current"], {
      cwd: folder,
      encoding: "utf8",
    }).trim();
    expectThat(branch === "wt/login", "wrong-branch", { got: branch || "none" });
    const lanes = new module.WorktreeManager(env.workspace, { stateDir: env.stateDir });
    const lane = lanes.list().find((l) => l.name === "login");
    expectThat(lane?.taskId === 1, "index-no-task", { got: String(lane?.taskId ?? "no entry") });
    const board = new TaskBoard(path.join(env.stateDir, "tasks"));
    expectTask(board, 1, { worktree: "login", status: "in_progress" });
    const events = kinds(lanes, "login");
    expectThat(events.join() === "worktree_create,task_bound", "bind-events", {
      got: shown(events),
    });
  },
};

export const refusesUnbindable: Check<M> = {
  id: "refuses-unbindable",
  limitMs: 30_000,
  async run(module, kit) {
    const { board, lanes } = setup(module, kit);
    const done = board.create({ subject: "done" });
    board.update(done.id, { status: "in_progress" });
    board.update(done.id, { status: "completed" });
    const bound = board.create({ subject: "bound" });
    const waits = board.create({ subject: "waits", blockedBy: [bound.id] });
    lanes.create("first", bound.id);
    const tries: [lane: string, task: number, why: string][] = [
      // Each reason is a message of the words file ("@…"), said in the learner's language.
      ["done", done.id, "@why-completed"],
      ["waits", waits.id, `@why-blocked|#${bound.id}`],
      ["again", bound.id, "@why-bound|first"],
      ["ghost", 99, "@why-missing"],
    ];
    for (const [name, task, why] of tries) {
      const refused = refusal(() => lanes.create(name, task));
      expectThat(refused !== undefined, "bound-anyway", { task, why });
      const left = existsSync(lanes.path(name)) || lanes.list().some((l) => l.name === name);
      expectThat(!left, "left-behind", { lane: name, task, why });
    }
    expectTask(board, waits.id, { worktree: null, status: "pending" });
    expectTask(board, bound.id, { worktree: "first", status: "in_progress" });
    await bindRule(module, kit);
  },
};

// ---- Which task may get a lane, tried on generated boards (a property check) ----

type State = "pending" | "in_progress" | "owned" | "completed" | "bound" | "blocked" | "missing";
/** Lanes asked for tasks in generated states, one after another on one board: a task gets its
 *  lane exactly when it exists, is not completed, has no lane and waits for nothing (whoever
 *  owns it, whether it started); then it is bound and in progress; a refusal leaves nothing. */
async function bindRule(module: M, kit: CheckKit) {
  await forAll(
    fc.array(
      fc.constantFrom<State>(
        "pending",
        "in_progress",
        "owned",
        "completed",
        "bound",
        "blocked",
        "missing",
      ),
      { minLength: 1, maxLength: 3 },
    ),
    (states) => {
      const { board, lanes } = setup(module, kit);
      const blocker = board.create({ subject: "blocker" });
      const first = board.create({ subject: "already in a lane" });
      lanes.create("first", first.id);
      states.forEach((state, i) => {
        const lane = `lane${i + 1}`;
        let id = 99;
        if (state === "bound") id = first.id;
        else if (state !== "missing") {
          const task = board.create({
            subject: `task ${i + 1}`,
            blockedBy: state === "blocked" ? [blocker.id] : [],
          });
          id = task.id;
          if (state === "owned") board.update(id, { owner: "carol" });
          if (state === "in_progress" || state === "completed")
            board.update(id, { status: "in_progress" });
          if (state === "completed") board.update(id, { status: "completed" });
        }
        const bindable = ["pending", "in_progress", "owned"].includes(state);
        const refused = refusal(() => lanes.create(lane, id));
        const values = { task: id, state: `@state-${state}`, lane };
        if (!bindable) {
          expectThat(refused !== undefined, "rule-bound-anyway", values);
          const left = existsSync(lanes.path(lane)) || lanes.list().some((l) => l.name === lane);
          expectThat(!left, "rule-left-behind", values);
          return;
        }
        expectThat(refused === undefined, "rule-refused", { ...values, error: refused ?? "" });
        const task = board.get(id);
        expectThat(task.worktree === lane && task.status === "in_progress", "rule-not-bound", {
          ...values,
          got: `${task.status}, lane ${task.worktree ?? "none"}`,
        });
      });
    },
    { runs: 5 },
  );
}

export const removeCompletesTask: Check<M> = {
  id: "remove-completes-task",
  limitMs: 20_000,
  run(module, kit) {
    const { board, lanes } = setup(module, kit);
    const task = board.create({ subject: "Fix the parser" });
    const next = board.create({ subject: "Ship it", blockedBy: [task.id] });
    lanes.create("parser", task.id);
    lanes.remove("parser", { completeTask: true });
    expectTask(board, task.id, { worktree: null, status: "completed" });
    const waiting = board.get(next.id).blockedBy;
    expectThat(waiting.length === 0, "dependant-waits", { task: next.id, done: task.id });
    const events = kinds(lanes, "parser");
    expectThat(events.includes("task_completed"), "no-completed-event", { got: shown(events) });
    expectThat(
      events.indexOf("task_completed") < events.indexOf("worktree_remove"),
      "completed-after-remove",
      { got: shown(events) },
    );
  },
};

export const removeUnbinds: Check<M> = {
  id: "remove-unbinds",
  limitMs: 20_000,
  run(module, kit) {
    const { board, lanes } = setup(module, kit);
    const task = board.create({ subject: "Try an idea" });
    lanes.create("idea", task.id);
    lanes.remove("idea");
    expectTask(board, task.id, { worktree: null, status: "in_progress" });
    const events = kinds(lanes, "idea");
    expectThat(!events.includes("task_completed"), "completed-unasked", { got: shown(events) });
    // The task is free again: a new lane may take it.
    const refused = refusal(() => lanes.create("idea-2", task.id));
    expectThat(refused === undefined, "rebind-refused", { task: task.id, got: refused ?? "" });
  },
};

// #region extend checks
type Result = { output: string; isError: boolean };

/** Plays a script in a workspace holding `files` (committed by the lane manager's first commit). */
async function playIn(
  module: M,
  kit: CheckKit,
  files: Record<string, string>,
  script: ReturnType<typeof use>[],
) {
  const tools = module.TOOLS.map((t) => t.name);
  expectThat(tools.includes("worktree_merge"), "no-merge-tool", { tools: tools.join(", ") });
  const ws = kit.workspace();
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(ws, name), text);
  const env = kit.env([...script, say("done")], { workspace: ws });
  await module.createAgent(env).send("go");
  const results: Result[] = env.io.trace.flatMap((e) =>
    e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
  );
  return { ws, results };
}

const commitIn = (lane: string, file: string, text: string) =>
  use("worktree_run", {
    name: lane,
    command: `printf '${text}\\n' > ${file} && git add ${file} && git commit -qm '${lane}: ${file}'`,
  });
const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const show = (r: Result | undefined) => (r ? r.output : "nothing");

export const mergeBringsWork: Check<M> = {
  id: "merge-brings-work",
  limitMs: 30_000,
  async run(module, kit) {
    const { ws, results } = await playIn(module, kit, {}, [
      use("worktree_create", { name: "greet" }),
      commitIn("greet", "greet.txt", "hi"),
      use("worktree_merge", { name: "greet" }),
    ]);
    const [, commit, merge] = results;
    expectThat(commit && !commit.isError, "setup-failed", { got: show(commit) });
    expectThat(merge && !merge.isError, "merge-refused", { got: show(merge) });
    const file = path.join(ws, "greet.txt");
    expectThat(existsSync(file) && readFileSync(file, "utf8") === "hi\n", "not-merged", {
      branch: gitIn(ws, "branch", "--show-current"),
    });
  },
};

export const mergeRefusesDirty: Check<M> = {
  id: "merge-refuses-dirty",
  limitMs: 30_000,
  async run(module, kit) {
    const { ws, results } = await playIn(module, kit, { "notes.txt": "notes\n" }, [
      use("worktree_create", { name: "greet" }),
      commitIn("greet", "greet.txt", "hi"),
      use("bash", { command: "echo 'half done' >> notes.txt" }),
      use("worktree_merge", { name: "greet" }),
    ]);
    const merge = results[3];
    expectThat(merge?.isError, "merged-dirty", { got: show(merge) });
    expectThat(!existsSync(path.join(ws, "greet.txt")), "merged-dirty", { got: show(merge) });
  },
};

export const mergeConflictAborts: Check<M> = {
  id: "merge-conflict-aborts",
  limitMs: 30_000,
  async run(module, kit) {
    const { ws, results } = await playIn(module, kit, { "shared.txt": "one line\n" }, [
      use("worktree_create", { name: "a" }),
      use("worktree_create", { name: "b" }),
      commitIn("a", "shared.txt", "from a"),
      commitIn("b", "shared.txt", "from b"),
      use("worktree_merge", { name: "a" }),
      use("worktree_merge", { name: "b" }),
    ]);
    const [first, second] = results.slice(4);
    expectThat(first && !first.isError, "merge-refused", { got: show(first) });
    expectThat(second?.isError, "conflict-not-error", { got: show(second) });
    expectThat(second.output.includes("shared.txt"), "conflict-unnamed", { got: second.output });
    const status = gitIn(ws, "status", "--porcelain");
    const midMerge = existsSync(path.join(ws, ".git", "MERGE_HEAD"));
    expectThat(!midMerge && status === "", "not-aborted", { got: status || "a merge in progress" });
    const text = readFileSync(path.join(ws, "shared.txt"), "utf8");
    expectThat(text === "from a\n", "not-aborted", { got: JSON.stringify(text) });
  },
};
// #endregion extend checks

export const exercises: Exercise<M>[] = [
  {
    id: "s12",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "checkBindable",
        contract: [
          "Called by create() before anything is made, so a refusal leaves nothing behind.",
          "Throw (with a sentence saying why) unless this.board holds the task (board.get throws",
          "for a missing one) and the task could start in a lane now: not completed, not bound to",
          "a lane already (task.worktree), and blocked by nothing.",
        ].join("\n"),
      },
      {
        name: "bindTask",
        contract: [
          "Called by create() once the lane's folder, branch and index entry exist.",
          "Record the binding on the task's side: its worktree becomes the lane's name and it",
          "starts (in_progress), in one board update; then log the event task_bound ({ task }).",
        ].join("\n"),
      },
      {
        name: "releaseTask",
        contract: [
          "Called by remove() before the lane goes (if the task cannot change, the lane stays).",
          "A lane with no task, or a manager with no board: nothing to do. Otherwise unbind the",
          "task (worktree null) and, only when completeTask is true, complete it in the same",
          "update, then log task_completed ({ task }). Without completeTask its status stays.",
        ].join("\n"),
      },
    ],
    checks: [createBindsTask, refusesUnbindable, removeCompletesTask, removeUnbinds],
  },
  {
    id: "s12.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      run: change(
        "  // #endregion run",
        `
  /** Merges wt/<name> into the workspace's current branch. Refused while the workspace has
   *  uncommitted changes; a conflict is undone (git merge --abort) and its files named. */
  merge(name: string): string {
    const lane = this.get(name);
    const dirty = git(this, "status", "--porcelain");
    if (dirty) {
      const count = dirty.split("\\n").length;
      throw new Error(
        \`the workspace has \${count} uncommitted change(s): commit them before merging \${lane.branch}\`,
      );
    }
    try {
      git(this, "merge", "--no-edit", "-q", lane.branch);
    } catch (err) {
      const conflicts = git(this, "diff", "--name-only", "--diff-filter=U");
      if (!conflicts) throw err;
      git(this, "merge", "--abort");
      throw new Error(
        \`merging \${lane.branch} conflicts in \${conflicts.split("\\n").join(", ")}: the merge was aborted, nothing changed\`,
      );
    }
    return \`Merged \${lane.branch} into \${git(this, "branch", "--show-current")}\`;
  }
  // #endregion run`,
      ),
      tools: (reference) =>
        change(
          "];\n\nexport function worktreeHandlers",
          `  {
    name: "worktree_merge",
    description:
      "Merge a lane's branch wt/<name> into the workspace's current branch. Refused while the " +
      "workspace has uncommitted changes; on a conflict the merge is aborted and the files named.",
    input_schema: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
    },
  },
];

export function worktreeHandlers`,
        )(
          change(
            "    worktree_remove({ name, force, complete_task }) {",
            `    worktree_merge({ name }) {
      return lanes.merge(String(name ?? ""));
    },
    worktree_remove({ name, force, complete_task }) {`,
          )(reference),
        ),
    },
    checks: [mergeBringsWork, mergeRefusesDirty, mergeConflictAborts],
  },
];
