/**
 * a4 · Checkpoints and rewind
 *
 * An agent that changes files is only as safe to let loose as its changes are cheap to undo. s02's
 * agent writes, edits and runs commands, and nothing remembers what the workspace looked like
 * before: a prompt that goes wrong is undone by hand, if at all. So, as Gemini CLI does, every
 * prompt begins with a checkpoint:
 *
 *   before each prompt        the workspace's files are snapshotted into a shadow repository, a
 *                             git repository of the harness's own in the state folder
 *                             (<state>/checkpoints/shadow.git), with the workspace as its work tree
 *   /rewind                   lists the checkpoints, one per prompt
 *   /rewind <n> code          puts every file back as it was before prompt n: changed ones, new
 *                             ones (removed) and deleted ones (back), byte for byte
 *   /rewind <n> conversation  cuts the history at prompt n: the model forgets it and what followed
 *   /rewind <n> [both]        both at once
 *   /rewind undo              undoes the last rewind: every rewind starts with a checkpoint of the
 *                             moment before it, so going back is one more restore
 *
 * The workspace's own `.git` is never touched: the shadow repository's git is told where its
 * repository is (`GIT_DIR`), reads no config but its own, runs no hook, filter or fsmonitor, and
 * runs in the same sandbox as the model's commands. Files your `.gitignore` names (node_modules)
 * are neither copied nor restored. What a rewind cannot undo is said each time: what the commands
 * run since did outside the workspace's files.
 *
 * The tools are s02's five; the loop is s02's. This chapter adds no tool: the model cannot rewind
 * (or see) its checkpoints — they are the person's undo, not the agent's.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fallbackIdentity, HARNESS_GIT_OPTIONS } from "../_shared/git-guard.ts";
import { withLock } from "../_shared/lock.ts";
import { ownProgram } from "../_shared/programs.ts";
import { runSandboxedSync, type Sandbox } from "../_shared/shell.ts";
import {
  agentLoop,
  BASE_HANDLERS,
  BASE_TOOLS,
  runTool,
  type ToolOutcome,
} from "../s02-tool-use/agent.ts";
import type { Agent, AgentEnv, MessageParam, ToolUseBlock } from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files: read before you edit, prefer edit over rewriting whole files. Paths are relative to
the workspace. When the task is done, say so briefly.`;

export const TOOLS = BASE_TOOLS;

// #region shadow
/** A shadow repository: git's history of the workspace, kept where the model cannot reach it. */
export interface Shadow {
  /** The workspace: git's work tree, never its repository. */
  workspace: string;
  /** The repository itself, in the state folder. */
  dir: string;
  /** The run's sandbox: the shadow's git runs in it, as the model's commands do. */
  sandbox: Sandbox;
}

export const shadowFor = (stateDir: string, workspace: string, sandbox: Sandbox): Shadow => ({
  workspace: path.resolve(workspace),
  dir: path.join(stateDir, "checkpoints", "shadow.git"),
  sandbox,
});

/** Every setting that could make git run something, read a file elsewhere or change a byte on the
 *  way in or out is pinned here, on the command line, where nothing in the workspace outranks it:
 *  s12's harness options (no hooks, no fsmonitor, no attributes file of yours), no line-ending
 *  conversion, links stored as links, no ignore file of yours, and no automatic gc in the middle
 *  of a snapshot. */
const SHADOW_OPTIONS = [
  ...HARNESS_GIT_OPTIONS,
  ...[
    ...["core.autocrlf=false", "core.safecrlf=false", "core.symlinks=true", "core.fileMode=true"],
    ...["core.excludesFile=/dev/null", "gc.auto=0", "core.quotePath=false"],
  ].flatMap((setting) => ["-c", setting]),
];

/** A `.gitattributes` in the workspace may ask git to convert line endings or run a filter
 *  (`* filter=x`) on every file. The repository's own `info/attributes` outranks every
 *  `.gitattributes`, so it turns all of that off: bytes go in and come out as they are. */
const RAW_BYTES = "* -text -filter -ident -working-tree-encoding !eol\n";

/** Runs git on the shadow repository: its repository named in the environment (git looks for no
 *  `.git`, so the workspace's is never read), no system or global config, sandboxed like the
 *  model's commands — it may write the workspace (a restore does) and the shadow, nothing else.
 *  `git` is the one on the harness's own PATH, never a file in the workspace. */
function shadowGit(shadow: Shadow, ...args: string[]): string {
  const result = runShadowGit(shadow, args);
  if (result.status !== 0)
    throw new Error(
      `git ${args[0]} in the shadow repository failed: ${result.stderr.trim() || `exit code ${result.status}`}`,
    );
  return result.stdout;
}

