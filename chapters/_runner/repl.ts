// The terminal REPL around a chapter's agent: prompts in, readable transcript out.
import { createInterface } from "node:readline";
import pc from "picocolors";
import { beginTurn, interruptTurn, InterruptedError } from "./interrupt.ts";
import { finishedResults, keepInterruptedTurn } from "./interrupted-turn.ts";
import { describeModelError, type Provider } from "./model.ts";
import { ScenarioError } from "./scripted-model.ts";
import { killAllCommands } from "../_shared/shell.ts";
import { oneLine, visible } from "../_shared/visible.js";
import type { Agent, AgentCommand, IO, Scenario, Tool } from "../_shared/types.ts";
import type { TraceEvent } from "../_trace/contract.ts";
import type { UsageLedger } from "./usage.ts";

export interface ReplOptions {
  agent: Agent;
  tools: Tool[];
  scenario: Scenario;
  offline: boolean;
  modelId: string;
  /** The real model's wire format, for the variables an error names (model.ts). */
  provider?: Provider;
  interactive: boolean;
  debug: boolean;
  color: boolean;
  /** Lines from stdin; shared with --step pauses and permission questions. */
  lines: LineReader;
  /** Send the scenario's prompts one after another, then stop (--demo). */
  demo: boolean;
  /** Where each prompt is recorded (and its step note printed), as playScenario does; its trace
   *  and the lead's unfinished text are what an interrupted turn keeps. */
  io?: IO & {
    trace?: readonly TraceEvent[];
    unfinished?(): string | undefined;
    turnOver?(): void;
    fit?(text: string): string;
  };
  /** The session's token counts (a real model): /usage, and a summary line on exit. */
  usage?: UsageLedger;
}

/** The terminal tells us where a paste starts and ends (bracketed paste): a pasted error message
 *  of three lines is one prompt, not three turns. */
const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

/** Reads stdin one entry at a time; `next()` resolves null at end of input. On a terminal an entry
 *  may hold several lines: a paste is kept whole until Enter, and a line that ends in `\` goes on
 *  in the next one. */
