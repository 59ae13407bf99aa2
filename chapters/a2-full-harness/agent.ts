/**
 * Appendix B · The whole harness
 *
 * Fifteen chapters built fifteen agents, each with one mechanism switched on. This one switches
 * them all on at once, and writes none of them again: every part is imported from the chapter that
 * taught it. What is left to write is the order in which a request meets them:
 *
 *   at the start of a turn   s04 skills are scanned · s08 hooks are loaded (once trusted), and
 *                            the first turn runs the SessionStart hooks
 *   before each model call   s11 finished background jobs are injected · s05 old results cleared,
 *                            the history compacted when too long · s09 the system prompt rebuilt,
 *                            memory included
 *   the model call           s14 retried on overload, compacted when too long, continued at max_tokens
 *   each tool call           s07 the permission gate · s08 PreToolUse · the tool (s02's jail, the
 *                            command sandbox of shell.ts) · s08 PostToolUse
 *   after the tool calls     s03 the todo reminder · s05 a compaction the model asked for ends the turn
 *   at the end of a turn     s11 the turn waits for running jobs · s13 the mail it read is acknowledged
 *
 * The tools hand work to the other parts: s03 todo, s06 a subagent, s10 the task board, s12 lanes
 * (git worktrees), s13 teammates that claim tasks from the board, s15 protocols (shutdown, plan
 * approval). A subagent and the teammates run their chapters' own loops, jailed and sandboxed, and
 * their base tools pass the same gate and rules as the lead's; the hooks are the lead's alone.
 *
 * It works on a repository of your own (`--workspace ~/code/my-app`). What the harness keeps —
 * board, lane index, mailboxes, memory, transcripts, permissions, trust — lives in the state folder
 * beside it (`~/code/my-app.harness/`). In the repository there is only what the model writes and,
 * while a lane is open, its checkout in `.worktrees/` (which git is told to ignore); its commits go
 * to the lane's branch `wt/<name>`, never to yours.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { withPromptCache } from "../_shared/prompt-cache.ts";
import * as s02 from "../s02-tool-use/agent.ts";
import * as s03 from "../s03-todo-write/agent.ts";
import * as s04 from "../s04-skill-loading/agent.ts";
import * as s05 from "../s05-context-compact/agent.ts";
import * as s06 from "../s06-subagent/agent.ts";
import * as s07 from "../s07-permission-system/agent.ts";
import * as s08 from "../s08-hook-system/agent.ts";
import * as s09 from "../s09-memory-system/agent.ts";
import * as s10 from "../s10-task-system/agent.ts";
import * as s11 from "../s11-background-tasks/agent.ts";
import * as s12 from "../s12-worktree-isolation/agent.ts";
import { LEAD } from "../s13-agent-teams/agent.ts";
import type { CallModel, TeamOptions } from "../s13-agent-teams/extension-points.ts";
import * as s14 from "../s14-error-recovery/agent.ts";
import * as s15 from "../s15-team-protocols/agent.ts";
import type {
  Agent,
  AgentEnv,
  ContentBlockParam,
  MessageParam,
  ModelClient,
  Tool,
  ToolUseBlock,
} from "../_shared/types.ts";

// #region tools
/** The chapters' own tool definitions, picked by name: nothing is described twice. */
const pick = (tools: Tool[], ...names: string[]): Tool[] =>
  names.map((name) => tools.find((t) => t.name === name)!);

/** The lead's 26 tools, in the order of the chapters that introduced them. */
export const TOOLS: Tool[] = [
  ...s02.BASE_TOOLS, //                                 s02 bash read write edit glob
  s03.TODO_TOOL, //                                     s03 the plan
  s04.LOAD_SKILL_TOOL, //                               s04 a skill's body, on demand
  s05.COMPACT_TOOL, //                                  s05 compaction, asked for by the model
  ...pick(s06.TOOLS, "task"), //                        s06 a subagent with a fresh context
  ...s09.MEMORY_TOOLS, //                               s09 save_memory
  // s10's board, with s13's task_create (a task may name the lane it runs in)
  ...pick(s15.LEAD_TOOLS, "task_create", "task_get", "task_update", "task_list"),
  ...s11.BACKGROUND_TOOLS, //                           s11 background_run check_background
  ...s12.WORKTREE_TOOLS, //                             s12 worktree_create/list/run/remove
  ...pick(s15.LEAD_TOOLS, "spawn", "send", "inbox"), // s13 the team
  ...pick(s15.LEAD_TOOLS, "request_shutdown", "request_plan", "review_plan"), // s15 protocols
];
// #endregion tools

// #region prompt
const IDENTITY = `You are a coding agent working in a git repository (the workspace), with a team,
a task board and lanes of your own. Act, don't explain what you would do.`;