function runShadowGit(shadow: Shadow, args: string[]) {
  return runSandboxedSync(ownProgram("git", shadow.workspace), [...SHADOW_OPTIONS, ...args], {
    sandbox: shadow.sandbox,
    cwd: shadow.workspace,
    writable: [shadow.dir],
    timeoutMs: 120_000,
    env: {
      GIT_DIR: shadow.dir,
      GIT_WORK_TREE: shadow.workspace,
      GIT_INDEX_FILE: path.join(shadow.dir, "index"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_ATTR_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      ...fallbackIdentity([shadow.dir]),
    },
  });
}

/** Creates the shadow repository the first time: empty (no template, so no sample hooks), and
 *  with the attributes that keep bytes as they are. */
function ensureShadow(shadow: Shadow): void {
  if (existsSync(path.join(shadow.dir, "HEAD"))) return;
  mkdirSync(shadow.dir, { recursive: true });
  shadowGit(shadow, "init", "--quiet", "--template=");
  mkdirSync(path.join(shadow.dir, "info"), { recursive: true });
  writeFileSync(path.join(shadow.dir, "info", "attributes"), RAW_BYTES);
}

/** Two harnesses on one workspace take turns: one index, one history. */
const underLock = <T>(shadow: Shadow, work: () => T): T => {
  mkdirSync(path.dirname(shadow.dir), { recursive: true });
  return withLock(`${shadow.dir}.lock`, work);
};

/** Records the workspace as it is now: the commit, and its tree (the same files give the same
 *  tree). `git add --all` reads only what changed since the last snapshot (git's index remembers
 *  every file's size and time), honours the workspace's `.gitignore` files, and never enters a
 *  `.git`; the tree it writes shares every unchanged file with the checkpoints before. */
export function snapshot(shadow: Shadow, label: string): { commit: string; tree: string } {
  return underLock(shadow, () => takeSnapshot(shadow, label));
}

function takeSnapshot(shadow: Shadow, label: string): { commit: string; tree: string } {
  ensureShadow(shadow);
  shadowGit(shadow, "add", "--all", "--", ".");
  const tree = shadowGit(shadow, "write-tree").trim();
  // The newest checkpoint is the parent, read under the lock: another harness on this workspace
  // may have added one. (No commit yet: rev-parse says nothing and fails.)
  const head = runShadowGit(shadow, ["rev-parse", "--quiet", "--verify", "HEAD^{commit}"]);
  const parent = head.status === 0 ? ["-p", head.stdout.trim()] : [];
  const commit = shadowGit(
    shadow,
    "commit-tree",
    tree,
    ...parent,
    "-m",
    label.slice(0, 200),
  ).trim();
  // The branch keeps every checkpoint reachable, so no gc ever throws one away.
  shadowGit(shadow, "update-ref", "HEAD", commit);
  return { commit, tree };
}

/** How one file differs between now and the checkpoint a rewind goes back to. */
export interface FileChange {
  path: string;
  /** changed back · removed (it did not exist then) · back (it was deleted since) */
  how: "changed" | "removed" | "back";
}

/** How the files differ between two snapshots, from `from` (now) to `to` (a checkpoint). */
function changesBetween(shadow: Shadow, from: string, to: string): FileChange[] {
  const fields = shadowGit(
    shadow,
    ...["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to],
  ).split("\0");
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const how = fields[i] === "A" ? "back" : fields[i] === "D" ? "removed" : "changed";
    changes.push({ path: fields[i + 1], how });
  }
  return changes;
}

/** Puts the workspace's files back as `commit` has them, and returns the snapshot of the moment
 *  before (a rewind's undo) and what changed. The snapshot comes first for a second reason: it
 *  makes git's index the workspace as it is now, so git knows which files to remove. Then git
 *  reads the commit's tree into the index and updates the work tree to match: files that differ
 *  are rewritten, files it lacks removed (with folders left empty), files it has put back. Files
 *  `.gitignore` names were never in a snapshot, so they stay as they are. */
export function restore(
  shadow: Shadow,
  commit: string,
  label: string,
): { before: string; changes: FileChange[] } {
  return underLock(shadow, () => {
    const before = takeSnapshot(shadow, label).commit;
    const changes = changesBetween(shadow, before, commit);
    shadowGit(shadow, "read-tree", "-u", "--reset", commit);
    return { before, changes };
  });
}

/** What a snapshot leaves out: the workspace's files and folders that its `.gitignore` names. */
export function ignoredPaths(shadow: Shadow): string[] {
  return underLock(shadow, () => {
    ensureShadow(shadow);
    return shadowGit(
      shadow,
      ...["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
    )
      .split("\0")
      .filter(Boolean);
  });
}
// #endregion shadow

// #region checkpoints
/** One checkpoint: the workspace and the conversation as they were just before a prompt. */
export interface Checkpoint {
  /** 1, 2, 3, … in the order of the prompts. */
  id: number;
  prompt: string;
  /** The shadow repository's commit of the workspace. */
  commit: string;
  /** The prompt's own message in the history: a conversation rewind cuts just before it. The
   *  message itself, not its index: after a rewind and a new prompt, an index would point into
   *  another conversation. */
  message: MessageParam;
  /** The commands the model ran after it: what they did outside the workspace's files a
   *  rewind cannot undo, so it names them. */
  commands: string[];
}

/** What a rewind may restore. */
export type RewindTarget = "code" | "conversation" | "both";
export const REWIND_TARGETS: readonly RewindTarget[] = ["code", "conversation", "both"];

/** What undoing the last rewind needs: the workspace and the history as they were before it. */
interface UndoRecord {
  checkpoint: number;
  target: RewindTarget;
  /** The snapshot taken just before the rewind (code and both). */
  code?: string;
  /** The whole history before it (conversation and both): the same messages, not copies. */
  history?: MessageParam[];
}

/** One line of the list: its number, time, prompt, and whether its conversation is still there. */
const short = (text: string, width = 60) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
};

export class Checkpoints {
  readonly list: Checkpoint[] = [];
  private undoRecord: UndoRecord | undefined;

  constructor(
    readonly shadow: Shadow,
    private readonly env: Pick<AgentEnv, "io" | "ask">,
    private readonly messages: MessageParam[],
  ) {}

  // #region before-prompt
  /** Before a prompt: snapshot the workspace, then add the prompt to the history. A checkpoint
   *  that cannot be taken (no git, a full disk) is said, and the prompt goes on without one. */
  begin(prompt: string): void {
    const message: MessageParam = { role: "user", content: prompt };
    const id = this.list.length + 1;
    try {
      const { commit, tree } = snapshot(this.shadow, `#${id} before: ${prompt}`);
      this.list.push({ id, prompt, commit, message, commands: [] });
      this.env.io.event("checkpoint", { id, prompt, tree: tree.slice(0, 12) });
    } catch (err) {
      this.env.io.note(
        `no checkpoint before this prompt (${(err as Error).message}): it cannot be rewound`,
      );
    }
    // A new prompt starts a new line of work: the last rewind is kept as a checkpoint of its own
    // (its snapshot is in the shadow), but /rewind undo is about the rewind just made.
    this.undoRecord = undefined;
    this.messages.push(message);
  }

  /** A command the model ran: the newest checkpoint remembers it. */
  ran(command: string): void {
    this.list.at(-1)?.commands.push(command);
  }
  // #endregion before-prompt

  // #region rewind
  /** Goes back to checkpoint `id`: its files, its history, or both. Bad input changes nothing. */
  rewind(id: number, target: RewindTarget): string {
    const checkpoint = this.list.find((c) => c.id === id);
    if (!checkpoint)
      throw new Error(
        this.list.length
          ? `no checkpoint #${id}: there are ${this.list.length} (/rewind lists them)`
          : "no checkpoints yet: one is taken before each prompt",
      );
    const cutAt = this.messages.indexOf(checkpoint.message);
    if (target !== "code" && cutAt < 0)
      throw new Error(
        `the conversation no longer holds prompt #${id} (an earlier rewind cut it): only its code can be restored (/rewind ${id} code)`,
      );
    const record: UndoRecord = { checkpoint: id, target };
    const lines = [`Rewound to checkpoint #${id}, before “${short(checkpoint.prompt)}”:`];
    let files = 0;
    if (target !== "conversation") {
      const { before, changes } = restore(
        this.shadow,
        checkpoint.commit,
        `before /rewind ${id} ${target}`,
      );
      record.code = before;
      files = changes.length;
      lines.push(
        ...this.describeCode(
          changes,
          this.list.filter((c) => c.id >= id),
        ),
      );
    }
    if (target !== "code") {
      record.history = [...this.messages];
      const cut = this.messages.splice(cutAt);
      lines.push(
        `  conversation: cut before prompt #${id}; ${cut.length} messages set aside. ` +
          `Send it again, or something else.`,
      );
    }
    this.undoRecord = record;
    lines.push("  /rewind undo puts back what this rewind changed.");
    this.env.io.event("rewind", {
      to: id,
      restore: target,
      undo: false,
      files,
      messages: this.messages.length,
    });
    return lines.join("\n");
  }

  /** What a code rewind did, and what it could not do. */
  private describeCode(changes: FileChange[], since: Checkpoint[]): string[] {
    const lines = changes.length
      ? [
          `  files: ${changes.length} restored`,
          ...changes.slice(0, 20).map((c) => `    ${c.how.padEnd(8)} ${c.path}`),
          ...(changes.length > 20 ? [`    … and ${changes.length - 20} more`] : []),
        ]
      : ["  files: already as they were"];
    const commands = since.flatMap((c) => c.commands);
    if (commands.length)
      lines.push(
        `  not undone: whatever these commands did besides changing the workspace's files (a network call, a process still running, a file outside the workspace): ${commands
          .slice(0, 5)
          .map((c) => `\`${short(c, 80)}\``)
          .join(", ")}${commands.length > 5 ? ` and ${commands.length - 5} more` : ""}`,
      );
    const ignored = ignoredPaths(this.shadow);
    if (ignored.length)
      lines.push(
        `  left as they are (your .gitignore names them, so no checkpoint holds them): ${ignored
          .slice(0, 5)
          .join(", ")}${ignored.length > 5 ? ` and ${ignored.length - 5} more` : ""}`,
      );
    return lines;
  }

  /** Undoes the last rewind: the files and the history as they were just before it. An undo is a
   *  rewind too, so it can itself be undone. */
  undo(): string {
    const record = this.undoRecord;
    if (!record)
      throw new Error(
        "nothing to undo: no rewind since the last prompt (/rewind lists checkpoints)",
      );
    const next: UndoRecord = { checkpoint: record.checkpoint, target: record.target };
    const lines = [`Undid the rewind to checkpoint #${record.checkpoint} (${record.target}):`];
    let files = 0;
    if (record.code) {
      const { before, changes } = restore(this.shadow, record.code, "before /rewind undo");
      next.code = before;
      files = changes.length;
      lines.push(`  files: ${changes.length} put back as they were before the rewind`);
    }
    if (record.history) {
      next.history = [...this.messages];
      this.messages.splice(0, this.messages.length, ...record.history);
      lines.push(`  conversation: ${this.messages.length} messages, as before the rewind`);
    }
    this.undoRecord = next;
    this.env.io.event("rewind", {
      to: record.checkpoint,
      restore: record.target,
      undo: true,
      files,
      messages: this.messages.length,
    });
    return lines.join("\n");
  }
  // #endregion rewind

  /** The list /rewind shows. */
  render(): string {
    if (!this.list.length) return "No checkpoints yet: one is taken before each prompt.";
    return [
      ...this.list.map((c) => {
        const gone = this.messages.includes(c.message) ? "" : "  (conversation rewound away)";
        const n = c.commands.length;
        const ran = n ? `  (${n} command${n === 1 ? "" : "s"} after it)` : "";
        return `  #${c.id}  ${short(c.prompt)}${ran}${gone}`;
      }),
      "/rewind <n> [code|conversation|both] goes back to before prompt n · /rewind undo undoes a rewind",
    ].join("\n");
  }
}
// #endregion checkpoints

