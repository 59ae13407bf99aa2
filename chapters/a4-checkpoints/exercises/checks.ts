// a4's exercises: rebuild the rewind (restore the files of a checkpoint, cut the conversation,
// undo either), and extend it to show what a code rewind would change and ask first. The checks
// drive the agent through its /rewind command, with the files of each "prompt" written by the
// check itself; tests/chapters/a4-checkpoints.test.ts runs the same behaviours against the
// appendix's own code.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";
import { say, use } from "../../_shared/scripted.ts";
import type { Agent } from "../../_shared/types.ts";
import type * as A4 from "../agent.ts";
import {
  change,
  expectThat,
  type Check,
  type CheckEnv,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof A4;

/** Every file and link in a folder but its `.git`: bytes, executable bit, link target. */
function treeOf(root: string): Record<string, string> {
  const tree: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel))) {
      const file = path.join(rel, name);
      if (file === ".git") continue;
      const full = path.join(root, file);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) tree[file] = `link:${readlinkSync(full)}`;
      else if (st.isDirectory()) walk(file);
      else tree[file] = `${st.mode & 0o100 ? "x" : "-"}:${readFileSync(full).toString("base64")}`;
    }
  };
  walk("");
  return tree;
}

/** Runs `act` watching every git command run on a shadow repository (one named by GIT_DIR) as
 *  it starts, and returns those that started while the workspace's lock (`<shadow>.lock/`, a
 *  folder with its holder's entry in it) was not held: two harnesses on one workspace share one
 *  index, so a restore's snapshot, diff and read-tree must not interleave with another's. */
async function gitOutsideTheLock(act: () => Promise<void>): Promise<string[]> {
  const outside: string[] = [];
  const original = childProcess.spawnSync;
  const watched = ((program: string, args?: readonly string[], options?: { env?: object }) => {
    const gitDir = (options?.env as Record<string, string> | undefined)?.GIT_DIR;
    if (gitDir) {
      let held = false;
      try {
        held = readdirSync(`${gitDir}.lock`).length > 0;
      } catch {
        // no lock folder: not held
      }
      const argv = [program, ...(args ?? [])];
      const git = argv.findIndex((a) => path.basename(a) === "git");
      let sub = git + 1;
      while (sub < argv.length && argv[sub].startsWith("-")) sub += argv[sub] === "-c" ? 2 : 1;
      if (!held) outside.push(`git ${argv[sub] ?? "?"}`);
    }
    return (original as (...a: unknown[]) => unknown)(program, args, options);
  }) as typeof original;
  childProcess.spawnSync = watched;
  syncBuiltinESMExports();
  try {
    await act();
  } finally {
    childProcess.spawnSync = original;
    syncBuiltinESMExports();
  }
  return outside;
}

/** The files of a tree, for a message: their names, sorted. */
const names = (tree: Record<string, string>) =>
  Object.keys(tree)
    .sort()
    .map((n) => JSON.stringify(n))
    .join(", ") || "(none)";
const same = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** Makes the workspace hold exactly `files`, as a prompt's tool calls would have left it. */
function become(root: string, files: Record<string, { text: string; exec: boolean }>) {
  for (const name of readdirSync(root))
    if (name !== ".git") rmSync(path.join(root, name), { recursive: true, force: true });
  for (const [file, { text, exec }] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
    chmodSync(path.join(root, file), exec ? 0o755 : 0o644);
  }
}

const run = async (agent: Agent, args: string) =>
  String(await agent.commands!["/rewind"].run(args));

/** How many files differ between two trees (a path in one only, or with other bytes or mode). */
const differing = (a: Record<string, string>, b: Record<string, string>) =>
  new Set([...Object.keys(a), ...Object.keys(b)].filter((f) => a[f] !== b[f])).size;

/** `/rewind <args>`, and the rewind events it emitted: the player's state panel and a session's
 *  log read them, so each rewind and each undo emits exactly one, saying what it did. */
async function rewound(env: CheckEnv, agent: Agent, args: string) {
  const events = () =>
    env.io.trace.flatMap((s) =>
      s.kind === "event" && s.type === "rewind" ? [JSON.stringify(s.data)] : [],
    );
  const before = events().length;
  const report = await run(agent, args);
  return { report, events: events().slice(before) };
}