const HOW = `Plan work of more than two steps with todo (one item in_progress). Load a skill before work
that matches one. Put work that outlives this conversation on the task board (blockedBy for order).
Do a change that should not touch the main checkout in a lane: worktree_create, write under
.worktrees/<name>/, commit with worktree_run, then worktree_remove (its branch keeps the commits).
Start slow commands with background_run; their results arrive by themselves. Use task for a
self-contained question, spawn for a teammate who stays and claims ready tasks from the board.
A permission gate and the user's hooks check every call: a refused call says why; adapt.
When a stretch of work is finished, call compact. When the task is done, say so briefly.`;

/** s09's ordered sections, with the skills of s04, the SessionStart context of s08 and the
 *  permission mode of s07 in them. Rebuilt before every call, so a memory saved in round N is
 *  read in round N+1. */
function systemPrompt(
  env: AgentEnv,
  session: Session,
  perms: s07.Permissions,
  memoryFolder: s09.MemoryFolder,
): string {
  const { index, memories } = s09.loadMemories(memoryFolder.dir);
  const [, rules, memory, environment] = s09.systemSections(env, memoryFolder, index, memories);
  const skills = session.skills.skills.map((s) => `- ${s.name}: ${s.description}`).join("\n");
  return s09.buildSystemPrompt([
    { title: "Identity", body: IDENTITY },
    { title: "How to work", body: HOW },
    rules,
    { title: "Skills (load_skill with the name)", body: skills || "No skills are installed." },
    { title: "From the user's SessionStart hooks", body: session.startContext.join("\n") },
    memory,
    { title: "Permissions", body: `Permission mode: ${perms.mode}.` },
    environment,
  ]);
}
// #endregion prompt

// #region state
/** What one turn works with: read at its start, so a skill or a hooks file written during a turn
 *  is picked up by the next one (the hooks only once a person has trusted them). */
interface Session {
  skills: s04.SkillIndex;
  hooks: s08.HookRunner;
  startContext: string[];
}

/** This appendix's starting policy: default mode, the bookkeeping tools allowed, commands,
 *  subagents, teammates and removing a lane asked about, .env and git push denied. */
export const STARTING_RULES = path.join(import.meta.dirname, "permissions.json");

/** s05 keeps a transcript under its env's workspace. Here that is the state folder, so neither a
 *  transcript nor anything else of the harness's ends up in your repository. */
const stateEnv = (env: AgentEnv): AgentEnv => ({ ...env, workspace: env.stateDir });
// #endregion state

// #region call
/** s07's gate, for any agent: why the call is refused, or null. `tools` are the ones that agent
 *  was offered (the lead's 26, or the base tools), whose schemas a call must fit. */
async function gate(
  env: AgentEnv,
  perms: s07.Permissions,
  call: ToolUseBlock,
  tools: Tool[],
  who = LEAD,
) {
  const refusal = await s07.checkPermission(env, perms, call, tools);
  env.io.event("permission", { tool: call.name, allowed: refusal === null, reason: refusal }, who);
  return refusal === null ? null : `Permission denied: ${refusal}. The tool did not run.`;
}

/** One lead tool call, in the order every call takes: the gate (s07) decides, then the hooks (s08)
 *  wrap the tool itself, which runs jailed (s02) and, for commands, sandboxed (shell.ts). A call
 *  a PreToolUse hook rewrote meets the gate again before it runs. */
async function runCall(
  env: AgentEnv,
  session: Session,
  perms: s07.Permissions,
  handlers: Record<string, s02.ToolHandler>,
  call: ToolUseBlock,
): Promise<{ output: string; isError: boolean }> {
  const refused = await gate(env, perms, call, TOOLS);
  if (refused) return { output: refused, isError: true };
  return s08.runToolWithHooks(
    env,
    session.hooks,
    call,
    handlers,
    { root: env.workspace, sandbox: env.sandbox },
    (rewritten) => gate(env, perms, rewritten, TOOLS),
  );
}

/** A subagent's and a teammate's base tools, behind the same gate and rules: a deny rule cannot
 *  be dodged by delegating. Their questions say who is asking. (Hooks stay the lead's.) */
function guarded(
  env: AgentEnv,
  perms: s07.Permissions,
  who: string,
): Record<string, s02.ToolHandler> {
  const asker = { ...env, ask: (q: string, choices: string[]) => env.ask(`${who}: ${q}`, choices) };
  const guard =
    (name: string, handler: s02.ToolHandler): s02.ToolHandler =>
    async (input, ctx) => {
      const call = { type: "tool_use", id: `${who}_${name}`, name, input } as ToolUseBlock;
      const refused = await gate(asker, perms, call, s02.BASE_TOOLS, who);
      if (refused) throw new Error(refused);
      return handler(input, ctx);
    };
  return Object.fromEntries(Object.entries(s02.BASE_HANDLERS).map(([n, h]) => [n, guard(n, h)]));
}

