/**
 * Appendix A · MCP tool servers
 *
 * Every tool so far is a function inside the harness. The Model Context Protocol (MCP) lets a
 * tool live in another program: a server process that answers `tools/list` and `tools/call` as
 * JSON-RPC messages on its stdin and stdout. Anyone can write one, in any language, and every
 * harness that speaks MCP can use it. This harness, built on the permission gate of s07:
 *   1. config    — reads the workspace's .mcp.json: { "mcpServers": { name: { command, args, env } } };
 *   2. connect   — starts each server in the command sandbox and says hello (the SDK's Client);
 *   3. list      — asks each server for its tools;
 *   4. namespace — offers them to the model as mcp__<server>__<tool>, beside the base tools;
 *   5. dispatch  — a call passes s07's gate, then goes to its server, with a timeout;
 *   6. stop      — every server ends with the harness.
 * A server is somebody else's program: each way it can fail becomes one sentence, and the agent
 * goes on.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode, McpError, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import * as s02 from "../s02-tool-use/agent.ts";
import * as s07 from "../s07-permission-system/agent.ts";
import { readJson, writeJsonAtomic } from "../_shared/fsutil.ts";
import { gitChangeWarning, gitWatch } from "../_shared/git-guard.ts";
import { REPO_ROOT } from "../_shared/paths.ts";
import { ownProgram } from "../_shared/programs.ts";
import {
  bwrapArgs,
  bwrapProgram,
  commandEnv,
  sandboxStatus,
  type Sandbox,
} from "../_shared/shell.ts";
import { argvScripts, fingerprint, scriptWords, wordStates } from "../_shared/trust.ts";
import { oneLine } from "../_shared/visible.js";
import type { Agent, AgentEnv, MessageParam, Tool } from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Besides the file and shell
tools, tools named mcp__<server>__<tool> are served by MCP servers the user configured. A
permission gate checks every tool call; a refused or failed call comes back as an error that says
why. Do not retry it unchanged: adapt, or explain what you need. When the task is done, say so.`;

/** The tools every session starts with; its servers' tools join them when it starts. */
export const TOOLS: Tool[] = s02.BASE_TOOLS;

// #region config
export const CONFIG_FILE = ".mcp.json";
export type ServerConfig = { command: string; args: string[]; env: Record<string, string> };

/** A server's name becomes part of tool names: letters, digits, `-` and single `_` inside, so
 *  the `__` on each side of it always marks where it starts and ends. */
const SERVER_NAME = /^[a-zA-Z0-9-]+(_[a-zA-Z0-9-]+)*$/;
const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === "string");
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A file of the wrong shape throws one sentence. A wrong server entry is only left out, with a
 *  problem that says why: the other servers still start. */
export function parseConfig(text: string) {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`it is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(data) || !isObject(data.mcpServers))
    throw new Error(`it needs "mcpServers": { "<name>": { "command": "...", "args": [...] } }`);
  const servers: Record<string, ServerConfig> = {};
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(data.mcpServers)) {
    const { command, args = [], env = {} } = isObject(entry) ? entry : {};
    const why = !SERVER_NAME.test(name)
      ? "a server name may hold only letters, digits, - and single _ inside"
      : typeof command !== "string" || command === ""
        ? `"command" must be a non-empty string`
        : !strings(args)
          ? `"args" must be a list of strings`
          : !isObject(env) || !strings(Object.values(env))
            ? `"env" must map names to strings`
            : undefined;
    if (why) problems.push(`MCP server "${name}" is left out: ${why}`);
    else servers[name] = { command, args, env } as ServerConfig;
  }
  return { servers, problems };
}

/** The workspace files a server's start runs: those its command, args and env name, and its
 *  command as the config's own PATH would find it inside the workspace (`"PATH": "bin:…"`). */
function serverScripts(server: ServerConfig): string[] {
  const dirs = server.env.PATH === undefined ? [] : server.env.PATH.split(":");
  return [
    ...[server.command, ...server.args, ...Object.values(server.env)].flatMap(scriptWords),
    ...argvScripts([server.command, ...server.args]), // `node server`: a script with no `/`
    // Node resolves a package's import of its own name through package.json before node_modules:
    // a package.json the model writes could turn `import "zod"` into a file of its own.
    "package.json",
    ...(server.command.includes("/") ? [] : dirs.map((d) => path.join(d || ".", server.command))),
  ];
}

/** One word of a command line as a person should read it: plain, or quoted when it holds
 *  anything else, with control characters escaped. */
const shown = (word: string) =>
  oneLine(/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word));

/** A config is commands that came with the folder (or that the model wrote). As with s08's
 *  hooks, none runs before a person says yes to this exact file and the scripts it runs; the yes
 *  is kept by their fingerprint in the state folder, out of the model's reach. */
async function trusted(env: AgentEnv, text: string, servers: Record<string, ServerConfig>) {
  const file = path.join(env.stateDir, "trusted-mcp.json");
  const scripts = wordStates(s02, env.workspace, Object.values(servers).flatMap(serverScripts));
  const hash = fingerprint(text, scripts);
  const known = existsSync(file) ? (readJson<{ sha256?: string[] }>(file).sha256 ?? []) : [];
  if (known.includes(hash)) return true;
  // The question shows all the file asks for, its env too: NODE_OPTIONS alone can run any code.
  // Shown visibly: a value with ESC[2K or a carriage return must not erase itself from the line,
  // and one with spaces is quoted, so it cannot pass for the command that follows it.
  const commands = Object.entries(servers).map(([name, s]) => {
    const vars = Object.entries(s.env).map(([key, value]) => `${shown(key)}=${shown(value)}`);
    return `${name}: ${[...vars, ...[s.command, ...s.args].map(shown)].join(" ")}`;
  });
  const answer = await env.ask(
    `This workspace's ${CONFIG_FILE} starts ${commands.join("; ")}. Start its MCP servers? ` +
      "(yes is remembered until the file or the scripts it names change)",
    ["yes", "no"],
  );
  if (!/^y/i.test(answer)) return false;
  writeJsonAtomic(file, { sha256: [...known, hash] });
  return true;
}
// #endregion config

