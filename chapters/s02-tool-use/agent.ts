/**
 * s02 · Tool use
 *
 * One tool is not enough, and a bigger toolbox needs three things:
 *   1. a dispatch map from tool name to handler, so adding a tool is one entry, not a new if;
 *   2. a workspace jail, so file tools can never touch anything outside the workspace;
 *   3. message hygiene, so the history we send is always one the API accepts.
 * The loop itself is the loop of s01.
 */
import {
  type Dirent,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { bash } from "../s01-agent-loop/agent.ts";
import { inputProblem } from "../_shared/schema.ts";
import type {
  Agent,
  AgentEnv,
  ContentBlockParam,
  MessageParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files: read before you edit, prefer edit over rewriting whole files. Paths are relative to
the workspace. When the task is done, say so briefly.`;

// #region jail
/** Every path a tool touches goes through here. Anything that would leave the workspace —
 *  `..`, an absolute path elsewhere, `~`, a symlink (even a dangling one, even a parent folder)
 *  that points outside — is refused before anything is read or written. */
export function safePath(root: string, requested: unknown): string {
  if (typeof requested !== "string" || requested.trim() === "")
    throw new Error("path must be a non-empty string");
  if (requested.includes("\0")) throw new Error("path contains a NUL byte");
  if (requested.startsWith("~"))
    throw new Error(`"~" paths are not allowed: use a path inside the workspace`);
  if (
    Buffer.byteLength(requested) > 1024 ||
    requested.split(/[/\\]/).some((part) => Buffer.byteLength(part) > 255)
  ) {
    throw new Error("path is too long");
  }
  const realRoot = jailRoot(root);
  const full = path.resolve(realRoot, requested);
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot + path.sep);
  if (!inside(full)) throw new Error(`path escapes the workspace: ${requested}`);

  // Follow symlinks: resolve the deepest part of the path that exists, then re-check.
  let existing = full;
  const rest: string[] = [];
  while (!exists(existing)) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    throw new Error(`path goes through a broken symlink: ${requested}`);
  }
  const resolved = path.join(real, ...rest);
  if (!inside(resolved))
    throw new Error(`path escapes the workspace through a symlink: ${requested}`);
  return resolved;
}

/** The folder the tools are jailed to, exactly as the harness named it. It must be a real folder,
 *  not a link: a teammate's lane that the lead's bash swapped for a link to your home must not
 *  move the jail there. */
function jailRoot(root: string): string {
  const real = realpathSync(root);
  if (real !== path.resolve(root))
    throw new Error(`the tools' folder ${root} is reached through a symlink (to ${real}); refused`);
  return real;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/* A check is not enough. Between safePath saying yes and the tool opening the file, another
 * process (a background command, a teammate) can swap a folder for a symlink to /etc, and the
 * open follows it. So the tools open files the way the kernel can vouch for: one path part at a
 * time, each opened *inside the folder already open* and never through a symlink. On Linux,
 * /proc/self/fd/<n>/<name> names "<name> inside the folder I hold open as fd n", wherever that
 * folder is now; elsewhere we fall back to the checked path (the check alone, with its race). */
const PINNED = existsSync("/proc/self/fd");
const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

interface OpenDir {
  fd: number;
  path: string;
}
const inDir = (dir: OpenDir, name: string) =>
  PINNED ? `/proc/self/fd/${dir.fd}/${name}` : path.join(dir.path, name);

function openDirIn(dir: OpenDir, name: string, create: boolean): OpenDir {
  const at = inDir(dir, name);
  if (create && !exists(at)) mkdirSync(at);
  try {
    // O_NOFOLLOW: a symlink here fails to open instead of leading somewhere else.
    return {
      fd: openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW),
      path: path.join(dir.path, name),
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR")
      throw new Error(`${name} is a symlink or not a folder; file tools do not follow links`);
    throw err;
  }
}

/** Opens the jail's root itself, race-free: not through a link, and (on Linux) checked again
 *  through the open handle, so a swap after jailRoot's check is caught too. */
function openRoot(root: string): OpenDir {
  const real = jailRoot(root);
  const fd = openSync(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (PINNED && readlinkSync(`/proc/self/fd/${fd}`) !== real) {
    closeSync(fd);
    throw new Error(`the tools' folder ${root} was swapped for a symlink; refused`);
  }
  return { fd, path: real };
}

/** Opens a file inside the workspace for `mode`, race-free: returns its fd, which the caller
 *  closes. Refuses anything that is not a plain file with one name (a FIFO would freeze the
 *  harness, a device could be anything, a hard link may be a file outside by another name). */
export function openInside(
  root: string,
  requested: unknown,
  mode: "read" | "write" | "edit",
  { intoGit = false } = {},
): number {
  const rel = path.relative(jailRoot(root), safePath(root, requested));
  const parts = rel.split(path.sep).filter(Boolean);
  const name = parts.pop();
  if (!name) throw new Error(`${String(requested)} is the workspace itself, not a file`);
  // A repository's .git is git's: its config and hooks say what git runs — yours too, later,
  // outside any sandbox. The tools may read it, never change it. (Checked on the very parts
  // opened below, so no link swapped in between can steer a write into it.)
  if (mode !== "read" && !intoGit && [...parts, name].some((p) => p.toLowerCase() === ".git"))
    throw new Error(`${String(requested)} is inside .git: the file tools do not change it`);
  let dir = openRoot(root);
  try {
    for (const part of parts) {
      const next = openDirIn(dir, part, mode === "write");
      closeSync(dir.fd);
      dir = next;
    }
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting forever for a writer.
    const flags =
      { read: O_RDONLY, write: O_WRONLY | O_CREAT, edit: O_RDWR }[mode] | O_NOFOLLOW | O_NONBLOCK;
    let fd: number;
    try {
      fd = openSync(inDir(dir, name), flags, 0o644);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ELOOP")
        throw new Error(`${String(requested)} is a symlink; file tools do not follow links`);
      if (code === "ENXIO") throw new Error(`${String(requested)} is not a regular file`);
      throw err;
    }
    const st = fstatSync(fd);
    const problem = !st.isFile()
      ? "is not a regular file"
      : st.nlink > 1
        ? "has other hard links (it may be a file outside)"
        : "";
    if (problem) {
      closeSync(fd);
      throw new Error(`${String(requested)} ${problem}; refused`);
    }
    return fd;
  } finally {
    closeSync(dir.fd);
  }
}

/** The whole text of a file inside the workspace, opened race-free. */
export function readInside(root: string, requested: unknown): string {
  const fd = openInside(root, requested, "read");
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Creates or replaces a file inside the workspace, opened race-free (parents are created). */
export function writeInside(
  root: string,
  requested: unknown,
  text: string,
  options?: { intoGit?: boolean },
): void {
  const fd = openInside(root, requested, "write", options);
  try {
    ftruncateSync(fd); // only now: a file we refused is never truncated
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** How deep a listing goes. A tree deeper than any call stack (a model's `mkdir d && cd d` loop)
 *  must neither crash the walk nor hold a file descriptor per level, so deeper folders are left
 *  out, and the listing says so. */
export const MAX_LIST_DEPTH = 128;

interface Listing {
  files: string[];
  /** False when the listing stopped at `limit` entries or left folders out for depth. */
  complete: boolean;
  /** Folders deeper than MAX_LIST_DEPTH were not listed. */
  tooDeep: boolean;
}

/** The entries of one folder inside the workspace, listed through open folders (no link is
 *  followed, however the path is swapped meanwhile); `[]` when it does not exist. */
export function listFolderInside(root: string, folder: string): Dirent[] {
  const parts = path.relative(jailRoot(root), safePath(root, folder)).split(path.sep);
  let dir = openRoot(root);
  try {
    for (const part of parts.filter(Boolean)) {
      const next = openDirIn(dir, part, false);
      closeSync(dir.fd);
      dir = next;
    }
    return readdirSync(PINNED ? `/proc/self/fd/${dir.fd}` : dir.path, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  } finally {
    closeSync(dir.fd);
  }
}

/** Every file and link under the workspace, listed through open folders only, never following
 *  a link: a glob can only ever name what is inside. Stops after `limit` entries. The walk is a
 *  loop over an explicit stack of open folders (one per level), not a recursion. */
export function listInside(root: string, limit = 100_000): Listing {
  const files: string[] = [];
  let tooDeep = false;
  const stack: { dir: OpenDir; prefix: string; entries: Dirent[] }[] = [];
  const enter = (dir: OpenDir, prefix: string) => {
    try {
      const entries = readdirSync(PINNED ? `/proc/self/fd/${dir.fd}` : dir.path, {
        withFileTypes: true,
      });
      stack.push({ dir, prefix, entries: entries.reverse() }); // popped from the end: in order
    } catch (err) {
      closeSync(dir.fd);
      throw err;
    }
  };
  enter(openRoot(root), "");
  try {
    while (stack.length > 0) {
      const level = stack.at(-1)!;
      const entry = level.entries.pop();
      if (!entry) {
        closeSync(stack.pop()!.dir.fd);
        continue;
      }
      if (files.length >= limit) return { files, complete: false, tooDeep };
      const rel = level.prefix + entry.name;
      if (!entry.isDirectory()) {
        files.push(rel);
        continue;
      }
      if (rel === ".git") continue;
      if (stack.length >= MAX_LIST_DEPTH) {
        tooDeep = true;
        continue;
      }
      try {
        enter(openDirIn(level.dir, entry.name, false), `${rel}/`);
      } catch {
        continue; // swapped for a link or removed since the listing: skip it
      }
    }
    return { files, complete: !tooDeep, tooDeep };
  } finally {
    for (const level of stack) closeSync(level.dir.fd);
  }
}
// #endregion jail

// #region tools
export const BASE_TOOLS: Tool[] = [
  {
    name: "bash",
    description: "Run a shell command in the workspace and return its output.",
    input_schema: {
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    },
  },
  {
    name: "read",
    description: "Read a text file in the workspace. Optional limit = number of lines.",
    input_schema: {
      type: "object",
      properties: { path: { type: "string" }, limit: { type: "integer" } },
      required: ["path"],
    },
  },
  {
    name: "write",
    description: "Create or overwrite a file in the workspace (parent folders are created).",
    input_schema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  },
  {
    name: "edit",
    description: "Replace the first occurrence of old_text with new_text in a file.",
    input_schema: {
      type: "object",
      properties: {
        path: { type: "string" },
        old_text: { type: "string" },
        new_text: { type: "string" },
      },
      required: ["path", "old_text", "new_text"],
    },
  },
  {
    name: "glob",
    description: "List workspace files matching a glob pattern such as **/*.ts.",
    input_schema: {
      type: "object",
      properties: { pattern: { type: "string" } },
      required: ["pattern"],
    },
  },
];
export const TOOLS = BASE_TOOLS;

/** Where a tool acts: the folder it is jailed to (the workspace, or later a worktree lane). */
export interface ToolContext {
  root: string;
  /** Folders its commands may also write (s12: a lane's repository history), named by the harness. */
  writable?: string[];
}
type Input = Record<string, unknown>;
/** A handler returns the text of its result, or throws: the error becomes an error result. */
export type ToolHandler = (input: Input, ctx: ToolContext) => string | Promise<string>;

const MAX_READ = 50_000;
const MAX_GLOB = 1_000;

export const BASE_HANDLERS: Record<string, ToolHandler> = {
  async bash({ command }, { root, writable }) {
    const { output, isError } = await bash(String(command), root, { writable });
    if (isError) throw new Error(output.replace(/^Error: /, ""));
    return output;
  },
  read({ path: p, limit }, { root }) {
    let text = readInside(root, p);
    if (typeof limit === "number" && limit > 0) text = text.split("\n").slice(0, limit).join("\n");
    return text.length > MAX_READ ? `${text.slice(0, MAX_READ)}\n… (truncated)` : text;
  },
  write({ path: p, content }, { root }) {
    const text = String(content ?? "");
    writeInside(root, p, text);
    return `Wrote ${Buffer.byteLength(text)} bytes to ${p}`;
  },
  edit({ path: p, old_text, new_text }, { root }) {
    // Read and write through one open file, so the edit lands on the file we read.
    const fd = openInside(root, p, "edit");
    try {
      const text = readFileSync(fd, "utf8");
      const at = text.indexOf(String(old_text));
      if (!old_text || at < 0) throw new Error(`old_text not found in ${p}`);
      // Only the first match: the model names the exact spot it means.
      const edited =
        text.slice(0, at) + String(new_text) + text.slice(at + String(old_text).length);
      ftruncateSync(fd);
      writeSync(fd, edited, 0);
    } finally {
      closeSync(fd);
    }
    return `Edited ${p}`;
  },
  glob({ pattern }, { root }) {
    const p = String(pattern ?? "");
    // Backslashes escape characters in a glob: `\.\./` means `../`. Look at the pattern without them.
    const plain = p.replace(/\\/g, "");
    if (
      !p ||
      path.isAbsolute(plain) ||
      plain.split("/").some((part) => part === ".." || part.startsWith("~"))
    ) {
      throw new Error("pattern must stay inside the workspace (no .., no absolute paths)");
    }
    // Match against a listing of the workspace instead of letting a library walk the disk: the
    // listing cannot contain anything outside, whatever the pattern says.
    const { files, complete, tooDeep } = listInside(root);
    const isMatch = picomatch(p, { dot: p.startsWith(".") || p.includes("/.") });
    const matches = files.filter((file) => isMatch(file)).sort();
    const shown = matches.slice(0, MAX_GLOB);
    const more = matches.length - shown.length;
    return [
      shown.join("\n") || "(no matches)",
      more > 0 ? `… (${more} more matches; narrow the pattern)` : "",
      tooDeep ? `… (folders deeper than ${MAX_LIST_DEPTH} levels were not listed)` : "",
      complete || tooDeep ? "" : "… (the workspace is too big to list in full; narrow the pattern)",
    ]
      .filter(Boolean)
      .join("\n");
  },
};
// #endregion tools

// #region dispatch
/** Name → handler. An unknown name, an input its tool's schema does not describe (a field it
 *  does not declare, a list where text goes) or a thrown error becomes an error result; the loop
 *  goes on. `tools` are the schemas the model was offered: a chapter with tools of its own passes
 *  its list, so those are checked too. */
export async function runTool(
  handlers: Record<string, ToolHandler>,
  call: ToolUseBlock,
  ctx: ToolContext,
  tools: Tool[] = BASE_TOOLS,
): Promise<{ output: string; isError: boolean }> {
  const handler = handlers[call.name];
  if (!handler) return { output: `Error: unknown tool "${call.name}"`, isError: true };
  const tool = tools.find((t) => t.name === call.name);
  const malformed = tool && inputProblem(tool, call.input);
  if (malformed) return { output: `Error: ${malformed}`, isError: true };
  try {
    return { output: await handler(call.input as Input, ctx), isError: false };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { output: `Error: ${reason.replace(/^E[A-Z]+: /, "")}`, isError: true };
  }
}
// #endregion dispatch

// #region hygiene
const blocks = (content: MessageParam["content"]): ContentBlockParam[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;

/** What we send must be a valid conversation, whatever happened before (an interrupted turn,
 *  a failed call): every tool_use gets exactly one tool_result with its id — missing ones become
 *  "(cancelled)" — and consecutive turns of the same role are merged into one. */
export function normalizeMessages(messages: MessageParam[]): MessageParam[] {
  const merged: MessageParam[] = [];
  for (const m of messages) {
    const last = merged.at(-1);
    if (last && last.role === m.role)
      last.content = [...blocks(last.content), ...blocks(m.content)];
    else
      merged.push({
        ...m,
        content: typeof m.content === "string" ? m.content : [...m.content],
      } as MessageParam);
  }
  for (let i = 0; i < merged.length; i++) {
    const m = merged[i];
    if (m.role !== "assistant") continue;
    const ids = blocks(m.content).flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    if (ids.length === 0) continue;
    if (merged[i + 1]?.role !== "user") merged.splice(i + 1, 0, { role: "user", content: [] });
    const next = merged[i + 1];
    const existing = blocks(next.content);
    const results = ids.map(
      (id) =>
        (existing.find((b) => b.type === "tool_result" && b.tool_use_id === id) as
          ToolResultBlockParam | undefined) ??
        ({
          type: "tool_result",
          tool_use_id: id,
          content: "(cancelled)",
        } satisfies ToolResultBlockParam),
    );
    const others = existing.filter((b) => b.type !== "tool_result"); // orphans and duplicates are dropped
    next.content = [...results, ...others]; // results first, as the API expects
  }
  return merged;
}
// #endregion hygiene

// #region loop
export async function agentLoop(env: AgentEnv, messages: MessageParam[]): Promise<void> {
  for (;;) {
    const response = await env.model.messages.create({
      model: env.modelId,
      system: SYSTEM,
      messages: normalizeMessages(messages),
      tools: TOOLS,
      max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") return;

    const results: ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { output, isError } = await runTool(BASE_HANDLERS, block, { root: env.workspace });
      env.io.toolResult(block, output, isError);
      results.push({
        type: "tool_result",
        tool_use_id: block.id,
        content: output,
        is_error: isError,
      });
    }
    messages.push({ role: "user", content: results });
  }
}
// #endregion loop

export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  return {
    messages,
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages);
    },
  };
}