/** The lead, a subagent and teammates may all want an answer at once: one question at a time. */
function oneQuestionAtATime(env: AgentEnv): AgentEnv {
  let last: Promise<unknown> = Promise.resolve();
  const ask = (question: string, choices: string[]) => {
    const answer = last.then(() => env.ask(question, choices));
    last = answer.catch(() => undefined);
    return answer;
  };
  return { ...env, ask };
}
// #endregion call

// #region cache
/** Every call re-sends the same tools and system prompt, and the history grows at its end only:
 *  the API can cache such a prefix (withPromptCache, _shared/prompt-cache.ts). Every request
 *  the lead and each teammate send carries the marks. */
const promptCached = (client: ModelClient): ModelClient => ({
  messages: { create: (body, options) => client.messages.create(withPromptCache(body), options) },
});
// #endregion cache

// #region loop
interface Parts {
  perms: s07.Permissions;
  planning: s03.Planning;
  jobs: s11.BackgroundJobs;
  handlers: Record<string, s02.ToolHandler>;
  callModel: CallModel;
  memory: s09.MemoryFolder;
  tokenThreshold: number;
}

/** The lead's loop: the loop of s02, with every chapter's step in its place. */
export async function agentLoop(
  env: AgentEnv,
  messages: MessageParam[],
  session: Session,
  parts: Parts,
): Promise<void> {
  const { perms, planning, jobs, handlers, callModel } = parts;
  for (;;) {
    // s11: what finished in the background since the last call, exactly once.
    s11.injectBackgroundResults(env, jobs, messages);
    // s05: old long results become markers; a history over the threshold becomes a summary.
    const cleared = s05.microCompact(messages);
    if (cleared.length)
      env.io.note(`micro-compaction: cleared ${cleared.map((c) => c.tool).join(", ")}`);
    if (s05.estimateTokens(messages) > parts.tokenThreshold && messages.length > 1)
      await s05.compactHistory(stateEnv(env), messages);

    // s14 around the call: backoff on overload, compaction when too long, "continue" at max_tokens.
    const response = await callModel(stateEnv(env), {
      agent: LEAD,
      client: env.model,
      system: systemPrompt(env, session, perms, parts.memory), // s09, rebuilt every call
      tools: TOOLS,
      messages,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") {
      // s11: the turn does not end while a background job's result is still to come.
      if (await s11.turnCanEnd(env, jobs)) return;
      continue;
    }

    const content: ContentBlockParam[] = [];
    let calledTodo = false;
    let compactFocus: string | undefined;
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { output, isError } = await runCall(env, session, perms, handlers, block);
      env.io.toolResult(block, output, isError);
      content.push({
        type: "tool_result",
        tool_use_id: block.id,
        content: output,
        is_error: isError,
      });
      if (block.name === "todo") calledTodo = true;
      if (block.name === "compact" && !isError)
        compactFocus = String((block.input as { focus?: unknown }).focus ?? "");
    }
    // s03: three rounds without touching the plan, and a reminder rides with the results.
    const reminder = s03.reminderDue(planning, calledTodo);
    if (reminder) {
      content.push({ type: "text", text: reminder });
      env.io.note(`reminder injected: ${s03.REMIND_AFTER} rounds without a todo update`);
    }
    messages.push({ role: "user", content });
    // s05: a compaction the model asked for ends the turn; the summary is the last word.
    if (compactFocus !== undefined) {
      await s05.compactHistory(stateEnv(env), messages, compactFocus || undefined);
      return;
    }
  }
}
// #endregion loop

// #region agent
export interface FullOptions extends s14.RecoveryOptions, TeamOptions {
  /** Overrides the mode of the rules file. */
  mode?: s07.Mode;
  /** Auto-compact the lead's history above this many estimated tokens (s05). */
  tokenThreshold?: number;
}

/** The whole harness, with its parts in reach for the REPL's commands and for tests. */
export interface FullAgent extends Agent {
  team: s15.ProtocolAgent["team"];
  requests: s15.PendingRequests;
  planning: s03.Planning;
  jobs: s11.BackgroundJobs;
  perms: s07.Permissions;
}