// #region connect
/** One server as the harness holds it: its client, its tools, and why it stopped, once it has. */
export interface Connection {
  name: string;
  client: Client;
  pid?: number;
  tools: McpTool[];
  stopped?: string;
  /** The line of its stderr that most looks like a reason (for the sentences below). */
  lastWords(): string;
  stop(): Promise<void>;
}

/** The server runs where the bash tool's commands run: in bubblewrap, writing only in the
 *  workspace, with the allow-listed environment (plus the config's `env`), so no secrets. The
 *  config's env is set by bubblewrap inside the sandbox (`--setenv`), never on setsid or bwrap
 *  themselves: `LD_PRELOAD` there would load a workspace library into programs that run
 *  outside the sandbox. */
function commandLine(config: ServerConfig, workspace: string, sandbox: Sandbox) {
  const run = [config.command, ...config.args];
  let env = { ...commandEnv(), ...config.env };
  if (sandboxStatus(sandbox).kind === "bubblewrap") {
    // The sandbox hides this repository, and with it the SDK a server imports. Node looks for
    // packages beside the server first, so the SDK's folder is shown there, read-only.
    // (Only a real folder is looked into: a symlink or a FIFO there gets no mount.)
    const own = path.join(workspace, "node_modules");
    const found = lstatSync(own, { throwIfNoEntry: false });
    const empty = !found || (found.isDirectory() && readdirSync(own).length === 0);
    const mods = empty ? ["--ro-bind", path.join(REPO_ROOT, "node_modules"), own] : [];
    const setenv = Object.entries(config.env).flatMap(([key, value]) => ["--setenv", key, value]);
    run.unshift(
      bwrapProgram([workspace]),
      ...bwrapArgs(sandbox, workspace, []),
      ...mods,
      ...setenv,
      "--",
    );
    env = commandEnv();
  }
  // Its own process group: a Ctrl-C meant for the turn does not reach it, one kill ends all of it.
  // (setsid and bwrap are the harness's own, never found on the config's PATH: see ownProgram.)
  if (process.platform === "linux") run.unshift(ownProgram("setsid", workspace));
  const [command, ...args] = run;
  return { command, args, env: env as Record<string, string> };
}

/** Most MCP documentation starts a server with `npx -y <package>`, which downloads it first; in
 *  the sandbox there is no network, so say why such a start fails, and what to do instead. */
function downloadHint(config: ServerConfig, sandbox: Sandbox): string {
  const downloader = ["npx", "bunx", "pnpx", "uvx"].includes(path.basename(config.command));
  if (!downloader || sandboxStatus(sandbox).kind !== "bubblewrap" || sandbox.network) return "";
  return `. ${path.basename(config.command)} downloads the server, and the sandbox has no network: install it in the workspace (npm install <package>, then run it with node), or start the harness with --allow-network`;
}

