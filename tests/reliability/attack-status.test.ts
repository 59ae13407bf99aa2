// Attack (independent tester): the status line measures its width in UTF-16 code units, not in
// terminal columns. An agent's name is the model's (s13's spawn); double-width names (CJK, as a
// Japanese learner's model may well choose, or emoji) make the line wider than the screen though
// `text.length` is under it. The line wraps, `\r\x1b[2K` erases only its last row, and every
// redraw (10 a second) leaves one more row of "waiting for …" behind.
import xterm from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { StatusLine } from "../../chapters/_runner/status.ts";
import { onFakeClock } from "../support/clock.ts";

const { Terminal } = xterm;

async function screen(output: string, cols: number): Promise<string[]> {
  const term = new Terminal({ cols, rows: 24, scrollback: 1000, allowProposedApi: true });
  await new Promise<void>((done) => term.write(output, done));
  const buffer = term.buffer.active;
  const rows: string[] = [];
  for (let y = 0; y < buffer.length; y++) rows.push(buffer.getLine(y)!.translateToString(true));
  term.dispose();
  while (rows.length && rows.at(-1) === "") rows.pop();
  return rows;
}

describe("attack: the status line with double-width agent names", () => {
  it("stays one row on an 80-column terminal, and is gone once the call is done", async () => {
    let written = "";
    const tty = { columns: 80, write: (t: string) => ((written += t), true) };
    const status = new StatusLine(tty as unknown as NodeJS.WriteStream);
    const duringText = await onFakeClock(async (tick) => {
      // "⠋ waiting for " + names + times: 59 code units (under 79), 98 columns on screen.
      const a = status.begin("設計担当のチームメイト一号さん設計担当のチームメイト");
      const b = status.begin("テスト担当二号");
      await tick(450); // four ticks of the spinner
      const sofar = written;
      a.done();
      b.done();
      return sofar;
    });
    // Four redraws on top of the first drawing (each begins by erasing the row it is on).
    expect(duringText.split("\r\x1b[2K").length - 1).toBeGreaterThanOrEqual(4);
    const during = await screen(duringText, 80);
    const after = await screen(written, 80);
    // Seen: more than one row while waiting (the line wrapped and each redraw left a row), and
    // rows of "waiting for" left on the screen after the line was erased.
    expect(during.length).toBe(1);
    expect(after.filter((row) => row.includes("waiting for"))).toEqual([]);
  });
});
