// How a run is shown and remembered: a terminal printer and a trace recorder behind one IO.
import pc from "picocolors";
import { InterruptedError, turnSignal, unlessInterrupted } from "./interrupt.ts";
import type { CreateParams, Message, ModelClient, ToolUseBlock } from "../_shared/types.ts";
import { StepKeys, type StepNotes } from "./notes.ts";
import { clip as clipTo, systemText } from "./text.ts";
import type { Recorder, TokenUsage, TraceEvent } from "./trace.ts";
import { estimateTokens } from "../s05-context-compact/agent.ts";
import { oneLine, visible } from "../_shared/visible.js";

export interface IOOptions {
  /** Print to this stream (omit for a silent recorder, as in tests). */
  stream?: NodeJS.WritableStream;
  color?: boolean;
  /** Called before each tool runs; resolves when the run may go on (--step). */
  pause?: (what: string) => Promise<void>;
  /** The scenario's step notes (offline, with --step or --demo): each is printed after its step. */
  notes?: StepNotes;
  /** Whether the model's token counts are real (a real API, or a fake one): only then does a
   *  response step carry its `usage`. */
  realUsage?: boolean;
  /** Told of every step as it is recorded (--record writes it to the file then). */
  onStep?: (step: TraceEvent) => void;
}

/** What the terminal shows of a long text (the trace keeps all of it). */
const clip = (text: string, lines = 12, chars = 800) => clipTo(text, lines, chars);
const indent = (text: string, pad: string) =>
  text
    .split("\n")
    .map((l) => pad + l)
    .join("\n");
/** Lines after the first start indented: the left edge of the screen is the harness's own (its
 *  questions start there), so no line of the model's text can pass for one of them. */
const hanging = (text: string, pad = "  ") => text.replaceAll("\n", `\n${pad}`);

/** Prints a run and records its trace. What the model, its commands, files and servers wrote is
 *  printed through `visible` (their control characters shown, not obeyed); the trace keeps it
 *  as it was. */
export function createIO({
  stream,
  color = false,
  pause,
  notes,
  realUsage = false,
  onStep,
}: IOOptions = {}): Recorder {
  const c = pc.createColors(color);
  const trace: TraceEvent[] = [];
  const who = (agent: string) => (agent === "lead" ? "" : c.magenta(`[${oneLine(agent)}] `));
  const print = (text: string) => stream?.write(`${text}\n`);
  // The same keys the site's player uses, counted as the run happens.
  const keys = new StepKeys();
  const teach = (step: TraceEvent) => {
    if (!notes) return;
    const names = keys.keysOf(step);
    const phase = names.map((k) => notes.phases[k]).find(Boolean);
    const note = names.map((k) => notes.notes[k]).find(Boolean);
    if (phase) print(c.bold(`\n── ${phase} ──`));
    if (note) print(c.italic(c.dim(indent(note.trim(), "  │ "))));
  };
  const keep = (step: TraceEvent) => {
    trace.push(step);
    onStep?.(step);
  };
  const record = (step: TraceEvent) => {
    keep(step);
    teach(step);
  };

  return {
    trace,
    step: keep,
    user(text, agent = "lead") {
      record({ kind: "user", agent, text });
    },
    assistant(message: Message, agent = "lead") {
      const text = message.content
        .flatMap((b) => (b.type === "text" ? [b.text] : []))
        .join("\n")
        .trim();
      const calls = message.content.flatMap((b) => (b.type === "tool_use" ? [b.name] : []));
      const usage = realUsage ? tokenUsage(message.usage) : undefined;
      keep({
        kind: "response",
        agent,
        stop_reason: message.stop_reason,
        text,
        calls,
        ...(usage && { usage }),
      });
      if (text) print(`${who(agent)}${c.cyan("assistant ›")} ${hanging(visible(text))}`);
      teach(trace.at(-1)!);
    },
    async toolCall(call: ToolUseBlock, agent = "lead") {
      keep({ kind: "tool_call", agent, id: call.id, name: call.name, input: call.input });
      print(
        `${who(agent)}${c.yellow(`  ⚙ ${oneLine(call.name)}`)} ${c.dim(oneLine(clip(JSON.stringify(call.input), 1, 200)))}`,
      );
      await pause?.(`run ${call.name}`);
    },
    toolResult(call: ToolUseBlock, output: string, isError = false, agent = "lead") {
      keep({
        kind: "tool_result",
        agent,
        id: call.id,
        name: call.name,
        output,
        is_error: isError,
      });
      const body = indent(visible(clip(output || "(empty)")), "      ");
      print(
        `${who(agent)}${isError ? c.red("    ✗ error") : c.green("    ↳ result")}\n${isError ? c.red(body) : c.dim(body)}`,
      );
    },
    note(text: string, agent = "lead") {
      keep({ kind: "note", agent, text });
      print(`${who(agent)}${c.blue(`  ◆ ${hanging(visible(text), "    ")}`)}`);
      teach(trace.at(-1)!);
    },
    event(type, data, agent = "lead") {
      record({ kind: "event", agent, type, data } as TraceEvent);
    },
  };
}

/** The counts a trace keeps of a message's `usage` (the API sends more: service tier, ...). */
function tokenUsage(usage: Message["usage"] | undefined): TokenUsage | undefined {
  if (!usage || typeof usage.input_tokens !== "number") return undefined;
  const counts: TokenUsage = {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens ?? 0,
  };
  if (usage.cache_read_input_tokens) counts.cache_read_input_tokens = usage.cache_read_input_tokens;
  if (usage.cache_creation_input_tokens)
    counts.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  return counts;
}

/** Wraps a model client so every request lands in the trace (and can pause under --step). */
export function recordModel(
  client: ModelClient,
  agent: string,
  io: Recorder,
  pause?: (what: string) => Promise<void>,
): ModelClient {
  return {
    messages: {
      async create(body: CreateParams) {
        const tools = (body.tools ?? []).map((t) => ("name" in t ? t.name : "?"));
        const system = systemText(body.system);
        const tokens = estimateTokens(body.messages);
        io.step({
          kind: "request",
          agent,
          messages: body.messages.length,
          tokens,
          tools,
          system,
        });
        const n = body.messages.length;
        await pause?.(`call the model for ${agent} (${n} message${n === 1 ? "" : "s"})`);
        // Ctrl-C aborts the call in flight (and any later call of the same turn) at once.
        const signal = turnSignal();
        if (signal.aborted) throw new InterruptedError();
        return unlessInterrupted(client.messages.create(body, { signal }), signal);
      },
    },
  };
}
