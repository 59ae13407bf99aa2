// A clock the test moves: a test that needs the status line's spinner to tick (or a timer to
// have had its chance) moves time on by that much instead of sleeping, so it neither waits
// nor depends on how busy the machine is.
import { vi } from "vitest";

/** Runs `work` with vi's fake timers (and Date); `tick(ms)` runs every timer due within `ms`
 *  and the promises they settle. Real timers come back afterwards, whatever happens. */
export async function onFakeClock<T>(
  work: (tick: (ms: number) => Promise<void>) => Promise<T>,
): Promise<T> {
  vi.useFakeTimers();
  try {
    return await work(async (ms) => void (await vi.advanceTimersByTimeAsync(ms)));
  } finally {
    vi.useRealTimers();
  }
}