/** That `/rewind <args>` emitted one event with these data. */
function expectEvent(
  args: string,
  events: string[],
  data: { to: number; restore: string; undo: boolean; files: number; messages: number },
) {
  const expected = JSON.stringify(data);
  expectThat(events.length === 1 && events[0] === expected, "event-wrong", {
    args,
    got: events.join(", ") || "no event",
    expected,
  });
}
const history = (agent: Agent) => JSON.stringify(agent.messages);
/** Enough "yes" answers for any question an extended rewind asks. */
const YES = Array.from({ length: 20 }, () => "yes");

/** Names a model might give files: spaces, a newline, a leading dash, non-ASCII, nesting, and
 *  `conf`, a file in one state and a folder in another. */
const NAMES = [
  "a.txt",
  "src/main.ts",
  "with space.md",
  "-rf",
  "new\nline",
  "ünï.txt",
  "conf",
  "conf/x",
];
const state = fc
  .dictionary(
    fc.constantFrom(...NAMES),
    fc.record({ text: fc.string({ maxLength: 12 }), exec: fc.boolean() }),
    { maxKeys: 5 },
  )
  .map((files) => {
    if (files.conf) delete files["conf/x"];
    return files;
  });

/** Three prompts, the workspace set to states[0..2] before each and to states[3] after. */
type Files = Record<string, { text: string; exec: boolean }>;

async function threePrompts(
  module: M,
  kit: CheckKit,
  states: Files[],
  prompts = ["first", "second", "third"],
) {
  const env = kit.env([say("one"), say("two"), say("three")], { answers: YES });
  const agent = module.createAgent(env);
  const seen: Record<string, string>[] = [];
  const before: string[] = [];
  for (const [i, prompt] of prompts.entries()) {
    become(env.workspace, states[i]);
    seen.push(treeOf(env.workspace));
    before.push(history(agent));
    await agent.send(prompt);
  }
  become(env.workspace, states[3]);
  return { env, agent, seen, before, last: treeOf(env.workspace), full: history(agent) };
}

/** After three prompts, a code rewind to prompt k puts back its files exactly, on `runs`
 *  generated workspaces (a4.2 needs fewer: there it shows the question broke nothing). */
const codeRewindRestoring = (runs: number): Check<M> => ({
  id: "code-rewind-restores",
  limitMs: 90_000,
  async run(module, kit) {
    await forAll(
      fc.tuple(fc.array(state, { minLength: 4, maxLength: 4 }), fc.integer({ min: 1, max: 3 })),
      async ([states, k]) => {
        const { env, agent, seen, last, full } = await threePrompts(module, kit, states);
        const { report, events } = await rewound(env, agent, `${k} code`);
        const now = treeOf(env.workspace);
        expectThat(same(now, seen[k - 1]), "files-differ", {
          k,
          got: names(now),
          expected: names(seen[k - 1]),
        });
        // The report's label says which way each file went: removed (it was not there at the
        // checkpoint), back (it was deleted since), changed. describeCode prints `how path`.
        const labels: [string, string][] = [
          ...Object.keys(states[3])
            .filter((f) => !(f in seen[k - 1]))
            .map((f): [string, string] => [f, "removed"]),
          ...Object.keys(seen[k - 1])
            .filter((f) => !(f in states[3]))
            .map((f): [string, string] => [f, "back"]),
        ];
        for (const [file, how] of labels)
          expectThat(
            `${report}\n`.includes(`    ${how.padEnd(8)} ${file}\n`),
            "change-mislabelled",
            {
              k,
              file: JSON.stringify(file),
              how,
              got: report,
            },
          );
        expectThat(history(agent) === full, "history-touched", { k });
        expectEvent(`${k} code`, events, {
          to: k,
          restore: "code",
          undo: false,
          files: differing(last, seen[k - 1]),
          messages: agent.messages.length,
        });
      },
      { runs },
    );
  },
});
export const codeRewindRestores = codeRewindRestoring(3);

