// Ctrl-C during a turn: stop what the agent is doing (the model call, the command, the wait)
// and give the prompt back. The REPL starts a turn; a signal aborts it; the model wrapper and
// the command runner listen.
import { killAllCommands } from "../_shared/shell.ts";

export class InterruptedError extends Error {
  name = "InterruptedError";
  constructor() {
    super("interrupted");
  }
}

let controller = new AbortController();

/** The current turn's signal: aborted once the person presses Ctrl-C. */
export function turnSignal(): AbortSignal {
  return controller.signal;
}

/** A new turn begins: a fresh signal, not yet aborted. */
export function beginTurn(): void {
  controller = new AbortController();
}

/** Ctrl-C: abort the turn's model call and end every command it is running. Background jobs
 *  go too: a turn in s11 does not end while one runs, so every running job belongs to it. */
export function interruptTurn(): void {
  controller.abort(new InterruptedError());
  killAllCommands();
}

/** `work`, unless the turn is interrupted first: then InterruptedError, at once. */
export function unlessInterrupted<T>(work: Promise<T>, signal = turnSignal()): Promise<T> {
  if (signal.aborted) return Promise.reject(new InterruptedError());
  let onAbort = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new InterruptedError());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work, interrupted]).finally(() =>
    signal.removeEventListener("abort", onAbort),
  );
}