/** The process groups of the servers still running. Whatever way the harness ends (q, a signal,
 *  an uncaught error: every way but SIGKILL), the last thing it does is SIGKILL them: a server
 *  that outlived its stop() (or was never stopped) is not left behind with parent 1. */
const runningGroups = new Set<number>();
let sweepOnExit = false;
function endsWithTheHarness(pid: number) {
  runningGroups.add(pid);
  if (sweepOnExit) return;
  sweepOnExit = true;
  process.once("exit", () => {
    for (const group of runningGroups) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // gone already
      }
    }
  });
}

export async function connect(
  env: AgentEnv,
  name: string,
  config: ServerConfig,
  timeoutMs: number,
) {
  const transport = new StdioClientTransport({
    ...commandLine(config, env.workspace, env.sandbox),
    cwd: env.workspace,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const client = new Client({ name: "learn-agent-harness", version: "1.0.0" });
  const conn: Connection = {
    name,
    client,
    tools: [],
    lastWords() {
      const lines = stderr.split("\n").map((l) => l.trim());
      const told = lines.filter((l) => l && !l.startsWith("at ") && !/^Node\.js v\d/.test(l));
      return (told.findLast((l) => /\berror\b/i.test(l)) ?? told.at(-1) ?? "").slice(0, 300);
    },
    async stop() {
      conn.stopped ??= "stopped by the harness";
      // The spec's way: close its stdin (client.close() does), then SIGTERM, then SIGKILL, to the
      // whole group. Both fall due well inside the 2 s a harness that is shutting down waits
      // (repl.ts), so a server that ignores SIGTERM is killed before the harness exits.
      const term = setTimeout(() => signalGroup("SIGTERM"), 500);
      const kill = setTimeout(() => signalGroup("SIGKILL"), 1_500);
      await client.close().catch(() => {});
      clearTimeout(term);
      clearTimeout(kill);
    },
  };
  // Whatever it left running goes with it: its process group ends when it does.
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (conn.pid) process.kill(-conn.pid, signal);
    } catch {
      // gone already (or, without setsid, no group of its own: client.close() ends it)
    }
  };
  const killGroup = () => signalGroup("SIGKILL");
  client.onclose = () => {
    conn.stopped ??= `it exited${conn.lastWords() ? `: ${conn.lastWords()}` : ""}`;
    killGroup();
    if (conn.pid) runningGroups.delete(conn.pid);
  };
  try {
    await client.connect(transport, { timeout: timeoutMs }); // spawn, then initialize
    conn.pid = transport.pid ?? undefined;
    if (conn.pid) endsWithTheHarness(conn.pid);
    conn.tools = (await client.listTools({}, { timeout: timeoutMs })).tools; // the first page
  } catch (err) {
    conn.pid ??= transport.pid ?? undefined;
    await conn.stop(); // it may be running, just not answering
    const timedOut = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
    const why = timedOut ? `it did not answer within ${timeoutMs / 1000} s` : conn.lastWords();
    throw new Error(
      `MCP server "${name}" failed to start: ${why || (err as Error).message}${downloadHint(config, env.sandbox)}`,
    );
  }
  return conn;
}
// #endregion connect

// #region namespace
/** The API's rule for a tool name. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A server's tool as the model sees it: `mcp__<server>__<tool>`. */
export const mcpToolName = (server: string, tool: string) => `mcp__${server}__${tool}`;

/** mcpToolName read back: the server and the tool of a name, or undefined for a tool of no server.
 *  (A server's name has no "__" in it: see SERVER_NAME.) */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  const m = /^mcp__(.+?)__(.+)$/.exec(name);
  return m ? { server: m[1], tool: m[2] } : undefined;
}

/** Each server's tools as the model sees them: `mcp__<server>__<tool>`, so two servers may both
 *  offer `search`, and a rule can name one server's tools (`mcp__notes__*`). A name the API would
 *  refuse, or one already taken, is left out with a sentence: the model never sees a tool it
 *  cannot call. */
export function namespace(
  servers: Connection[],
  note: (text: string) => void,
  timeoutMs: number,
): { tools: Tool[]; handlers: Record<string, s02.ToolHandler> } {
  const tools: Tool[] = [...s02.BASE_TOOLS];
  const handlers: Record<string, s02.ToolHandler> = { ...s02.BASE_HANDLERS };
  for (const conn of servers) {
    for (const tool of conn.tools) {
      const name = mcpToolName(conn.name, tool.name);
      const why = handlers[name]
        ? `the name ${name} is taken already`
        : !TOOL_NAME.test(name) &&
          `"${name}" is not a valid tool name (1–64 letters, digits, _ or -)`;
      if (why) {
        note(`MCP tool "${tool.name}" of server "${conn.name}" is left out: ${why}`);
        continue;
      }
      const description = `(MCP server "${conn.name}") ${tool.description ?? ""}`.trim();
      tools.push({ name, description, input_schema: tool.inputSchema as Tool["input_schema"] });
      handlers[name] = (input) => callTool(conn, tool.name, input, timeoutMs);
    }
  }
  return { tools, handlers };
}
// #endregion namespace

