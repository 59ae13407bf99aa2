// s13's exercises: rebuild the claim (claimTask under the board's lock: exactly one owner;
// claimNext: the first ready task it can get); extend it (the lead assigns a task by naming its
// owner). The behaviours are the curriculum's for s13, and tests/chapters/s13-agent-teams.test.ts
// runs the same ones against the chapter's own code.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tryLock } from "../../_shared/lock.ts";
import { say, use } from "../../_shared/scripted.ts";
import type { MessageParam, ScriptedTurn } from "../../_shared/types.ts";
import { TaskBoard, type Task } from "../../s10-task-system/agent.ts";
import type * as S13 from "../agent.ts";
import type { Team } from "../agent.ts";
import {
  change,
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S13;

const boardIn = (kit: CheckKit) => new TaskBoard(path.join(kit.workspace(), "tasks"));
const text = (m: MessageParam): string =>
  typeof m.content === "string"
    ? m.content
    : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
const describeTask = (t: Pick<Task, "status" | "owner">) =>
  `${t.status}, owner ${t.owner || "none"}`;

/** A team of the module whose teammates play `script`; `work(team)` runs with it, then it is
 *  closed. A teammate that crashed on a stub's "not started" makes the check not started. */
async function withTeam(
  module: M,
  kit: CheckKit,
  script: Record<string, ScriptedTurn[]>,
  work: (team: Team) => Promise<void>,
) {
  const env = kit.env({ lead: [say("ok")], ...script });
  const agent = module.createAgent(env, {
    pollMs: 2,
    idleWaitMs: 10,
    idleTimeoutMs: 20_000,
    settleTimeoutMs: 5_000,
  });
  try {
    await work(agent.team);
  } finally {
    await agent.close?.();
  }
  const crash = env.io.trace.find((e) => e.kind === "note" && e.text.includes(NOT_STARTED));
  if (crash?.kind === "note") throw new Error(crash.text.slice(crash.text.indexOf(NOT_STARTED)));
  const claims = env.io.trace.flatMap((e) =>
    e.kind === "event" && e.type === "task_claimed"
      ? [{ task: Number(e.data.task), owner: String(e.data.owner) }]
      : [],
  );
  return { env, claims };
}

/** The newest user turn (not a tool result) of each request a teammate sent. */
const instructions = (
  env: { requests: { agent: string; body: { messages: MessageParam[] } }[] },
  agent: string,
) =>
  env.requests
    .filter((r) => r.agent === agent)
    .map((r) =>
      text([...r.body.messages].reverse().find((m) => m.role === "user" && text(m).trim())!),
    );

/** claimTask's answer; a throw (other than a stub's "not started") is a failure that says so. */
function claim(module: M, board: TaskBoard, id: number, owner: string) {
  try {
    return module.claimTask(board, id, owner);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes(NOT_STARTED)) throw err;
    throw new CheckFailure("claim-threw", { task: id, owner, error: message });
  }
}

export const oneOwner: Check<M> = {
  id: "one-owner",
  run(module, kit) {
    const board = boardIn(kit);
    const task = board.create({ subject: "the one task" });
    const first = claim(module, board, task.id, "alice");
    expectThat(first?.owner === "alice", "claim-refused", {
      task: task.id,
      got: describeTask(board.get(task.id)),
    });
    const second = claim(module, board, task.id, "bob");
    const now = board.get(task.id);
    expectThat(second === null && now.owner === "alice", "claimed-twice", {
      task: task.id,
      got: describeTask(now),
    });
    expectThat(now.status === "in_progress", "claim-not-started", {
      task: task.id,
      got: now.status,
    });
  },
};

export const lockKeepsOut: Check<M> = {
  id: "lock-keeps-out",
  run(module, kit) {
    const board = boardIn(kit);
    const task = board.create({ subject: "being claimed" });
    // Another claimer holds the task's lock right now (another teammate, another process).
    const lock = tryLock(`${board.path(task.id)}.lock`)!;
    try {
      const got = claim(module, board, task.id, "alice");
      const now = board.get(task.id);
      expectThat(got === null && !now.owner, "claimed-under-lock", {
        task: task.id,
        got: describeTask(now),
      });
    } finally {
      lock.release();
    }
    const after = claim(module, board, task.id, "alice");
    expectThat(after?.owner === "alice", "claim-refused", {
      task: task.id,
      got: describeTask(board.get(task.id)),
    });
    expectThat(!existsSync(`${board.path(task.id)}.lock`), "lock-left", { task: task.id });
  },
};

