// The recorder: an IO that keeps what it was told as a trace (the steps of the trace contract,
// chapters/_trace/contract.ts). The terminal printer is one; a test's silent IO is another.
import type { IO } from "../_shared/types.ts";
import type { StepAt, TraceEvent } from "../_trace/contract.ts";

/** An IO that keeps what it was told as a trace. */
export interface Recorder extends IO {
  readonly trace: readonly TraceEvent[];
  /** Adds one step to the trace (and to a recording, with --record). Everything that records a
   *  step goes through here. */
  step(event: TraceEvent): void;
}

/** A trace being kept: `keep` adds a step and tells `onStep` (--record writes it to the file).
 *  With `where` (a recorded run: chapters/_runner/code-spots.ts), each step says where the code
 *  that took it is; it is asked here, while the lesson that kept the step is on the stack. */
export function traceKeeper(
  onStep?: (step: TraceEvent) => void,
  where?: (step: TraceEvent) => StepAt | undefined,
) {
  const trace: TraceEvent[] = [];
  // A spot is an extra for the player: one that cannot be found costs the step its `at`, never
  // the run (a lesson file unreadable while the run goes on, a parser's surprise).
  const spotOf = (step: TraceEvent) => {
    try {
      return where?.(step);
    } catch {
      return undefined;
    }
  };
  return {
    trace,
    keep(step: TraceEvent) {
      const at = spotOf(step);
      if (at) step = { ...step, at };
      trace.push(step);
      onStep?.(step);
    },
  };
}