// #region command
/** What `/rewind …` asks for. Anything else is refused with the usage, and nothing changes. */
export type RewindRequest =
  { kind: "list" } | { kind: "undo" } | { kind: "rewind"; id: number; target: RewindTarget };

const USAGE = "usage: /rewind · /rewind <n> [code|conversation|both] · /rewind undo";

export function parseRewind(args: string): RewindRequest {
  const words = args.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return { kind: "list" };
  if (words.length === 1 && words[0] === "undo") return { kind: "undo" };
  const number = /^#?([1-9]\d{0,5})$/.exec(words[0] ?? "");
  const target = (words[1] ?? "both") as RewindTarget;
  if (!number || words.length > 2 || !REWIND_TARGETS.includes(target))
    throw new Error(`${USAGE} (not “${short(args, 40)}”)`);
  return { kind: "rewind", id: Number(number[1]), target };
}
// #endregion command

// #region agent
export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  const checkpoints = new Checkpoints(
    shadowFor(env.stateDir, env.workspace, env.sandbox),
    env,
    messages,
  );
  // s02's tools, run as s02 runs them; a command is remembered first, so a rewind can name it.
  const runCall = (call: ToolUseBlock): Promise<ToolOutcome> => {
    if (call.name === "bash")
      checkpoints.ran(String((call.input as { command?: unknown }).command ?? ""));
    return runTool(BASE_HANDLERS, call, { root: env.workspace, sandbox: env.sandbox }, TOOLS);
  };
  return {
    messages,
    commands: {
      "/rewind": {
        help: "list checkpoints; /rewind <n> [code|conversation|both]; /rewind undo",
        run(args) {
          const request = parseRewind(args);
          if (request.kind === "list") return checkpoints.render();
          if (request.kind === "undo") return checkpoints.undo();
          return checkpoints.rewind(request.id, request.target);
        },
      },
    },
    async send(prompt) {
      checkpoints.begin(prompt);
      await agentLoop(env, messages, { system: SYSTEM, tools: TOOLS, runCall });
    },
  };
}
// #endregion agent