export const neverBlockedOrOwned: Check<M> = {
  id: "never-blocked-or-owned",
  run(module, kit) {
    const board = boardIn(kit);
    const first = board.create({ subject: "first" });
    const blocked = board.create({ subject: "blocked", blockedBy: [first.id] });
    const owned = board.create({ subject: "bob's" });
    board.update(owned.id, { owner: "bob" });
    const done = board.create({ subject: "done" });
    board.update(done.id, { status: "in_progress" });
    board.update(done.id, { status: "completed" });
    for (const [what, id] of [
      ["blocked", blocked.id],
      ["owned by bob", owned.id],
      ["completed", done.id],
    ] as const) {
      const before = describeTask(board.get(id));
      const got = claim(module, board, id, "alice");
      const now = describeTask(board.get(id));
      expectThat(got === null && now === before, "claimed-unready", { task: id, what, got: now });
    }
  },
};

/** How a task on a generated board stands when an idle teammate scans it. */
type Spot = "ready" | "locked" | "owned" | "blocked" | "completed";
const scanArb = fc.record({
  spots: fc.array(
    fc.constantFrom<Spot>(
      ...([
        "ready",
        "ready",
        "ready",
        "locked",
        "locked",
        "owned",
        "blocked",
        "completed",
      ] as const),
    ),
    { minLength: 1, maxLength: 6 },
  ),
  /** One task file holds no task (a half-written file): the board cannot be read. */
  unreadable: fc.oneof(
    { weight: 4, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

/** claimNext, as the idle loop calls it (the blank is a method of Team). */
type Scanner = { claimNext(member: unknown): string | null };

/** The scan's rule on generated boards: the task claimed is the lowest-id ready task nobody else
 *  is claiming, claimed for the member itself (never the lead, nor anyone else), and no other
 *  task changes; no such task, nothing claimed; a board that cannot be read is no claim and no
 *  crash. claimNext is called straight, as the idle loop does, on a team nobody else works in. */
async function scanRule(module: M, kit: CheckKit) {
  await forAll(
    scanArb,
    async ({ spots, unreadable }) => {
      const env = kit.env({ lead: [say("ok")] });
      const agent = module.createAgent(env, { pollMs: 2, idleWaitMs: 10, settleTimeoutMs: 5_000 });
      const { board } = agent.team;
      const held: { release(): void }[] = [];
      try {
        const carols = board.create({ subject: "carol's work" });
        board.update(carols.id, { owner: "carol", status: "in_progress" });
        const ids = spots.map((spot, i) => {
          const t = board.create({
            subject: `task ${i + 1}`,
            blockedBy: spot === "blocked" ? [carols.id] : [],
          });
          if (spot === "owned") board.update(t.id, { owner: "carol" });
          if (spot === "completed") {
            board.update(t.id, { owner: "carol", status: "in_progress" });
            board.update(t.id, { status: "completed" });
          }
          if (spot === "locked") held.push(tryLock(`${board.path(t.id)}.lock`)!);
          return t.id;
        });
        const story = spots.map((spot, i) => `#${ids[i]} ${spot}`).join(", ");
        if (unreadable) writeFileSync(board.path(ids.at(-1)!), "{ half-writ");
        const files = () => readdirSync(board.dir).filter((f) => /^task_\d+\.json$/.test(f));
        const before = files().map((f) => [f, readFileSync(path.join(board.dir, f), "utf8")]);
        const member = {
          name: "alice",
          role: "dev",
          state: "idle",
          task: null as number | null,
          cwd: env.workspace,
          lane: null,
          messages: [],
          client: env.model,
          stopRequested: false,
          done: Promise.resolve(),
        };
        let got: string | null;
        try {
          got = (agent.team as unknown as Scanner).claimNext(member);
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err);
          if (error.includes(NOT_STARTED)) throw err;
          throw new CheckFailure(unreadable ? "scan-threw-unreadable" : "scan-threw", {
            board: story,
            error,
          });
        }
        const claimed = env.io.trace.flatMap((e) =>
          e.kind === "event" && e.type === "task_claimed" ? [Number(e.data.task)] : [],
        );
        const changed = before
          .filter(([f, text]) => readFileSync(path.join(board.dir, f), "utf8") !== text)
          .map(([f]) => f);
        if (unreadable) {
          expectThat(got === null && claimed.length === 0, "scan-claimed-unreadable", {
            board: story,
          });
          // The person learns why nothing was claimed: a note of alice's carries the board's error.
          let error = "";
          try {
            new TaskBoard(board.dir).list();
          } catch (err) {
            error = err instanceof Error ? err.message : String(err);
          }
          const noted = env.io.trace.some(
            (e) => e.kind === "note" && e.agent === "alice" && !!error && e.text.includes(error),
          );
          expectThat(noted, "scan-unreadable-unnoted", { board: story, error });
          return;
        }
        const expected = spots.findIndex((spot) => spot === "ready");
        if (expected < 0) {
          expectThat(got === null && changed.length === 0, "scan-claimed-none-ready", {
            board: story,
            got: claimed.map((id) => `#${id}`).join(", ") || changed.join(", "),
          });
          return;
        }
        const want = ids[expected];
        const now = board.get(want);
        const others = ids.filter(
          (id) => id !== want && changed.includes(path.basename(board.path(id))),
        );
        expectThat(
          typeof got === "string" &&
            claimed.length === 1 &&
            claimed[0] === want &&
            others.length === 0,
          "scan-wrong-task",
          {
            board: story,
            task: want,
            got: [...new Set([...claimed, ...others])].map((id) => `#${id}`).join(", ") || "none",
          },
        );
        expectThat(now.owner === "alice" && now.status === "in_progress", "scan-wrong-owner", {
          task: want,
          got: describeTask(now),
        });
      } finally {
        for (const lock of held) lock.release();
        await agent.close?.();
      }
    },
    { runs: 25 },
  );
}

export const skipsTakenTask: Check<M> = {
  id: "skips-taken-task",
  async run(module, kit) {
    const { claims } = await withTeam(
      module,
      kit,
      { alice: [say("hi"), say("did the free one"), say("did the other")] },
      async (team) => {
        const taken = team.board.create({ subject: "being claimed elsewhere" });
        const free = team.board.create({ subject: "free" });
        const lock = tryLock(`${team.board.path(taken.id)}.lock`)!;
        try {
          team.spawn("alice", "dev", "hi");
          const deadline = Date.now() + 2_000;
          const alice = () => team.members.get("alice");
          while (
            team.board.get(free.id).status === "pending" &&
            alice()?.state !== "shutdown" &&
            Date.now() < deadline
          )
            await new Promise((r) => setTimeout(r, 10));
        } finally {
          lock.release();
        }
        await team.waitUntilSettled();
      },
    );
    const got = claims.map((c) => `#${c.task}`).join(", ") || "none";
    expectThat(claims[0]?.task === 2, "did-not-skip", { got });
    await scanRule(module, kit);
  },
};

export const inboxFirst: Check<M> = {
  id: "inbox-first",
  async run(module, kit) {
    let team: Team | undefined;
    const { env } = await withTeam(
      module,
      kit,
      {
        alice: [
          () => {
            team!.send("lead", "alice", "Please read the logs first.");
            return say("hi");
          },
          say("read the logs"),
          say("did the task"),
        ],
      },
      async (t) => {
        team = t;
        team.board.create({ subject: "ready work" });
        team.spawn("alice", "dev", "hi");
        await team.waitUntilSettled();
      },
    );
    const turns = instructions(env, "alice");
    expectThat(turns[1]?.includes("Please read the logs first."), "board-before-inbox", {
      got: (turns[1] ?? "nothing").split("\n")[0],
    });
    expectThat(turns[2]?.startsWith("You claimed task #1"), "no-claim-after-mail", {
      got: (turns[2] ?? "nothing").split("\n")[0],
    });
  },
};

// ---- The claim's rule, tried on generated races (a property check) ----

/** How the task stands before the claim (named in the learner's words: `start-<state>`). */
type Start = "ready" | "owned" | "blocked" | "in_progress" | "completed";

/** A board whose reads (get, list, isReady) are counted; after read number `rivalAt` another
 *  claimer (bob) tries the same task the right way: under its lock, looking again, then
 *  updating. A claim that looked before its lock and not again under it lets bob in between and
 *  then writes over him; a claim that looks under its lock shuts him out. */
class RacedBoard extends TaskBoard {
  private reads = 0;
  private quiet = false;
  rival: { at: number; id: number; won: boolean } = { at: 0, id: 0, won: false };

  override get(id: number): Task {
    const task = super.get(id);
    this.read();
    return task;
  }
  override list(): Task[] {
    const tasks = super.list();
    this.read();
    return tasks;
  }
  override isReady(task: Task): boolean {
    const ready = super.isReady(task);
    this.read();
    return ready;
  }
  override update(...args: Parameters<TaskBoard["update"]>): Task {
    this.quiet = true; // update reads the board itself: those reads are not the claim's
    try {
      return super.update(...args);
    } finally {
      this.quiet = false;
    }
  }

  private read() {
    if (this.quiet || ++this.reads !== this.rival.at) return;
    const bob = new TaskBoard(this.dir); // another teammate's view of the same folder
    const lock = tryLock(`${bob.path(this.rival.id)}.lock`);
    if (!lock) return; // the claim under test holds it: bob gets nothing
    try {
      if (!bob.isReady(bob.get(this.rival.id))) return;
      bob.update(this.rival.id, { owner: "bob", status: "in_progress" });
      this.rival.won = true;
    } finally {
      lock.release();
    }
  }
}

const raceArb = fc.record({
  start: fc.constantFrom<Start>("ready", "ready", "owned", "blocked", "in_progress", "completed"),
  /** 0: nobody else tries; n: bob tries right after the claim's n-th read of the board. */
  rivalAt: fc.nat(4),
  /** Someone else holds the task's lock for the whole claim. */
  held: fc.boolean(),
});

export const claimRaces: Check<M> = {
  id: "claim-races",
  run(module, kit) {
    return forAll(
      raceArb,
      ({ start, rivalAt, held }) => {
        const board = new RacedBoard(path.join(kit.workspace(), "tasks"));
        const first = board.create({ subject: "first" });
        const task =
          start === "blocked"
            ? board.create({ subject: "the task", blockedBy: [first.id] })
            : board.create({ subject: "the task" });
        if (start === "owned" || start === "in_progress" || start === "completed")
          board.update(task.id, { owner: "carol" });
        if (start === "in_progress" || start === "completed")
          board.update(task.id, { status: "in_progress" });
        if (start === "completed") board.update(task.id, { status: "completed" });
        board.rival = { at: rivalAt, id: task.id, won: false };
        const lockPath = `${board.path(task.id)}.lock`;
        const holder = held ? tryLock(lockPath) : null;
        let got: Task | null;
        try {
          got = claim(module, board, task.id, "alice");
        } finally {
          holder?.release();
        }
        const now = new TaskBoard(board.dir).get(task.id);
        const values = {
          task: task.id,
          start: `@start-${start}`,
          read: rivalAt,
          got: describeTask(now),
        };
        expectThat(!(got && board.rival.won), "race-two-winners", values);
        if (got)
          expectThat(
            now.owner === "alice" && now.status === "in_progress",
            "claim-not-kept",
            values,
          );
        const free = start === "ready" && !held && !board.rival.won;
        if (held) expectThat(!got && now.owner !== "alice", "claimed-under-lock", values);
        else if (free) expectThat(got, "race-refused", values);
        else if (!board.rival.won) expectThat(!got, "race-claimed-unready", values);
        expectThat(!existsSync(lockPath), got ? "lock-left" : "lock-left-refused", values);
      },
      { runs: 40 },
    );
  },
};

// #region extend checks
export const takesAssignedTask: Check<M> = {
  id: "takes-assigned-task",
  async run(module, kit) {
    let ids = { mine: 0, bobs: 0 };
    const { claims } = await withTeam(
      module,
      kit,
      { alice: [say("hi"), say("did mine")] },
      async (team) => {
        const bobs = team.board.create({ subject: "for bob" });
        team.board.update(bobs.id, { owner: "bob" });
        const mine = team.board.create({ subject: "for alice" });
        team.board.update(mine.id, { owner: "alice" });
        ids = { mine: mine.id, bobs: bobs.id };
        team.spawn("alice", "dev", "hi");
        await team.waitUntilSettled();
        const [m, b] = [team.board.get(mine.id), team.board.get(bobs.id)];
        expectThat(m.status === "completed" && m.owner === "alice", "assigned-not-taken", {
          task: mine.id,
          got: describeTask(m),
        });
        expectThat(b.status === "pending" && b.owner === "bob", "took-someone-elses", {
          task: bobs.id,
          owner: "bob",
          claimer: "alice",
          got: describeTask(b),
        });
      },
    );
    const got = claims.map((c) => `#${c.task}`).join(", ") || "none";
    expectThat(claims.length === 1 && claims[0].task === ids.mine, "assigned-not-taken", {
      task: ids.mine,
      got: `claims: ${got}`,
    });
  },
};

export const assignedUnderLock: Check<M> = {
  id: "assigned-under-lock",
  run(module, kit) {
    const board = boardIn(kit);
    const task = board.create({ subject: "for alice" });
    board.update(task.id, { owner: "alice" });
    const bob = claim(module, board, task.id, "bob");
    expectThat(bob === null && board.get(task.id).owner === "alice", "took-someone-elses", {
      task: task.id,
      owner: "alice",
      claimer: "bob",
      got: describeTask(board.get(task.id)),
    });
    const alice = claim(module, board, task.id, "alice");
    const now = board.get(task.id);
    expectThat(alice !== null && now.status === "in_progress", "assigned-not-taken", {
      task: task.id,
      got: describeTask(now),
    });
  },
};
export const leadReadsMail: Check<M> = {
  id: "lead-reads-mail",
  async run(module, kit) {
    let team: Team | undefined;
    const env = kit.env({
      lead: [
        () => {
          team!.send("bob", "lead", "Found the bug in parse().");
          return use("bash", { command: "true" });
        },
        say("done"),
      ],
    });
    const agent = module.createAgent(env, { pollMs: 2, idleWaitMs: 10, settleTimeoutMs: 5_000 });
    team = agent.team;
    try {
      team.send("alice", "lead", "The tests pass now.");
      await agent.send("go");
    } finally {
      await agent.close?.();
    }
    const requests = env.requests.filter((r) => r.agent === "lead");
    const seen = (i: number) => (requests[i]?.body.messages ?? []).map(text).join("\n");
    for (const [i, mail] of [
      [0, "The tests pass now."],
      [1, "Found the bug in parse()."],
    ] as const) {
      const times = seen(i).split(mail).length - 1;
      expectThat(times >= 1, "mail-not-injected", { request: i + 1, mail });
      expectThat(seen(requests.length - 1).split(mail).length - 1 === 1, "mail-twice", {
        mail,
        times: seen(requests.length - 1).split(mail).length - 1,
      });
    }
    const left = team.bus.peek("lead").length;
    expectThat(left === 0, "mail-left", { left });
  },
};
// #endregion extend checks

export const exercises: Exercise<M>[] = [
  {
    id: "s13",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "claimTask",
        contract: [
          "Claim task `id` for `owner`: set it in_progress with that owner and return the updated task,",
          "or return null when it cannot be had. Exactly one claimer may win: take the task's lock",
          "(tryLock on `${board.path(id)}.lock`; null while someone else holds it: return null), and",
          "under the lock read the task again — it must still be ready (board.isReady) — before you",
          "update it. Release the lock whatever happens (a refusal under the lock too).",
        ].join("\n"),
      },
      {
        name: "claimNext",
        contract: [
          "The idle scan's second step (the inbox came first). Go through the ready tasks",
          "(readyTasks(this.board): pending, no owner, nothing blocking; lowest id first) and claim",
          "the first one you can get with claimTask; a task someone else got is skipped, not the end",
          "of the scan. Return this.assign(member, task) for the claimed task, or null if none. A",
          "board that cannot be read: note it, with the board's error (this.env.io.note), and return null.",
        ].join("\n"),
      },
    ],
    checks: [oneOwner, lockKeepsOut, neverBlockedOrOwned, claimRaces, skipsTakenTask, inboxFirst],
  },
  {
    id: "s13.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      claim: (reference) =>
        reference
          .replace(
            "export function claimTask(",
            `/** A task the lead assigned to \`owner\` by name (s13.1): pending, nothing blocking. */
export function assignedTo(task: Task, owner: string): boolean {
  return task.status === "pending" && task.owner === owner && task.blockedBy.length === 0;
}

export function claimTask(`,
          )
          .replace(
            "if (!board.isReady(board.get(id))) return null;",
            "const task = board.get(id);\n    if (!board.isReady(task) && !assignedTo(task, owner)) return null;",
          ),
      idle: (reference) =>
        reference.replace(
          "ready = readyTasks(this.board);",
          "const assigned = this.board.list().filter((t) => assignedTo(t, member.name));\n      ready = [...assigned, ...readyTasks(this.board)];",
        ),
    },
    checks: [takesAssignedTask, assignedUnderLock, oneOwner, neverBlockedOrOwned, claimRaces],
  },
  {
    id: "s13.3",
    kind: "extend",
    file: "agent.ts",
    solution: {
      loop: change(
        "      if (who.stopped?.()) return null;\n",
        `      if (who.stopped?.()) return null;
      // s13.3: the lead reads its unread mail before every call (acknowledged after its turn).
      if (who.name === LEAD) {
        const mail = this.post.read(LEAD);
        if (mail) messages.push({ role: "user", content: mail });
      }
`,
      ),
    },
    checks: [leadReadsMail, inboxFirst],
  },
];
