/**
 * a3 · Edits that land
 *
 * s02's `edit` replaces the first place its text appears and says "Edited". That is a toy's
 * promise: the first place may be the wrong one, the file may have changed since the model read
 * it, and "Edited" says nothing about whether the program still compiles. Most failed steps of a
 * coding agent are edits like that. This chapter keeps s02's loop, jail and tools and makes every
 * change to a file earn its "Edited":
 *   1. `edit` needs exactly one match: none is an error with the nearest lines, several an error
 *      naming their line numbers (unless the model asks for `replace_all`);
 *   2. `apply_patch` takes a unified diff over several files and applies all of it or none;
 *   3. a file changed since the model last read it is refused until it reads it again;
 *   4. after every change the project's checker runs (TypeScript's own diagnostics for .ts
 *      files, or a command the workspace names), time-limited and sandboxed, and what it says
 *      about the changed files rides in the result, so the model sees the error it just made.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  ftruncateSync,
  readFileSync,
  realpathSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import * as s02 from "../s02-tool-use/agent.ts";
import { REPO_ROOT } from "../_shared/paths.ts";
import { runCommand } from "../_shared/shell.ts";
import type { Agent, AgentEnv, IO, MessageParam, Tool } from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Read a file before you change
it. Change files with edit (old_text must match exactly one place: include enough surrounding
lines) or apply_patch (a unified diff, for changes over several places or files). After each
change the project's checker runs: its diagnostics are in the result; fix what your change broke.
Paths are relative to the workspace. When the task is done, say so briefly.`;

// #region versions
/** What the model has seen of one file: the hash of its text when it last read or changed it,
 *  and how many different texts it has seen (the version the state panel shows). */
export interface SeenFile {
  path: string;
  version: number;
  hash: string;
}

export const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

/** The files the model has read, by their real path (so `./a.ts` and `a.ts` are one file). A
 *  change is allowed only to a file the model has seen as it is now: one it never read might
 *  hold anything, and one that changed since (a command, a formatter, a person) would be edited
 *  from a memory of text that is gone. */
export class ReadLedger {
  private readonly files = new Map<string, SeenFile>();
  constructor(private readonly io?: IO) {}

  /** The model has now seen `text` as the content of `shown` (by reading it, or by changing it
   *  to that: it wrote the text itself). */
  saw(real: string, shown: string, text: string, by: string): SeenFile {
    const hash = hashOf(text);
    const before = this.files.get(real);
    if (before?.hash === hash) return before;
    const seen = { path: shown, version: (before?.version ?? 0) + 1, hash };
    this.files.set(real, seen);
    this.io?.event("file_version", { ...seen, hash: hash.slice(0, 8), by });
    return seen;
  }

  /** Throws unless `text`, the file's content now, is what the model last saw of it. */
  assertCurrent(real: string, shown: string, text: string): void {
    const seen = this.files.get(real);
    if (!seen) throw new Error(`read ${shown} before you change it: you have not seen it yet`);
    if (seen.hash !== hashOf(text))
      throw new Error(
        `${shown} changed since you last read it (version ${seen.version}): read it again, then change it`,
      );
  }

  list(): SeenFile[] {
    return [...this.files.values()];
  }
}
// #endregion versions

// #region edit
const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** Where `needle` starts in `text`, overlapping places included ("aa" is in "aaa" twice): two
 *  overlapping places are still two places the model could mean. */
