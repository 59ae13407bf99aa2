// Attack (independent tester): a question open while another agent's model call streams. In the
// team chapters (s13, a2) teammates run beside the lead; one's permission question is asked with
// the status line held (status.ts `hold`), but nothing holds the printer (printer.ts): the lead's
// streamed text is written as it comes, on the question's own line, right after
// "[yes/no] " — where the person's answer goes. The model's text then reads as an answer
// already typed ("yes"), or pushes the question out of sight.
import xterm from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { createIO } from "../../chapters/_runner/printer.ts";
import { StatusLine } from "../../chapters/_runner/status.ts";
import { onFakeClock } from "../support/clock.ts";

const { Terminal } = xterm;
async function screen(output: string): Promise<string[]> {
  const term = new Terminal({ cols: 100, rows: 24, allowProposedApi: true, convertEol: true });
  await new Promise<void>((done) => term.write(output, done));
  const rows: string[] = [];
  const buffer = term.buffer.active;
  for (let y = 0; y < buffer.length; y++) rows.push(buffer.getLine(y)!.translateToString(true));
  term.dispose();
  return rows.filter(Boolean);
}

describe("attack: model text while a question is open", () => {
  it("is not written on the question's line", async () => {
    let written = "";
    const tty = {
      columns: 100,
      isTTY: true,
      write: (t: string) => ((written += t), true),
    } as unknown as NodeJS.WriteStream;
    const status = new StatusLine(tty);
    const io = createIO({ stream: tty, color: false, status, realUsage: true });
    // A teammate's tool call needs permission: the question is on screen (as run.ts asks it,
    // holding the screen through the printer).
    let answer = (_: string) => {};
    const asked = io.hold(() => {
      tty.write("? alice wants to run bash `rm -rf build` [yes/no] ");
      return new Promise<string>((r) => (answer = r));
    });
    // Meanwhile the lead's answer streams.
    const call = io.call!("lead", "claude-test");
    // Whatever the printer or the status line would do on a timer has had its chance.
    await onFakeClock(async (tick) => {
      call.onStream({ type: "text", text: "yes" } as never);
      await tick(200); // two ticks of the spinner
    });
    const rows = await screen(written);
    answer("no");
    await asked;
    call.close();
    // The lead's text was held back, not lost: it follows the question, on its own line.
    expect(written.slice(written.indexOf("[yes/no]"))).toContain("assistant › yes");
    // Seen: ["? alice wants to run bash `rm -rf build` [yes/no] assistant › yes"].
    expect(rows.find((r) => r.startsWith("? alice"))?.trimEnd()).toBe(
      "? alice wants to run bash `rm -rf build` [yes/no]",
    );
  });
});