// #region dispatch
/** Sends one call to its server. Whatever goes wrong is thrown as one sentence, which the loop's
 *  runTool turns into an error result: the model reads it, and the turn goes on. */
export async function callTool(
  conn: Connection,
  tool: string,
  input: Record<string, unknown>,
  timeoutMs: number,
): Promise<string> {
  if (conn.stopped) throw new Error(`MCP server "${conn.name}" is not running (${conn.stopped})`);
  let result;
  try {
    result = await conn.client.callTool({ name: tool, arguments: input }, undefined, {
      timeout: timeoutMs,
    });
  } catch (err) {
    const code = err instanceof McpError ? err.code : undefined;
    const why =
      code === ErrorCode.RequestTimeout
        ? `did not answer ${tool} within ${timeoutMs / 1000} s; the call was abandoned`
        : conn.stopped || code === ErrorCode.ConnectionClosed
          ? `stopped during ${tool} (${conn.stopped ?? "connection closed"}); its tools are gone for this session`
          : err instanceof McpError
            ? `refused ${tool}: ${err.message.replace(/^MCP error -?\d+: /, "")}`
            : Array.isArray((err as { issues?: unknown }).issues) // the SDK's schema check
              ? `sent a malformed result for ${tool} (not an MCP tool result); it was ignored`
              : `failed on ${tool}: ${(err as Error).message}`;
    throw new Error(`MCP server "${conn.name}" ${why}`);
  }
  // Text is passed on; anything else (an image, a resource) is named, not inlined.
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map((b) => (b.type === "text" ? b.text : `[${b.type} omitted]`));
  if (!parts.length && result.structuredContent)
    parts.push(JSON.stringify(result.structuredContent));
  let text = parts.join("\n") || "(no output)";
  if (text.length > 50_000) text = `${text.slice(0, 50_000)}\n… (truncated)`;
  if (result.isError) throw new Error(text);
  return text;
}
// #endregion dispatch

// #region session
export interface McpOptions extends s07.PermissionOptions {
  /** Start the config's servers without asking (tests, or a harness that asked already). */
  trusted?: boolean;
  /** How long one tool call may take (default 30 s), and a server's start (default 10 s). */
  callTimeoutMs?: number;
  startTimeoutMs?: number;
}

/** The policy a new workspace starts with: the notes tools allowed, deleting a note denied, and
 *  the file tools kept off what the notes server reads and runs (else a rewrite deletes too). */
export const STARTING_RULES = path.join(import.meta.dirname, "permissions.json");

/** s07's rules name one tool, and a server brings many: here a rule's tool may end in `*`.
 *  Once the tools are known, such a rule becomes one rule per tool it names. */
const expand = (rules: s07.Rule[], tools: Tool[]) =>
  rules.flatMap((rule) =>
    rule.tool !== "*" && rule.tool.endsWith("*")
      ? tools
          .filter((t) => t.name.startsWith(rule.tool.slice(0, -1)))
          .map((t) => ({ ...rule, tool: t.name }))
      : [rule],
  );

async function startServers(env: AgentEnv, options: McpOptions): Promise<Connection[]> {
  if (!existsSync(path.join(env.workspace, CONFIG_FILE))) return [];
  let text, config;
  try {
    text = s02.readInside(env.workspace, CONFIG_FILE);
    config = parseConfig(text);
  } catch (err) {
    env.io.note(`${CONFIG_FILE} is not usable: ${(err as Error).message}; no MCP servers`);
    return [];
  }
  config.problems.forEach((problem) => env.io.note(problem));
  const { servers } = config;
  if (!Object.keys(servers).length) return [];
  if (!options.trusted && !(await trusted(env, text, servers))) {
    env.io.note(`MCP servers not started: you did not trust this ${CONFIG_FILE}`);
    return [];
  }
  const timeout = options.startTimeoutMs ?? 10_000;
  const started = await Promise.allSettled(
    Object.entries(servers).map(([name, server]) => connect(env, name, server, timeout)),
  );
  for (const outcome of started) {
    if (outcome.status === "rejected") env.io.note((outcome.reason as Error).message);
    else {
      // (Its pid is for /mcp, not the trace: a recorded run must read the same every time.)
      const { name, tools } = outcome.value;
      const names = tools.map((t) => t.name);
      env.io.note(`MCP server "${name}" is running: ${names.join(", ") || "no tools"}`);
      const offered = Object.fromEntries(names.map((tool) => [mcpToolName(name, tool), tool]));
      env.io.event("mcp_server", { server: name, tools: names, offered });
    }
  }
  return started.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
}