export function matchesOf(text: string, needle: string): number[] {
  const found: number[] = [];
  if (!needle) return found;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

/** How alike two lines are: the share of their character pairs they have in common (Dice's
 *  coefficient), 0 to 1. Cheap, and good at "the same line with a typo or other spaces". */
function likeness(a: string, b: string): number {
  const pairs = (s: string) => {
    const counts = new Map<string, number>();
    for (let i = 0; i < s.length - 1; i++)
      counts.set(s.slice(i, i + 2), (counts.get(s.slice(i, i + 2)) ?? 0) + 1);
    return counts;
  };
  const [x, y] = [pairs(a.trim()), pairs(b.trim())];
  let shared = 0;
  for (const [pair, n] of x) shared += Math.min(n, y.get(pair) ?? 0);
  const total = Math.max(a.trim().length - 1, 0) + Math.max(b.trim().length - 1, 0);
  return total === 0 ? (a.trim() === b.trim() ? 1 : 0) : (2 * shared) / total;
}

/** The lines of `text` most like the start of `needle`, numbered, as many as `needle` has (at
 *  most six): what the model probably meant, to copy exactly next time. */
export function nearestLines(text: string, needle: string): string {
  const lines = text.split("\n");
  const wanted = needle.split("\n");
  const first = wanted.find((line) => line.trim()) ?? "";
  let best = 0;
  let bestScore = -1;
  lines.slice(0, 10_000).forEach((line, i) => {
    const score = likeness(line, first);
    if (score > bestScore) [best, bestScore] = [i, score];
  });
  return lines
    .slice(best, best + Math.min(Math.max(wanted.length, 1), 6))
    .map((line, i) => `${String(best + i + 1).padStart(5)}  ${line}`)
    .join("\n");
}

/** The text after the edit, or an error that says what to do instead. Exactly one match, or
 *  every match with `replaceAll`; nothing is changed when the error is thrown. */
export function planEdit(
  text: string,
  oldText: string,
  newText: string,
  replaceAll = false,
  shown = "the file",
): { text: string; replaced: number } {
  if (!oldText) throw new Error("old_text is empty: name the text to replace");
  if (oldText === newText) throw new Error("old_text and new_text are the same: nothing to change");
  const found = matchesOf(text, oldText);
  if (found.length === 0)
    throw new Error(
      `old_text is not in ${shown}. The lines most like it:\n${nearestLines(text, oldText)}\n` +
        "Copy the text exactly (spaces and line breaks too), or read the file again.",
    );
  if (replaceAll) {
    const parts = text.split(oldText);
    return { text: parts.join(newText), replaced: parts.length - 1 };
  }
  if (found.length > 1) {
    const lines = [...new Set(found.map((at) => lineAt(text, at)))];
    throw new Error(
      `old_text matches ${found.length} places in ${shown} (line${lines.length > 1 ? "s" : ""} ` +
        `${lines.join(", ")}): nothing was changed. Include more of the surrounding lines so it ` +
        "matches one place, or set replace_all to change every one.",
    );
  }
  const [at] = found;
  return { text: text.slice(0, at) + newText + text.slice(at + oldText.length), replaced: 1 };
}
// #endregion edit

// #region patch
/** One file a patch changes: its path in the workspace, its text before (undefined: the patch
 *  creates it) and after. */
export interface PlannedChange {
  path: string;
  before: string | undefined;
  after: string;
}

const NO_FILE = "/dev/null";

/** The workspace path a patch names: git's `a/` and `b/` prefixes are dropped when both sides
 *  carry them, as `git apply` does. */
function patchPaths(file: StructuredPatch): { from: string | undefined; to: string | undefined } {
  const clean = (name: string | undefined) =>
    name === undefined || name === NO_FILE ? undefined : name.trim();
  let [from, to] = [clean(file.oldFileName), clean(file.newFileName)];
  const git = (name: string | undefined, prefix: string) =>
    name === undefined || name.startsWith(prefix);
  if (git(from, "a/") && git(to, "b/") && (from ?? to)) {
    from = from?.slice(2);
    to = to?.slice(2);
  }
  return { from, to };
}

/** The hunk header as the model wrote it, to name a hunk that did not apply. */
const header = (h: StructuredPatch["hunks"][number]) =>
  `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;

/** Every file's text after `patch`, computed in memory, or an error naming the first file and
 *  hunk that do not fit: then no file is written at all. `read` gives a file's current text
 *  (undefined when it does not exist). The diff package parses and applies (its hunks may sit a
 *  few lines from where the header says, as models' line numbers often are, but their context
 *  lines must match exactly). */
export function planPatch(
  patch: string,
  read: (file: string) => string | undefined,
): PlannedChange[] {
  let files: StructuredPatch[];
  try {
    files = parsePatch(patch);
  } catch (err) {
    throw new Error(`the patch is not a unified diff: ${(err as Error).message}`);
  }
  files = files.filter((f) => f.hunks.length > 0 || f.oldFileName || f.newFileName);
  if (files.length === 0 || files.every((f) => f.hunks.length === 0))
    throw new Error(
      "the patch changes nothing: write a unified diff (--- a/file, +++ b/file, @@ hunks)",
    );
  const planned: PlannedChange[] = [];
  for (const file of files) {
    const { from, to } = patchPaths(file);
    if (!to)
      throw new Error(
        `the patch deletes ${from}: apply_patch does not delete files (use bash: rm ${from})`,
      );
    if (from && from !== to)
      throw new Error(
        `the patch renames ${from} to ${to}: apply_patch does not rename (use bash: mv)`,
      );
    if (planned.some((p) => p.path === to))
      throw new Error(`the patch changes ${to} twice: put all its hunks under one header`);
    if (file.hunks.length === 0) throw new Error(`the patch has no hunks for ${to}`);
    const before = read(to);
    if (from === undefined && before !== undefined)
      throw new Error(
        `the patch creates ${to}, which exists already: write a change to it instead`,
      );
    if (from !== undefined && before === undefined)
      throw new Error(`the patch changes ${to}, which does not exist`);
    const after = applyPatch(before ?? "", file, { fuzzFactor: 0 });
    if (after === false) {
      // Which hunk: apply them one at a time until one does not fit.
      let text = before ?? "";
      for (const [i, hunk] of file.hunks.entries()) {
        const next = applyPatch(text, { ...file, hunks: [hunk] }, { fuzzFactor: 0 });
        if (next === false)
          throw new Error(
            `hunk ${i + 1} of ${to} (${header(hunk)}) does not match the file: its context and ` +
              "removed lines must be the file's lines exactly. Nothing was changed; read the " +
              "file and write the patch again.",
          );
        text = next;
      }
      throw new Error(`the hunks of ${to} do not fit together: nothing was changed`);
    }
    planned.push({ path: to, before, after });
  }
  return planned;
}
// #endregion patch

// #region checker
export const CHECKS_FILE = ".checks.json";
const CHECK_SCRIPT = fileURLToPath(new URL("check-types.mjs", import.meta.url));
const TYPESCRIPT = path.join(REPO_ROOT, "node_modules", "typescript");
const TS_FILE = /\.(ts|tsx|mts|cts)$/;
const MAX_DIAGNOSTICS = 20;

/** One argument for a shell command line: a file name the model chose cannot become code. */
const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

export interface CheckerOptions {
  /** How long a check may take before it is stopped and its result called unknown. */
  timeoutMs?: number;
}

interface Diagnostic {
  file: string;
  line: number;
  column: number;
  code: string;
  message: string;
}

/** The checker's verdict on the changed files, as the lines that ride in the tool's result. The
 *  checker is the project's: TypeScript's diagnostics for .ts files (the compiler of this
 *  harness, given the workspace's tsconfig.json), and for other files the command the
 *  workspace's .checks.json names (`{"command": "ruff check"}`; the files are its arguments).
 *  Both run in the command sandbox, time-limited, like any command of the model's. */
export async function runChecks(
  { root, sandbox }: s02.ToolContext,
  files: string[],
  { timeoutMs = 60_000 }: CheckerOptions = {},
): Promise<string> {
  const report: string[] = [];
  const typed = files.filter((file) => TS_FILE.test(file));
  if (typed.length) {
    const command = [process.execPath, CHECK_SCRIPT, ...typed].map(quoted).join(" ");
    const run = await runCommand(command, {
      sandbox,
      cwd: root,
      timeoutMs,
      // By their real paths: the sandbox binds only a path that is not reached through a link.
      readable: [CHECK_SCRIPT, TYPESCRIPT].map((shown) => realpathSync(shown)),
    });
    report.push(typeReport(typed, run, timeoutMs));
  }
  const others = files.filter((file) => !TS_FILE.test(file));
  let configured: string | undefined;
  try {
    configured = others.length ? checkCommand(root) : undefined;
  } catch (err) {
    // The change is made; what failed is the check. Say so in the result, not as the tool's error.
    report.push(`Checker: ${(err as Error).message}`);
  }
  if (configured) {
    const run = await runCommand(`${configured} ${others.map(quoted).join(" ")}`, {
      sandbox,
      cwd: root,
      timeoutMs,
    });
    const said = run.output.trim().split("\n").slice(-MAX_DIAGNOSTICS).join("\n");
    report.push(
      run.timedOut
        ? `Checker (${configured}): stopped after ${timeoutMs / 1000} s; its verdict is unknown.`
        : `Checker (${configured}) on ${others.join(", ")}: exit ${run.exitCode}` +
            (said ? `\n${said}` : ""),
    );
  }
  return report.join("\n");
}

function typeReport(
  files: string[],
  run: { output: string; stdout: string; exitCode: number | null; timedOut: boolean },
  timeoutMs: number,
): string {
  const on = files.join(", ");
  if (run.timedOut) return `Type check of ${on}: stopped after ${timeoutMs / 1000} s; unknown.`;
  if (run.exitCode !== 0)
    return `Type check of ${on} could not run: ${run.output.trim().split("\n").slice(-3).join(" ")}`;
  const found = run.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Diagnostic);
  if (found.length === 0) return `Type check of ${on}: no errors.`;
  const shown = found
    .slice(0, MAX_DIAGNOSTICS)
    .map((d) => `${d.file}:${d.line}:${d.column} error ${d.code}: ${d.message}`);
  const more = found.length - shown.length;
  return [
    `Type check of ${on}: ${found.length} error${found.length > 1 ? "s" : ""}. Fix them:`,
    ...shown,
    ...(more > 0 ? [`… and ${more} more`] : []),
  ].join("\n");
}

/** The command in the workspace's .checks.json, read through the jail, if there is one. */
function checkCommand(root: string): string | undefined {
  let text: string;
  try {
    text = s02.readInside(root, CHECKS_FILE);
  } catch {
    return undefined;
  }
  let command: unknown;
  try {
    ({ command } = JSON.parse(text) as { command?: unknown });
  } catch {
    throw new Error(`${CHECKS_FILE} is not JSON: write {"command": "your checker"}`);
  }
  if (typeof command !== "string" || !command.trim())
    throw new Error(`${CHECKS_FILE} needs {"command": "..."}, a command to run on changed files`);
  return command;
}
// #endregion checker

// #region tools
const base = (name: string) => s02.BASE_TOOLS.find((t) => t.name === name)!;

export const EDIT_TOOL: Tool = {
  name: "edit",
  description:
    "Replace old_text with new_text in a file you have read. old_text must match exactly one " +
    "place (include surrounding lines to make it unique), or set replace_all to change every match.",
  input_schema: {
    type: "object",
    properties: {
      path: { type: "string" },
      old_text: { type: "string" },
      new_text: { type: "string" },
      replace_all: { type: "boolean" },
    },
    required: ["path", "old_text", "new_text"],
  },
};

export const APPLY_PATCH_TOOL: Tool = {
  name: "apply_patch",
  description:
    "Apply a unified diff (--- a/path, +++ b/path, @@ hunks with 3 lines of context) to one or " +
    "more files you have read; --- /dev/null creates a file. All of it applies, or nothing does.",
  input_schema: {
    type: "object",
    properties: { patch: { type: "string" } },
    required: ["patch"],
  },
};

/** s02's five with its `edit` made strict, and apply_patch: six. */
export const TOOLS: Tool[] = [
  base("bash"),
  base("read"),
  base("write"),
  EDIT_TOOL,
  base("glob"),
  APPLY_PATCH_TOOL,
];
// #endregion tools

// #region handlers
const MAX_READ = 50_000;

/** The text of an existing file inside the workspace, or undefined if there is none. */
function existing(root: string, file: string): string | undefined {
  try {
    return s02.readInside(root, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** s02's handlers, with every read recorded in the ledger and every change checked against it,
 *  then checked by the project's checker. */
export function handlersFor(
  ledger: ReadLedger,
  options: CheckerOptions = {},
): Record<string, s02.ToolHandler> {
  const changed = async (at: s02.ToolContext, files: string[], said: string) => {
    const verdict = await runChecks(at, files, options);
    return verdict ? `${said}\n\n${verdict}` : said;
  };
  return {
    ...s02.BASE_HANDLERS,
    read({ path: p, limit }, { root }) {
      const real = s02.safePath(root, p);
      const text = s02.readInside(root, p);
      const { version } = ledger.saw(real, String(p), text, "read");
      let shown = text;
      if (typeof limit === "number" && limit > 0)
        shown = text.split("\n").slice(0, limit).join("\n");
      if (shown.length > MAX_READ) shown = `${shown.slice(0, MAX_READ)}\n… (truncated)`;
      return `${shown}${shown.endsWith("\n") ? "" : "\n"}(version ${version})`;
    },
    async write({ path: p, content }, { root, sandbox }) {
      const real = s02.safePath(root, p);
      const before = existing(root, String(p));
      // Replacing a file is a change to it like any other: only as the model last saw it.
      if (before !== undefined) ledger.assertCurrent(real, String(p), before);
      const text = String(content ?? "");
      s02.writeInside(root, p, text);
      ledger.saw(real, String(p), text, "write");
      return changed(
        { root, sandbox },
        [String(p)],
        `Wrote ${Buffer.byteLength(text)} bytes to ${p}`,
      );
    },
    async edit({ path: p, old_text, new_text, replace_all }, { root, sandbox }) {
      const real = s02.safePath(root, p);
      // Read, compare and write through one open file, so the edit lands on the file we checked.
      const fd = s02.openInside(root, p, "edit");
      let replaced: number;
      try {
        const text = readFileSync(fd, "utf8");
        ledger.assertCurrent(real, String(p), text);
        const plan = planEdit(
          text,
          String(old_text),
          String(new_text),
          replace_all === true,
          String(p),
        );
        ftruncateSync(fd);
        writeSync(fd, plan.text, 0);
        ledger.saw(real, String(p), plan.text, "edit");
        replaced = plan.replaced;
      } finally {
        closeSync(fd);
      }
      return changed(
        { root, sandbox },
        [String(p)],
        `Edited ${p}${replaced > 1 ? ` (${replaced} places)` : ""}`,
      );
    },
    async apply_patch({ patch }, { root, sandbox }) {
      const plan = planPatch(String(patch), (file) => {
        const text = existing(root, file);
        if (text !== undefined) ledger.assertCurrent(s02.safePath(root, file), file, text);
        return text;
      });
      // All in memory so far. Now write; if a write fails, put back what was written before it.
      const done: PlannedChange[] = [];
      try {
        for (const change of plan) {
          s02.writeInside(root, change.path, change.after);
          done.push(change);
        }
      } catch (err) {
        for (const change of done.reverse()) {
          if (change.before === undefined) unlinkSync(s02.safePath(root, change.path));
          else s02.writeInside(root, change.path, change.before);
        }
        throw new Error(`${(err as Error).message}: nothing was changed`);
      }
      for (const change of plan)
        ledger.saw(s02.safePath(root, change.path), change.path, change.after, "apply_patch");
      const files = plan.map((c) => c.path);
      return changed({ root, sandbox }, files, `Patched ${files.join(", ")}`);
    },
  };
}
// #endregion handlers

// #region agent
export function createAgent(env: AgentEnv, options: CheckerOptions = {}): Agent {
  const messages: MessageParam[] = [];
  const ledger = new ReadLedger(env.io);
  const handlers = handlersFor(ledger, options);
  return {
    messages,
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await s02.agentLoop(env, messages, { system: SYSTEM, tools: TOOLS, handlers });
    },
    commands: {
      files: {
        help: "the files the model has read, and their versions",
        run: () =>
          ledger
            .list()
            .map((f) => `${f.path}  version ${f.version}  ${f.hash.slice(0, 8)}`)
            .join("\n") || "(no file read yet)",
      },
    },
  };
}
// #endregion agent