export const undoRestores: Check<M> = {
  id: "undo-restores",
  limitMs: 60_000,
  async run(module, kit) {
    const states: Files[] = [
      {},
      { "a.txt": { text: "one", exec: false } },
      { "a.txt": { text: "two", exec: true }, "conf/x": { text: "x", exec: false } },
      { conf: { text: "now a file", exec: false }, "b.txt": { text: "b", exec: false } },
    ];
    const { env, agent, seen, before, last, full } = await threePrompts(module, kit, states);
    // The rewind and its undo each restore files: under the lock, like every use of the shadow.
    const outside = await gitOutsideTheLock(async () => {
      const rewind = await rewound(env, agent, "2 both");
      expectEvent("2 both", rewind.events, {
        to: 2,
        restore: "both",
        undo: false,
        files: differing(last, seen[1]),
        messages: JSON.parse(before[1]).length,
      });
      const undo = await rewound(env, agent, "undo");
      expectEvent("undo", undo.events, {
        to: 2,
        restore: "both",
        undo: true,
        files: differing(last, seen[1]),
        messages: JSON.parse(full).length,
      });
      // The person is told what happened, in any words, naming the checkpoint.
      expectThat(undo.report.includes("#2"), "undo-report-silent", { got: undo.report });
    });
    expectThat(outside.length === 0, "git-outside-lock", {
      commands: [...new Set(outside)].join(", "),
    });
    const now = treeOf(env.workspace);
    expectThat(same(now, last), "undo-files-differ", { got: names(now), expected: names(last) });
    expectThat(history(agent) === full, "undo-history-differs", {
      got: agent.messages.length,
      expected: JSON.parse(full).length,
    });
    // An undo is a rewind too: undoing it puts back the files and history the rewind left.
    let refused: string | undefined;
    try {
      await run(agent, "undo");
    } catch (err) {
      refused = (err as Error).message;
    }
    const again = treeOf(env.workspace);
    expectThat(
      refused === undefined && same(again, seen[1]) && history(agent) === before[1],
      "undo-not-undoable",
      { got: refused ?? names(again), expected: names(seen[1]) },
    );
  },
};

export const conversationCut: Check<M> = {
  id: "conversation-cut",
  limitMs: 60_000,
  async run(module, kit) {
    const states: Files[] = [
      {},
      { "a.txt": { text: "1", exec: false } },
      {},
      { "b.txt": { text: "3", exec: false } },
    ];
    // Three prompts with the same words: the cut is at prompt k's own message, not at the first
    // message with its text.
    const { env, agent, before, last, full } = await threePrompts(module, kit, states, [
      "again",
      "again",
      "again",
    ]);
    for (const k of [3, 2, 1]) {
      const { events } = await rewound(env, agent, `${k} conversation`);
      expectEvent(`${k} conversation`, events, {
        to: k,
        restore: "conversation",
        undo: false,
        files: 0,
        messages: JSON.parse(before[k - 1]).length,
      });
      expectThat(history(agent) === before[k - 1], "cut-wrong", {
        k,
        got: agent.messages.length,
        expected: JSON.parse(before[k - 1]).length,
      });
      expectThat(same(treeOf(env.workspace), last), "files-moved", { k });
      const undo = await rewound(env, agent, "undo");
      expectEvent("undo", undo.events, {
        to: k,
        restore: "conversation",
        undo: true,
        files: 0,
        messages: JSON.parse(full).length,
      });
      expectThat(history(agent) === full, "undo-history-differs", {
        got: agent.messages.length,
        expected: JSON.parse(full).length,
      });
    }
  },
};