export function createAgent(env: AgentEnv, options: McpOptions = {}): Agent {
  // This appendix's starting policy, unless the workspace has a rules file already.
  if (!existsSync(s07.rulesFile(env))) {
    mkdirSync(env.stateDir, { recursive: true });
    copyFileSync(STARTING_RULES, s07.rulesFile(env));
  }
  const fromFile = s07.loadPermissions(s07.rulesFile(env), (text) => env.io.note(text));
  const perms: s07.Permissions = {
    mode: options.mode ?? fromFile.mode ?? "default",
    allow: [...(fromFile.allow ?? []), ...(options.allow ?? [])],
    deny: [...(fromFile.deny ?? []), ...(options.deny ?? [])],
  };
  const messages: MessageParam[] = [];
  let servers: Connection[] = [];
  // A server writes in the workspace whenever it likes, not only during its calls: what it
  // changes in what git runs is named like a command's (shell.ts), during a call in its result,
  // otherwise as a note at the next look (before a call, or as the session closes).
  let gitLook: ReturnType<typeof gitWatch> | undefined;
  const noteGitChanges = (when: string) => {
    const changed = gitLook?.changes() ?? [];
    if (changed.length) env.io.note(gitChangeWarning(`an MCP server (${when})`, changed));
  };

  // The servers start with the first prompt (or /mcp), once per session. A start that threw
  // (a broken state file, say) is tried again next time.
  let session: ReturnType<typeof start> | undefined;
  async function start() {
    gitLook = gitWatch(env.workspace);
    servers = await startServers(env, options);
    noteGitChanges("as it started");
    const tools = namespace(servers, (t) => env.io.note(t), options.callTimeoutMs ?? 30_000);
    perms.allow = expand(perms.allow, tools.tools);
    perms.deny = expand(perms.deny, tools.tools);
    return tools;
  }
  const ready = () =>
    (session ??= start().catch((err) => {
      session = undefined;
      throw err;
    }));

  return {
    messages,
    async send(prompt) {
      const { tools, handlers } = await ready();
      messages.push({ role: "user", content: prompt });
      // s02's loop with s07's gate. An MCP tool passes the same gate as a base tool: its server is
      // not asked what is allowed. Its input must fit the schema its server declared; it has no
      // subject (s07), so a rule names the tool and the question shows the whole input.
      await s02.agentLoop(env, messages, {
        system: () => `${SYSTEM}\n\nPermission mode: ${perms.mode}.`,
        tools,
        runCall: async (call) => {
          noteGitChanges("between tool calls");
          const outcome = await s07.runGated(env, perms, call, tools, handlers);
          // A command's own changes are named by shell.ts. What changed during any other call
          // is named here: a server's call's, or a server's write that fell in another tool's.
          const changed = gitLook?.changes() ?? [];
          if (!changed.length || call.name === "bash") return outcome;
          const server = parseMcpToolName(call.name)?.server;
          const who = server
            ? `MCP server "${server}" (during this call)`
            : `an MCP server (during this ${call.name} call)`;
          return { ...outcome, output: `${outcome.output}\n${gitChangeWarning(who, changed)}` };
        },
      });
    },
    commands: {
      "/mcp": {
        help: `list the MCP servers of ${CONFIG_FILE}: pid, state and tools`,
        run: async () => {
          const { tools } = await ready();
          const mcp = tools.filter((t) => t.name.startsWith("mcp__")).map((t) => t.name);
          const lines = servers.map((s) => `${s.name} (pid ${s.pid}): ${s.stopped ?? "running"}`);
          return [...lines, `tools: ${mcp.join(", ") || "(none)"}`].join("\n");
        },
      },
    },
    // The REPL calls this on q, Ctrl-D, Ctrl-C and SIGTERM/SIGHUP. If the harness dies without
    // it, bubblewrap's --die-with-parent takes a sandboxed server down with it.
    async close() {
      await session?.catch(() => {});
      await Promise.all(servers.map((server) => server.stop()));
      noteGitChanges("before it stopped");
    },
  };
}
// #endregion session
