/**
 * s02 · Tool use
 *
 * One tool is not enough, and a bigger toolbox needs three things:
 *   1. a dispatch map from tool name to handler, so adding a tool is one entry, not a new if;
 *   2. a workspace jail, so file tools can never touch anything outside the workspace (the idea
 *      is safePath here; the hardening against races and tricks is in _shared/jail.ts);
 *   3. message hygiene, so the history we send is always one the API accepts.
 * The loop itself is the loop of s01, with its parts (prompt, tools, how a call runs) passed in,
 * so a later chapter that changes only those imports this loop instead of writing its own.
 */
import { closeSync, ftruncateSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { bash } from "../s01-agent-loop/agent.ts";
import {
  type Approved,
  type OpenMode,
  followLinks,
  isInside,
  jailRoot,
  listApprovedFolder,
  listInside,
  MAX_LIST_DEPTH,
  openApproved,
  plainPath,
  readApproved,
  writeApproved,
} from "../_shared/jail.ts";
import { inputProblem } from "../_shared/schema.ts";
import type { Sandbox } from "../_shared/shell.ts";
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
/** Every path a file tool touches goes through here, before anything is read or written. The
 *  idea in two checks: the path, resolved against the workspace, must be inside it (no `..`, no
 *  absolute path elsewhere); and it must still be inside once its symlinks are followed (a link
 *  that stays inside is fine, one that leads outside is not). The fine print (NUL bytes, `~`,
 *  dangling links, a workspace swapped for a link) is in _shared/jail.ts. */
export function safePath(root: string, requested: unknown): string {
  const workspace = jailRoot(root);
  const full = path.resolve(workspace, plainPath(requested));
  if (!isInside(workspace, full)) throw new Error(`path escapes the workspace: ${requested}`);
  const real = followLinks(full, String(requested));
  if (!isInside(workspace, real))
    throw new Error(`path escapes the workspace through a symlink: ${requested}`);
  return real;
}

/* A check is not enough: between safePath saying yes and the tool opening the file, another
 * process can swap a folder on the path for a symlink to /etc. So the file tools open what
 * safePath approved race-free, one path part at a time inside the folder already open
 * (_shared/jail.ts explains how). These are the doors every file tool, here and later, goes
 * through. */
const approve = (root: string, requested: unknown): Approved => ({
  requested: String(requested),
  real: safePath(root, requested),
});

/** Opens a file inside the workspace for `mode`: its fd, which the caller closes. */
export const openInside = (
  root: string,
  requested: unknown,
  mode: OpenMode,
  options?: { intoGit?: boolean },
) => openApproved(root, approve(root, requested), mode, options);

/** The whole text of a file inside the workspace. */
export const readInside = (root: string, requested: unknown) =>
  readApproved(root, approve(root, requested));

/** Creates or replaces a file inside the workspace (parent folders are created). */
export const writeInside = (
  root: string,
  requested: unknown,
  text: string,
  options?: { intoGit?: boolean },
) => writeApproved(root, approve(root, requested), text, options);

/** The entries of one folder inside the workspace; `[]` when it does not exist. */
export const listFolderInside = (root: string, folder: string) =>
  listApprovedFolder(root, approve(root, folder));

export { listInside, MAX_LIST_DEPTH };
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
  /** The run's sandbox, which every command starts in (the runner's choice, from env.sandbox). */
  sandbox: Sandbox;
  /** Folders its commands may also write (s12: a lane's repository history), named by the harness. */
  writable?: string[];
}
type Input = Record<string, unknown>;
/** A handler returns the text of its result, or throws: the error becomes an error result. */
export type ToolHandler = (input: Input, ctx: ToolContext) => string | Promise<string>;

const MAX_READ = 50_000;
const MAX_GLOB = 1_000;

export const BASE_HANDLERS: Record<string, ToolHandler> = {
  async bash({ command }, { root, sandbox, writable }) {
    const { output, isError } = await bash(String(command), root, sandbox, { writable });
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
/** What one tool call comes to: the text of its tool_result, and whether it is an error. */
export interface ToolOutcome {
  output: string;
  isError: boolean;
}

/** Name → handler. An unknown name, an input its tool's schema does not describe (a field it
 *  does not declare, a list where text goes) or a thrown error becomes an error result; the loop
 *  goes on. `tools` are the schemas the model was offered: a chapter with tools of its own passes
 *  its list, so those are checked too. */
export async function runTool(
  handlers: Record<string, ToolHandler>,
  call: ToolUseBlock,
  ctx: ToolContext,
  tools: Tool[] = BASE_TOOLS,
): Promise<ToolOutcome> {
  // Its own handlers only: a name every object inherits ("constructor", "__proto__") is unknown.
  const handler = Object.hasOwn(handlers, call.name) ? handlers[call.name] : undefined;
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

/** What a chapter may change about the loop. The loop itself stays this one. */
export interface LoopParts {
  /** The system prompt, or a function that builds it for each request (s09 rebuilds it). */
  system: string | (() => string);
  /** The tools the model is offered; each call's input is checked against their schemas. */
  tools: Tool[];
  /** Name → handler for those tools (by default the base tools'). */
  handlers?: Record<string, ToolHandler>;
  /** How one call runs (s07 gates it, s08 wraps it in hooks); by default its handler runs. */
  runCall?: (call: ToolUseBlock) => Promise<ToolOutcome>;
}

// #region loop
export async function agentLoop(
  env: AgentEnv,
  messages: MessageParam[],
  {
    system,
    tools,
    handlers = BASE_HANDLERS,
    runCall = (call) =>
      runTool(handlers, call, { root: env.workspace, sandbox: env.sandbox }, tools),
  }: LoopParts,
): Promise<void> {
  for (;;) {
    const response = await env.model.messages.create({
      model: env.modelId,
      system: typeof system === "string" ? system : system(),
      messages: normalizeMessages(messages),
      tools,
      max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") return;

    const results: ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { output, isError } = await runCall(block);
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

// #region agent
export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  return {
    messages,
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, { system: SYSTEM, tools: TOOLS, handlers: BASE_HANDLERS });
    },
  };
}
// #endregion agent
