// The terminal printer: how a run is shown as it happens. It is the run's IO: each step goes to
// the recorder (recorder.ts), which keeps the trace; the step notes (notes.ts) say what a step
// teaches; the ledger (usage.ts) counts a real model's tokens. This file only draws.
import pc from "picocolors";
import type { Message, StreamEvent, ToolUseBlock } from "../_shared/types.ts";
import { noteTeller, type StepNotes } from "./notes.ts";
import { clip as clipTo } from "./text.ts";
import type { StepAt, TraceEvent } from "../_trace/contract.ts";
import { traceKeeper, type Recorder } from "./recorder.ts";
import type { StatusLine } from "./status.ts";
import { tokensText, tokenUsage, UsageLedger } from "./usage.ts";
import { oneLine, visible } from "../_shared/visible.js";
import { harnessWarningsIn } from "../_shared/git-guard.ts";
import type { StreamingWrap, wrapText } from "./wrap.ts";

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
  /** For a recorded run: where the code that took a step is (code-spots.ts's codeSpotter). */
  where?: (step: TraceEvent) => StepAt | undefined;
  /** The terminal's status line (a real model on a terminal): who waits for the model. */
  status?: StatusLine;
  /** On a terminal: its width, and wrap.ts (loaded only then), to break lines between words to
   *  fit it. Piped output is printed as it is. */
  wrap?: {
    columns: () => number | undefined;
    wrapText: typeof wrapText;
    StreamingWrap: typeof StreamingWrap;
  };
}

/** The printer: a Recorder that also shows model calls as they happen. */
export interface Printer extends Recorder {
  /** The session's token counts, when they are real (`realUsage`). */
  readonly usage?: UsageLedger;
  /** A request for `agent` was sent (recordModel): what its answer does on screen. */
  call(agent: string, model: string): ModelCall;
  /** Keeps the screen for `work` alone (a question, a --step pause): what any agent prints
   *  meanwhile, streamed text too, waits below until it is done, and so does the status line. */
  hold<T>(work: () => Promise<T>): Promise<T>;
  /** The text the lead's last model call streamed before it ended unfinished (Ctrl-C), once. */
  unfinished(): string | undefined;
  /** The lead's turn is over (answered, failed or interrupted): none of its tools still runs. */
  turnOver(): void;
  /** `text` broken between words to fit the terminal (as is when piped): for the REPL's own lines. */
  fit(text: string): string;
}

