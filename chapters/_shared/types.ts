// Types shared by every chapter. They are thin aliases of the Anthropic SDK's own types,
// so a chapter reads in the vocabulary of the Messages API.
import type Anthropic from "@anthropic-ai/sdk";
import type { EventKind, HarnessEvents } from "./events.ts";
import type { Sandbox } from "./shell.ts";

export type Message = Anthropic.Message;
export type MessageParam = Anthropic.MessageParam;
export type ContentBlock = Anthropic.ContentBlock;
export type ContentBlockParam = Anthropic.ContentBlockParam;
export type Tool = Anthropic.Tool;
export type ToolUseBlock = Anthropic.ToolUseBlock;
export type ToolResultBlockParam = Anthropic.ToolResultBlockParam;
export type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

/** What a streamed answer tells the terminal while it arrives: a thinking block began, the answer
 *  proper began (its first text or tool_use block), a piece of text, a block complete. */
export type StreamEvent =
  | { type: "thinking" }
  | { type: "answer" }
  | { type: "text"; text: string }
  /** A tool call's input is arriving: its tool, and the characters of its JSON so far. */
  | { type: "input"; name: string; characters: number }
  | { type: "block"; block: ContentBlock };

export interface CallOptions {
  signal?: AbortSignal;
  /** Told of the answer as it streams (the real client; the scripted model ignores it). The
   *  call still resolves with the whole Message, as a call without it would. */
  onStream?: (event: StreamEvent) => void;
}

/** The one thing a chapter needs from a model: `messages.create`. A real `new Anthropic()`
 *  satisfies it, and so does the scripted offline model. */
export interface ModelClient {
  messages: { create(body: CreateParams, options?: CallOptions): Promise<Message> };
}

/** What the harness shows and records: the terminal printer and the trace recorder both
 *  implement it. `agent` names who acted ("lead" unless a teammate or child did). */
export interface IO {
  user(text: string, agent?: string): void;
  assistant(message: Message, agent?: string): void;
  /** Awaited before a tool runs: in --step mode it waits for the teacher to press Enter. */
  toolCall(call: ToolUseBlock, agent?: string): Promise<void>;
  toolResult(call: ToolUseBlock, output: string, isError?: boolean, agent?: string): void;
  /** Something the harness did on its own (a reminder injected, history compacted, ...). */
  note(text: string, agent?: string): void;
  /** A structured event for the trace (a mailbox message, a protocol state change, ...): its
   *  kinds and their data are listed in events.ts. */
  event<K extends EventKind>(kind: K, data: HarnessEvents[K], agent?: string): void;
}

/** Everything a chapter's agent gets from the outside world. */
export interface AgentEnv {
  /** The model client for the lead agent. */
  model: ModelClient;
  /** The model client for another agent (a subagent, a teammate), by name. */
  modelFor(agent: string): ModelClient;
  modelId: string;
  /** Absolute path of the scratch folder every tool is confined to. */
  workspace: string;
  /** Where the harness keeps its own state (mailboxes, task board, requests): beside the
   *  workspace, out of reach of the model's tools and commands. */
  stateDir: string;
  /** The sandbox every command of this run starts in (the runner's `--allow-network`,
   *  `--no-sandbox`): handed to the tools, which pass it on. */
  readonly sandbox: Sandbox;
  io: IO;
  /** Asks the person at the keyboard (or the scenario, offline) a question. */
  ask(question: string, choices: string[]): Promise<string>;
}

/** A REPL command a chapter adds, such as /team or /requests. */
export interface AgentCommand {
  help: string;
  /** `args` is the rest of the line after the command name. */
  run(args: string): string | Promise<string>;
}

export interface Agent {
  /** The lead's conversation. The REPL trims it back if a model call fails. */
  messages: MessageParam[];
  /** Handle one user prompt: run the loop until the model stops asking for tools. */
  send(prompt: string): Promise<void>;
  commands?: Record<string, AgentCommand>;
  /** Let background work (teammates, background commands) finish or stop. */
  close?(): Promise<void>;
}

/** What every chapter's agent.ts exports. */
export interface ChapterModule {
  TOOLS: Tool[];
  /** `options`: the chapter's own settings; offline runs pass the scenario's `agentOptions`. */
  createAgent(env: AgentEnv, options?: object): Agent;
}

/** One reply of the scripted model. */
export interface ScriptedReply {
  text?: string;
  calls?: { name: string; input: Record<string, unknown> }[];
  stop_reason?: "end_turn" | "tool_use" | "max_tokens";
  /** Make the call fail like the real API would (s14 uses this to show recovery). */
  error?: { status: number; type: string; message: string; retryAfterSeconds?: number };
}

/** What a scripted turn may look at to decide its reply. */
export interface TurnContext {
  agent: string;
  request: CreateParams;
  /** Text of the most recent tool_result (or "" if none). */
  lastResult(): string;
  /** All tool_result texts in the conversation, oldest first. */
  results(): string[];
}

export type ScriptedTurn = ScriptedReply | ((ctx: TurnContext) => ScriptedReply);

export interface Scenario {
  /** One line for the banner: what this demo shows. */
  summary: string;
  /** Prompts a reader can send (Enter at an empty prompt sends the next one offline). */
  prompts: string[];
  /** The offline model's turns, per agent name ("lead", a teammate's name, "*" for any). */
  script: Record<string, ScriptedTurn[]>;
  /** Answers the scripted run gives when the agent asks the user (s07). */
  answers?: string[];
  /** Settings for the chapter's createAgent in an offline run only (s14: shorter, fixed backoff
   *  waits for its demo). A run against a real API always gets the chapter's defaults. */
  agentOptions?: object;
}