export class LineReader {
  private queue: string[] = [];
  private waiting: { resolve: (line: string | null) => void; prompt?: string }[] = [];
  private closed = false;
  /** Lines of an entry not finished yet: pasted ones, or ones that ended in a backslash. */
  private pending: string[] = [];
  private pasting = false;
  readonly rl;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly terminal: boolean,
  ) {
    // While a turn runs nobody waits for a line: readline's echo of what is typed then would land
    // in the middle of the streaming answer. It is kept off the screen (the keys still go into
    // readline's line) and shown when the line is taken: as the next prompt, or redrawn after it.
    const quietWhileBusy = new Proxy(output, {
      get: (target, key) => {
        if (key === "write")
          return (...args: Parameters<NodeJS.WritableStream["write"]>) =>
            this.waiting.length || this.closed ? target.write(...args) : true;
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    this.rl = createInterface({ input, output: quietWhileBusy, terminal });
    if (terminal) {
      // readline turns the terminal's paste brackets into keypresses, after it has handled them.
      input.on("keypress", (_: unknown, key?: { name?: string }) => {
        if (key?.name === "paste-start") this.pasting = true;
        if (key?.name === "paste-end") this.pasting = false;
      });
      output.write(PASTE_ON);
      const off = () => output.write(PASTE_OFF);
      this.rl.on("close", off);
      process.once("exit", off);
    }
    this.rl.on("line", (typed) => {
      if (this.pasting) return void this.pending.push(typed);
      // A backslash at the end goes on in the next line; two stay as typed (a Windows path).
      if (terminal && typed.endsWith("\\") && !typed.endsWith("\\\\")) {
        this.pending.push(typed.slice(0, -1));
        this.rl.setPrompt("  … ");
        return void this.rl.prompt();
      }
      const line = [...this.pending.splice(0), typed].join("\n");
      const waiter = this.waiting.shift();
      if (!waiter) return void this.queue.push(line);
      waiter.resolve(line);
      // Someone else still waits (the REPL behind a question it answered): show their prompt again.
      const next = this.waiting[0];
      if (next?.prompt !== undefined && !this.closed) this.draw(next.prompt);
    });
    this.rl.on("close", () => {
      // Ctrl-D under a line that ended in `\`: what was not sent is not sent, and that is said
      // (as Ctrl-C says it). The REPL ends the line.
      const dropped = this.pending.splice(0).length;
      if (dropped)
        output.write(
          `\n(${dropped === 1 ? "1 line not sent is" : `${dropped} lines not sent are`} dropped)`,
        );
      this.closed = true;
      for (const w of this.waiting.splice(0)) w.resolve(null);
    });
  }

  private draw(prompt: string): void {
    this.rl.setPrompt(prompt);
    this.rl.prompt();
  }

  /** Drops the lines of an entry not sent yet (Ctrl-C at the prompt); says how many there were.
   *  Whoever waits gets their own prompt back. */
  discardPending(): number {
    const dropped = this.pending.splice(0).length;
    const prompt = this.waiting[0]?.prompt;
    if (dropped && prompt !== undefined) this.rl.setPrompt(prompt);
    return dropped;
  }

  /** Ctrl-C during a question or a --step pause: whoever waits gets no answer (null). An entry
   *  half typed or pasted is dropped with it. */
  cancelWaiting(): void {
    this.pending = [];
    for (const w of this.waiting.splice(0)) w.resolve(null);
  }

  next(prompt?: string): Promise<string | null> {
    // A line typed during the last turn: shown after the prompt, as if typed now.
    if (this.queue.length) {
      const line = this.queue.shift()!;
      if (prompt !== undefined && this.terminal) this.output.write(`${prompt}${visible(line)}\n`);
      return Promise.resolve(line);
    }
    if (this.closed) return Promise.resolve(null);
    // Waiting first, drawn after: readline's writes reach the screen only while someone waits.
    const line = new Promise<string | null>((resolve) => this.waiting.push({ resolve, prompt }));
    if (prompt !== undefined) this.draw(prompt);
    return line;
  }

  /** A question for the person: only a line typed *after* it is on screen answers it. Lines typed
   *  ahead are dropped (the model's text could say "type yes now", before the question exists),
   *  and the question goes before whoever else waits (the REPL's `you ›`), so an answer meant for
   *  it never lands there. Returns null at end of input. */
  ask(question: string): Promise<string | null> {
    const dropped = this.queue.splice(0).length;
    if (this.closed) return Promise.resolve(null);
    if (dropped)
      this.output.write(
        `(${dropped} line${dropped === 1 ? "" : "s"} typed before the question ignored)\n`,
      );
    const answer = new Promise<string | null>((resolve) =>
      this.waiting.unshift({ resolve, prompt: question }),
    );
    this.draw(question);
    return answer;
  }

  close(): void {
    this.rl.close();
  }
}

const QUIT = new Set(["q", "quit", "exit", "/quit", "/exit"]);
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** Ends the harness now: every command, hook, background job and teammate goes with it. */
async function shutdown(agent: Agent, code: number, farewell?: () => void): Promise<never> {
  killAllCommands();
  farewell?.();
  // Teammates and background jobs get a moment to stop cleanly, not more.
  await Promise.race([
    agent.close?.().catch(() => {}),
    new Promise((r) => setTimeout(r, 2_000).unref()),
  ]);
  killAllCommands();
  process.exit(code);
}

/** Runs the REPL; resolves with the process exit code. */
export async function runRepl(o: ReplOptions): Promise<number> {
  const c = pc.createColors(o.color);
  // The REPL's own lines (an error's sentence, /usage, /help) fit the terminal as the printer's do.
  const out = (text: string) => process.stdout.write(`${o.io?.fit ? o.io.fit(text) : text}\n`);
  let failures = 0;
  let nextPrompt = 0;
  let toldScripted = false;

  // #region interrupt
  // Ctrl-C during a turn stops the turn (model call, command, wait) and gives the prompt back;
  // Ctrl-C again, or at an idle prompt twice, ends the harness. SIGTERM and SIGHUP end it at once.
  let turnRunning = false;
  let interrupted = false;
  /** How long the trace was at Ctrl-C: a result recorded after it comes from a stopped command. */
  let interruptedAt = 0;
  let idleCtrlC = false;
  const summary = () => {
    if (o.usage && !o.usage.empty) out(c.dim(o.usage.summary()));
  };
  const onCtrlC = () => {
    if (turnRunning && !interrupted) {
      interrupted = true;
      interruptedAt = o.io?.trace?.length ?? 0;
      out(c.yellow("\n⏹ interrupting… (Ctrl-C again to quit)"));
      interruptTurn();
      o.lines.cancelWaiting();
    } else if (turnRunning || idleCtrlC || !o.interactive) {
      out(c.dim("\nbye"));
      void shutdown(o.agent, SIGNAL_EXIT.SIGINT, summary);
    } else if (o.lines.discardPending()) {
      out(c.dim("\n(the lines not sent yet are dropped)"));
      o.lines.rl.prompt();
    } else {
      idleCtrlC = true;
      out(c.dim("\n(Ctrl-C again or q to quit)"));
      o.lines.rl.prompt();
    }
  };
  // In a terminal, readline reads Ctrl-C as a key; piped, it arrives as a signal.
  o.lines.rl.on("SIGINT", onCtrlC);
  process.on("SIGINT", onCtrlC);
  const onSignal = {
    SIGTERM: () => void shutdown(o.agent, SIGNAL_EXIT.SIGTERM, summary),
    SIGHUP: () => void shutdown(o.agent, SIGNAL_EXIT.SIGHUP, summary),
  };
  for (const [signal, handler] of Object.entries(onSignal)) process.on(signal, handler);
  // Handed back when the REPL ends: a program that goes on (a test, an embedding) keeps none.
  const stopListening = () => {
    process.off("SIGINT", onCtrlC);
    for (const [signal, handler] of Object.entries(onSignal)) process.off(signal, handler);
  };
  // #endregion interrupt

  const send = async (prompt: string) => {
    const before = o.agent.messages.length;
    const traceStart = o.io?.trace?.length ?? 0;
    beginTurn();
    turnRunning = true;
    interrupted = false;
    o.io?.user(prompt);
    try {
      await o.agent.send(prompt);
    } catch (err) {
      if (err instanceof InterruptedError || interrupted) {
        // Keep what the turn did (interrupted-turn.ts): the model must not forget its own work.
        const steps = o.io?.trace?.slice(traceStart, interruptedAt) ?? [];
        const finished = finishedResults(steps);
        const partial = o.io?.unfinished?.();
        keepInterruptedTurn(o.agent.messages, before, finished, partial);
        // The recording says so too: the player shows it between the request and the next prompt.
        o.io?.event("interrupted", { results: finished.size, partial: Boolean(partial?.trim()) });
        out(c.yellow("⏹ interrupted: what the turn finished is kept; you are back at the prompt"));
        return;
      }
      // Forget the failed turn so the session stays usable (compaction may already have shrunk it).
      if (o.agent.messages.length > before) o.agent.messages.length = before;
      failures++;
      const sentence =
        err instanceof ScenarioError
          ? `Scenario error: ${err.message}`
          : describeModelError(err, o.modelId, o.provider);
      // The sentence may quote the server's own message.
      out(c.red(`✗ ${oneLine(sentence)}`));
      if (o.debug && err instanceof Error) out(c.dim(visible(err.stack ?? "")));
    } finally {
      turnRunning = false;
      o.io?.turnOver?.();
    }
  };

  const commands: Record<string, AgentCommand> = {
    "/help": { help: "show these commands", run: () => helpText() },
    "/tools": {
      help: "list this chapter's tools",
      run: () =>
        o.tools
          .map((t) => `  ${c.yellow(t.name.padEnd(18))} ${(t.description ?? "").split("\n")[0]}`)
          .join("\n"),
    },
    "/usage": {
      help: "tokens used so far, by agent, and what they cost",
      run: () =>
        o.usage
          ? o.usage.report()
          : "The scripted model uses no tokens: its counts are not real, so none are kept offline.",
    },
    "/history": {
      help: "how many messages the conversation holds",
      run: () => `${o.agent.messages.length} messages`,
    },
    // A chapter's command reports state the model wrote (task subjects, lane names, messages).
    ...Object.fromEntries(
      Object.entries(o.agent.commands ?? {}).map(([name, cmd]) => [
        name,
        { ...cmd, run: async (args: string) => visible(await cmd.run(args)) },
      ]),
    ),
  };
  const helpText = () =>
    [
      ...Object.entries(commands).map(([name, cmd]) => `  ${name.padEnd(10)} ${cmd.help}`),
      `  ${"q".padEnd(10)} quit (also: exit, Ctrl-D)`,
      `  ${"\\".padEnd(10)} at the end of a line: go on in the next line (a paste is one prompt)`,
      o.offline ? `  ${"(Enter)".padEnd(10)} send the scenario's next prompt` : "",
    ]
      .filter(Boolean)
      .join("\n");

  const runCommandLine = async (line: string) => {
    const [name, ...rest] = line.split(/\s+/);
    const cmd = commands[name];
    try {
      out(cmd ? await cmd.run(rest.join(" ")) : c.red(`Unknown command ${name}. Try /help.`));
    } catch (err) {
      // A broken state file read by /tasks or /lanes is one line, and the prompt comes back.
      out(c.red(`✗ ${oneLine(`${name}: ${err instanceof Error ? err.message : String(err)}`)}`));
    }
  };

  if (o.demo) {
    for (const prompt of o.scenario.prompts) {
      out(`${c.bold("you ›")} ${prompt}`);
      if (prompt.startsWith("/")) await runCommandLine(prompt);
      else await send(prompt);
    }
  } else {
    for (;;) {
      const raw = await o.lines.next(o.interactive ? c.bold("you › ") : undefined);
      if (raw === null) {
        // Ctrl-D leaves the cursor after "you › ": what follows starts on a line of its own.
        if (o.interactive) out("");
        break;
      }
      idleCtrlC = false;
      let line = raw.trim();
      if (QUIT.has(line.toLowerCase())) break;
      if (!line) {
        // Offline, an empty line (typed or piped) sends the scenario's next prompt.
        if (!o.offline) continue;
        const suggested = o.scenario.prompts[nextPrompt++];
        if (!suggested) {
          out(c.dim("(the scenario has no more prompts; type your own or q to quit)"));
          continue;
        }
        out(`${o.interactive ? "" : `${c.bold("you ›")} `}${c.dim("(scenario)")} ${suggested}`);
        line = suggested;
        // A scenario's step may be a command (a4's /rewind): it runs as if typed.
        if (line.startsWith("/")) {
          await runCommandLine(line);
          continue;
        }
      } else if (line.startsWith("/")) {
        await runCommandLine(line);
        continue;
      } else {
        if (!o.interactive) out(`${c.bold("you ›")} ${line}`);
        if (o.offline && !toldScripted) {
          toldScripted = true;
          out(
            c.dim(
              "(offline: the scripted model plays its next turn; it does not read what you type)",
            ),
          );
        }
      }
      await send(line);
    }
  }
  await o.agent.close?.();
  o.lines.close();
  stopListening();
  summary();
  return !o.interactive && failures > 0 ? 1 : 0;
}
