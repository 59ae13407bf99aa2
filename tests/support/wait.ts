// Waiting on a condition, never on a fixed sleep (shared by the tests and the sequencer).
import { budget } from "./budgets.ts";

/** Polls until `condition` holds; fails naming `what` after `timeoutMs` (a budget, see
 *  budgets.ts; by default what a helper process takes to start or stop). Tests wait on
 *  conditions, never on fixed sleeps, so a busy machine only makes them slower. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = budget("process"),
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