export const badInputChangesNothing: Check<M> = {
  id: "bad-input-changes-nothing",
  limitMs: 60_000,
  async run(module, kit) {
    const env = kit.env([say("one"), say("two"), say("again")], { answers: YES });
    const agent = module.createAgent(env);
    writeFileSync(path.join(env.workspace, "a.txt"), "before");
    await agent.send("first");
    writeFileSync(path.join(env.workspace, "a.txt"), "after");
    await agent.send("second");
    await run(agent, "2 conversation");
    await agent.send("a new second"); // prompt #2 is no longer in the history
    // The files differ from checkpoint #2's, so a restore before the refusal would show.
    writeFileSync(path.join(env.workspace, "a.txt"), "later");
    const files = treeOf(env.workspace);
    const messages = history(agent);
    // "undo" too: the rewind was before the last prompt, so there is nothing to undo now.
    for (const args of ["9 code", "2 conversation", "2 both", "undo"]) {
      let threw: string | undefined;
      let crashed = false;
      try {
        await run(agent, args);
      } catch (err) {
        threw = (err as Error).message;
        if (threw.startsWith("not started:")) throw err;
        // A TypeError or RangeError is the code falling over, not a refusal that says why.
        crashed = err instanceof TypeError || err instanceof RangeError;
      }
      expectThat(threw !== undefined, "no-refusal", { args });
      expectThat(!crashed, "crashed-on-bad-input", { args, error: threw ?? "" });
      expectThat(
        same(treeOf(env.workspace), files) && history(agent) === messages,
        "changed-on-refusal",
        {
          args,
        },
      );
    }
    // Prompt #2 is gone from the conversation, not its checkpoint: its code can still go back.
    let threw: string | undefined;
    try {
      await run(agent, "2 code");
    } catch (err) {
      threw = (err as Error).message;
    }
    const now = readFileSync(path.join(env.workspace, "a.txt"), "utf8");
    expectThat(threw === undefined && now === "after", "code-of-cut-prompt-refused", {
      got: threw ?? JSON.stringify(now),
    });
  },
};

export const namesWhatItCannotUndo: Check<M> = {
  id: "names-what-it-cannot-undo",
  limitMs: 60_000,
  async run(module, kit) {
    // One command per prompt; a code rewind to checkpoint k names exactly those run at or after
    // it (the ones before are in its snapshot already).
    const commands = [
      "echo step-one",
      "curl -X POST https://example.invalid/deploy || true",
      "echo step-three",
    ];
    const env = kit.env(
      commands.flatMap((command, i) => [use("bash", { command }), say(`done ${i + 1}`)]),
      { answers: YES },
    );
    const agent = module.createAgent(env);
    for (const prompt of ["first", "second", "third"]) await agent.send(prompt);
    // The first checkpoint (every command since it) and the last (none before it named).
    for (const k of [1, 3]) {
      const report = await run(agent, `${k} code`);
      for (const [i, command] of commands.entries()) {
        if (i + 1 >= k)
          expectThat(report.includes(command), "command-unnamed", { k, command, got: report });
        else
          expectThat(!report.includes(command), "command-named-before", {
            k,
            command,
            got: report,
          });
      }
      await run(agent, "undo");
    }
  },
};

// ---- a4.2: show what a code rewind would change, and ask first ----

/** Two prompts (a.txt changed, b.txt new); then `rewind(args)` runs `/rewind <args>`, answered
 *  with the next of `answers`, and returns the questions that rewind asked. */
async function twoPrompts(module: M, kit: CheckKit, answers: string[]) {
  const env = kit.env([say("one"), say("two")], { answers });
  const agent = module.createAgent(env);
  writeFileSync(path.join(env.workspace, "a.txt"), "first");
  await agent.send("first");
  writeFileSync(path.join(env.workspace, "a.txt"), "second");
  writeFileSync(path.join(env.workspace, "b.txt"), "new");
  await agent.send("second");
  const questions = () =>
    env.io.trace.flatMap((s) =>
      s.kind === "note" && s.text.includes("→ scripted answer") ? [s.text] : [],
    );
  const rewind = async (args: string) => {
    const before = questions().length;
    await run(agent, args);
    return questions().slice(before);
  };
  return { env, agent, files: treeOf(env.workspace), messages: history(agent), rewind };
}

export const asksBeforeCodeRewind: Check<M> = {
  id: "asks-before-code-rewind",
  limitMs: 30_000,
  async run(module, kit) {
    // Every rewind that would rewrite files asks (`1` alone is code and conversation), and
    // only "yes" rewinds: "no", an empty or an unknown answer changes nothing — so the same
    // rewind, asked again, asks again.
    const answers = ["no", "", "maybe"];
    for (const args of ["1 code", "1 both", "1"]) {
      const { env, agent, files, messages, rewind } = await twoPrompts(module, kit, answers);
      for (const answer of answers) {
        const questions = await rewind(args);
        expectThat(questions.length === 1, "not-asked", { args, got: questions.length });
        expectThat(
          questions[0].includes("a.txt") && questions[0].includes("b.txt"),
          "question-unnamed-files",
          { got: questions[0] },
        );
        expectThat(
          same(treeOf(env.workspace), files) && history(agent) === messages,
          "changed-after-no",
          { args, answer: JSON.stringify(answer) },
        );
      }
    }
  },
};