export interface ModelCall {
  onStream(event: StreamEvent): void;
  /** The answer is complete: its rest is printed, its tokens counted. */
  done(message: Message): void;
  /** The call is over, answered or not (an error, Ctrl-C): the status line and any open line end. */
  close(): void;
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

/** Prints a run; its steps go to a recorder. What the model, its commands, files and servers wrote is
 *  printed through `visible` (their control characters shown, not obeyed); the trace keeps it
 *  as it was. */
export function createIO({
  stream,
  color = false,
  pause,
  notes,
  realUsage = false,
  onStep,
  where,
  status,
  wrap: wrapping,
}: IOOptions = {}): Printer {
  const c = pc.createColors(color);
  const { trace, keep } = traceKeeper(onStep, where);
  const usage = realUsage ? new UsageLedger() : undefined;
  const who = (agent: string) => (agent === "lead" ? "" : c.magenta(`[${oneLine(agent)}] `));
  // While a question is open, nothing else may land on its line (where the answer goes).
  let holds = 0;
  const heldBack: string[] = [];
  const write = (text: string) => (holds ? heldBack.push(text) : stream?.write(text));
  const hold = async <T>(work: () => Promise<T>): Promise<T> => {
    holds++;
    try {
      return await (status ? status.hold(work) : work());
    } finally {
      if (--holds === 0) for (const text of heldBack.splice(0)) stream?.write(text);
    }
  };
  // While the lead's answer streams, its line is open: what others print meanwhile (a teammate's
  // tool call) waits until it ends, so the two never share a line.
  let lineOpen = false;
  const waitingLines: string[] = [];
  // One column spare, as the status line keeps: some terminals move on at the last one.
  const width = () => {
    const cols = wrapping?.columns();
    return cols && cols > 20 ? cols - 1 : undefined;
  };
  const fit = (text: string) => {
    const w = width();
    return w && wrapping ? wrapping.wrapText(text, w) : text;
  };
  const print = (text: string) => (lineOpen ? waitingLines.push(text) : write(`${fit(text)}\n`));
  const endLine = () => {
    if (!lineOpen) return;
    lineOpen = false;
    write("\n");
    for (const text of waitingLines.splice(0)) write(`${fit(text)}\n`);
  };
  /** Messages and tool calls already printed as they streamed: not printed a second time. */
  const shownMessages = new WeakSet<Message>();
  const shownCalls = new Set<string>();
  /** The usage line of a message that did not stream, printed after its text. */
  const usageLines = new WeakMap<Message, string>();
  const textOf = (message: Message) =>
    message.content
      .flatMap((b) => (b.type === "text" ? [b.text] : []))
      .join("\n")
      .trim();
  const saidLine = (agent: string, text: string) =>
    `${who(agent)}${c.cyan("assistant ›")} ${hanging(visible(text))}`;
  const callLine = (call: ToolUseBlock, agent: string) =>
    `${who(agent)}${c.yellow(`  ⚙ ${oneLine(call.name)}`)} ${c.dim(oneLine(clip(JSON.stringify(call.input), 1, 200)))}`;
  /** The status line's entry of each tool running now, by call id: from its call to its result. */
  const runningTools = new Map<string, { agent: string; done(): void }>();
  const toolEnded = (id: string) => {
    runningTools.get(id)?.done();
    runningTools.delete(id);
  };
  /** An agent that calls the model again, or whose turn ended, runs none of its tools any more
   *  (a tool stopped by Ctrl-C, or one whose result a chapter never printed, leaves no entry). */
  const toolsOver = (agent: string) => {
    for (const [id, tool] of runningTools) if (tool.agent === agent) toolEnded(id);
  };
  const tell = notes && noteTeller(notes);
  const teach = (step: TraceEvent) => {
    const { phase, note } = tell?.(step) ?? {};
    if (phase) print(c.bold(`\n── ${phase} ──`));
    if (note) print(c.italic(c.dim(indent(note.trim(), "  │ "))));
  };
  const record = (step: TraceEvent) => {
    keep(step);
    teach(step);
  };

  /** A model call on screen. The lead's text is printed as it streams (trimmed as a whole answer
   *  is, escaped by `visible` as it is: a control character is one character, so an escape
   *  sequence split across two pieces is shown all the same). A teammate's or a subagent's
   *  answer is printed whole once it is complete, so that two agents' text never interleaves. */
  let unfinishedText: string | undefined;
  const call = (agent: string, model: string): ModelCall => {
    const lead = agent === "lead";
    if (lead) unfinishedText = undefined;
    toolsOver(agent);
    const waiting = status?.begin(agent);
    let said = ""; // the lead's text so far, kept if the answer never completes
    let streamed = false;
    let closed = false;
    let started = false; // "assistant ›" printed for the text now streaming
    let blank = ""; // trailing whitespace held back: the answer's end is trimmed
    let high = ""; // the first half of a surrogate pair whose second half is still to come
    let wrap: StreamingWrap | undefined; // on a terminal: the text broken between words
    const shown = (text: string) => (wrap ? wrap.push(text) : hanging(text));
    const endWords = () => {
      if (high && started) write(shown(visible(high)));
      high = "";
      if (wrap) write(wrap.end());
      wrap = undefined;
    };
    const endText = () => {
      endWords();
      started = false;
      blank = high = "";
      endLine();
    };
    const text = (piece: string) => {
      said += piece;
      let s = high + piece;
      high = /[\uD800-\uDBFF]$/.test(s) ? s.slice(-1) : "";
      if (high) s = s.slice(0, -1);
      if (!started) {
        s = s.trimStart();
        if (!s) return;
        write(`${c.cyan("assistant ›")} `);
        const w = width();
        if (w && wrapping) wrap = new wrapping.StreamingWrap(w, "assistant › ".length);
        started = lineOpen = true;
      }
      const tail = /\s*$/.exec(s)!;
      if (tail.index === 0) return void (blank += s);
      write(shown(visible(blank + s.slice(0, tail.index))));
      blank = tail[0];
    };
    return {
      onStream(event) {
        if (closed) return;
        streamed = true;
        if (event.type === "thinking") return waiting?.thinking();
        if (event.type === "answer") return waiting?.done();
        if (event.type === "input") {
          if (lead) endText(); // the call's line comes next, below the text
          return waiting?.input(event.name, event.characters);
        }
        if (event.type === "text") return lead ? text(event.text) : undefined;
        const { block } = event;
        if (block.type === "thinking" || block.type === "redacted_thinking") {
          if (lead) endText();
          const size =
            block.type === "thinking" ? `${block.thinking.length} characters` : "redacted";
          print(`${who(agent)}${c.dim(`  thinking… (${size})`)}`);
        } else if (block.type === "text" && started)
          blank += "\n"; // blocks join with a newline
        else if (block.type === "tool_use" && lead) {
          waiting?.done();
          endText();
          print(callLine(block, agent));
          shownCalls.add(block.id);
        }
      },
      done(message) {
        if (closed) return;
        said = "";
        const counts = usage && tokenUsage(message.usage);
        if (counts) usage.add(agent, model, counts);
        // A local server (Ollama, llama.cpp) may send no counts, or zeros: said, never made up.
        const usageLine =
          usage &&
          `${who(agent)}${c.dim(`  tokens: ${counts ? tokensText(counts) : "unknown (the server sent no counts)"}`)}`;
        if (!streamed) {
          if (usageLine) usageLines.set(message, usageLine);
          return;
        }
        shownMessages.add(message);
        if (lead) endText();
        else {
          const said = textOf(message);
          if (said) print(saidLine(agent, said));
          for (const block of message.content)
            if (block.type === "tool_use") {
              print(callLine(block, agent));
              shownCalls.add(block.id);
            }
        }
        if (usageLine) print(usageLine);
      },
      close() {
        if (closed) return;
        closed = true;
        if (lead && said.trim()) unfinishedText = said;
        waiting?.done();
        // An answer that never completed (a failed call s14 may retry, Ctrl-C) says so where it
        // stops, so a retry's answer printed next is not read as a second one.
        if (lead && started) {
          endWords();
          write(c.dim(" ⟨cut off⟩"));
        }
        if (lead) endText();
      },
    };
  };

  const note = (text: string, agent = "lead") => {
    keep({ kind: "note", agent, text });
    print(`${who(agent)}${c.blue(`  ◆ ${hanging(visible(text), "    ")}`)}`);
    teach(trace.at(-1)!);
  };

  return {
    trace,
    usage,
    call,
    hold,
    unfinished() {
      const text = unfinishedText;
      unfinishedText = undefined;
      return text;
    },
    turnOver: () => toolsOver("lead"),
    fit,
    step: keep,
    user(text, agent = "lead") {
      record({ kind: "user", agent, text });
    },
    assistant(message: Message, agent = "lead") {
      const text = textOf(message);
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
      if (!shownMessages.has(message)) {
        if (text) print(saidLine(agent, text));
        const line = usageLines.get(message);
        if (line) print(line);
      }
      // Most chapters end the turn here; without this line a cut-off answer looks finished.
      if (message.stop_reason === "max_tokens")
        print(`${who(agent)}${c.yellow("  ✂ cut off: the answer reached its max_tokens limit")}`);
      teach(trace.at(-1)!);
    },
    async toolCall(call: ToolUseBlock, agent = "lead") {
      keep({ kind: "tool_call", agent, id: call.id, name: call.name, input: call.input });
      if (!shownCalls.delete(call.id)) print(callLine(call, agent));
      await pause?.(`run ${call.name}`);
      const running = status?.run(agent, call.name);
      if (running) runningTools.set(call.id, { agent, done: running.done });
    },
    toolResult(call: ToolUseBlock, output: string, isError = false, agent = "lead") {
      toolEnded(call.id);
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
      // The result is clipped, and a warning the harness added at its end would be cut off by
      // a dozen lines of output: it is shown again after it, whole, as the harness's own note.
      for (const warning of harnessWarningsIn(output)) note(warning, agent);
    },
    note: (text: string, agent = "lead") => note(text, agent),
    event(type, data, agent = "lead") {
      record({ kind: "event", agent, type, data } as TraceEvent);
    },
  };
}