export function createAgent(outside: AgentEnv, options: FullOptions = {}): FullAgent {
  const env = oneQuestionAtATime(outside);
  // s07: the policy lives in the state folder, out of the model's reach (this appendix's rules
  // the first time).
  mkdirSync(env.stateDir, { recursive: true });
  if (!existsSync(s07.rulesFile(env))) copyFileSync(STARTING_RULES, s07.rulesFile(env));
  const fromFile = s07.loadPermissions(s07.rulesFile(env), (text) => env.io.note(text));
  const perms: s07.Permissions = {
    mode: options.mode ?? fromFile.mode ?? "default",
    allow: fromFile.allow ?? [],
    deny: fromFile.deny ?? [],
  };

  // s14 for every model call, the lead's and each teammate's, sent with the prompt cache's marks;
  // s13's team with s15's protocols, its teammates' base tools behind the gate.
  const recover = s14.resilientCall(options);
  const callModel: CallModel = (e, call) =>
    recover(stateEnv(e), { ...call, client: promptCached(call.client) });
  const crew = s15.createAgent(env, {
    ...options,
    callModel,
    teammates: { handlers: (_team, member) => guarded(env, perms, member.name) },
  });
  const { team, requests } = crew;

  const planning: s03.Planning = { todos: new s03.TodoList(), roundsWithoutTodo: 0 }; // s03
  const jobs = new s11.BackgroundJobs(env.workspace, env.sandbox); // s11
  // s09, beside the repository, out of the file tools' reach: its messages name the full path.
  const memory = s09.memoryFolder(env.workspace, path.join(env.stateDir, "memory"));
  const messages: MessageParam[] = [];
  let session: Session | undefined;

  const lanes = s12.worktreeHandlers(team.lanes, team.board);
  // One dispatch map (s02) for every tool. The team's holds the base tools, s10's board with
  // s13's task_create, spawn/send/inbox and s15's protocol tools; each other chapter adds its own.
  const handlers: Record<string, s02.ToolHandler> = {
    ...team.leadHandlers,
    todo: s03.todoHandler(planning.todos, env.io),
    load_skill: ({ name }, { root }) => s04.loadSkill(root, session!.skills, name),
    compact: () => "Compacting the conversation.",
    task: s06.leadHandlers(env, guarded(env, perms, "subagent")).task,
    ...s09.memoryHandlers(memory),
    ...s11.backgroundHandlers(jobs, env.io),
    ...lanes,
    // The lanes' folder goes with the last lane: a repository without lanes has no .worktrees/.
    async worktree_remove(input, ctx) {
      const removed = await lanes.worktree_remove(input, ctx);
      const dir = team.lanes.dir; // removed only when empty: nothing in it is ever deleted here
      if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
      return removed;
    },
  };

  /** A turn starts by reading the workspace: skills (s04), hooks (s08, trusted by hash), and, once
   *  per session, the SessionStart hooks' context. */
  async function startTurn(): Promise<Session> {
    const skills = s04.scanSkills(env.workspace);
    for (const p of skills.problems) env.io.note(`skill skipped: ${p.folder}: ${p.reason}`);
    const hooks = s08.createHookRunner(env, await s08.trustedHooks(env, {}));
    const startContext = session
      ? session.startContext
      : (await hooks.fire("SessionStart", {})).context;
    return { skills, hooks, startContext };
  }

  const parts: Parts = {
    perms,
    planning,
    jobs,
    handlers,
    callModel,
    memory,
    tokenThreshold: options.tokenThreshold ?? s05.TOKEN_THRESHOLD,
  };
  return {
    messages,
    team,
    requests,
    planning,
    jobs,
    perms,
    async send(prompt) {
      session = await startTurn();
      messages.push({ role: "user", content: prompt });
      try {
        await agentLoop(env, messages, session, parts);
      } catch (err) {
        team.bus.putBack(LEAD); // the REPL drops a failed turn: the mail it read comes back (s13)
        throw err;
      }
      team.bus.acknowledge(LEAD);
    },
    commands: {
      ...crew.commands, // /team /inbox /requests
      "/todos": { help: "the model's plan (s03)", run: () => planning.todos.render() },
      "/tokens": {
        help: "the history's estimated size (s05)",
        run: () => `~${s05.estimateTokens(messages)} tokens in ${messages.length} messages`,
      },
      "/tasks": { help: "the task board (s10)", run: () => s10.renderBoard(team.board.list()) },
      "/jobs": { help: "background commands (s11)", run: () => s11.listJobs(jobs) },
      "/memory": {
        help: "the memory index (s09)",
        run: () => s09.loadMemories(memory.dir).index || "(no memories yet)",
      },
      "/lanes": {
        help: "the worktree lanes (s12)",
        run: () => handlers.worktree_list({}, { root: env.workspace, sandbox: env.sandbox }),
      },
    },
    async close() {
      s11.noteWarnings(env, await jobs.close());
      await crew.close?.();
    },
  };
}
// #endregion agent