export const rewindsAfterYes: Check<M> = {
  id: "rewinds-after-yes",
  limitMs: 30_000,
  async run(module, kit) {
    const { env, rewind } = await twoPrompts(module, kit, ["yes"]);
    await rewind("1 code");
    const now = treeOf(env.workspace);
    expectThat(
      Object.keys(now).join() === "a.txt" &&
        readFileSync(path.join(env.workspace, "a.txt"), "utf8") === "first",
      "not-restored-after-yes",
      { got: names(now) },
    );
  },
};

/** a4.2's answer: a preview of the changes (a snapshot of now, compared with the checkpoint), and
 *  the question before a code rewind; "no" changes nothing. */
const askFirstSolution = {
  shadow: change(
    "/** What a snapshot leaves out:",
    `/** What a code rewind to \`commit\` would change, without changing anything. */
export function preview(shadow: Shadow, commit: string): FileChange[] {
  return underLock(shadow, () =>
    changesBetween(shadow, takeSnapshot(shadow, "before a preview").commit, commit),
  );
}

/** What a snapshot leaves out:`,
  ),
  rewind: (reference: string) =>
    change(
      "  rewind(id: number, target: RewindTarget): string {",
      "  async rewind(id: number, target: RewindTarget): Promise<string> {",
    )(reference).replace(
      "    const record: UndoRecord = { checkpoint: id, target };\n",
      `    if (target !== "conversation") {
      const changes = preview(this.shadow, checkpoint.commit);
      const list = changes.map((c) => \`\${c.path} (\${c.how})\`).join(", ") || "nothing";
      const answer = await this.env.ask(
        \`Rewind the code to checkpoint #\${id}? It would change \${changes.length} files: \${list}\`,
        ["yes", "no"],
      );
      if (answer !== "yes") return "Nothing changed: the rewind was not confirmed.";
    }
    const record: UndoRecord = { checkpoint: id, target };
`,
    ),
};

export const exercises: Exercise<M>[] = [
  {
    id: "a4",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "restore",
        contract: [
          "Puts the workspace's files back as `commit` has them; returns { before, changes }.",
          "First a snapshot of now (takeSnapshot: the undo's commit, and git's index = the workspace),",
          "then changesBetween(shadow, before, commit), then git read-tree -u --reset <commit>,",
          "all under underLock(shadow, …).",
        ].join("\n"),
      },
      {
        name: "rewind",
        contract: [
          "Goes back to checkpoint `id`: code (restore its commit), conversation (cut the history",
          "just before its prompt's message), or both. Unknown id, or a conversation rewind to a",
          "prompt the history no longer holds: throw, changing nothing. Remembers the undo record",
          "(the commit before, the whole history before), emits one rewind event { to: id, restore:",
          "target, undo: false, files: how many files it changed, messages: the history's length",
          "after }, returns the report (describeCode names the files and the commands run since).",
        ].join("\n"),
      },
      {
        name: "undo",
        contract: [
          "Undoes the last rewind: restore record.code, put back record.history; no record: throw.",
          "Its own record is the state before the undo, so an undo can be undone. Emits one rewind",
          "event like the rewind's, with undo: true (files and messages: what the undo did), and",
          "returns a report for the person that names the checkpoint (#id).",
        ].join("\n"),
      },
    ],
    checks: [
      codeRewindRestores,
      undoRestores,
      conversationCut,
      badInputChangesNothing,
      namesWhatItCannotUndo,
    ],
  },
  {
    id: "a4.2",
    kind: "extend",
    file: "agent.ts",
    solution: askFirstSolution,
    checks: [asksBeforeCodeRewind, rewindsAfterYes, codeRewindRestoring(2), conversationCut],
  },
];
