// What a person sees: the harness's output rendered by a terminal emulator (@xterm/headless), and
// the runner driven through a real pseudo-terminal (util-linux `script`), so its questions are
// asked as they are at a keyboard.
import { spawn, spawnSync } from "node:child_process";
import xterm from "@xterm/headless";
import { killAfterTest } from "./helpers.ts";
import { CLI } from "./run-cli.ts";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { budget } from "./budgets.ts";
import { waitFor } from "./wait.ts";

const { Terminal } = xterm;

export interface Screen {
  /** Every row of the buffer (scrollback included), as a person reads it: concealed cells are
   *  blank, trailing spaces trimmed. */
  lines: string[];
  /** The OSC sequences the terminal acted on (52: clipboard, 8: hyperlink, 0/2: window title). */
  oscs: number[];
  /** What the terminal typed back, as keyboard input, in answer to a query (ESC[6n: "where is
   *  the cursor?", ESC[c: "what are you?"): the harness would read it as the person's answer. */
  typed: string;
  /** The rows in view now, the last `rows` of the buffer, unjoined: what a person sees without
   *  scrolling back. */
  viewport: string[];
}

/** A terminal's size: the learner's 120×40 by default; 80×24 is the smallest one we design for. */
export interface TerminalSize {
  cols?: number;
  rows?: number;
}

/** Renders `output` (what a program wrote to its terminal) the way a terminal would. Output
 *  written to a stream, not a pseudo-terminal, gets the terminal driver's newline translation
 *  (`\n` → `\r\n`) with `fromStream`. A row the terminal wrapped is joined to the row before. */
export async function render(
  output: string,
  { fromStream = false, cols = 120, rows = 40 }: { fromStream?: boolean } & TerminalSize = {},
): Promise<Screen> {
  const term = new Terminal({
    cols,
    rows,
    scrollback: 5000,
    allowProposedApi: true,
    convertEol: fromStream,
  });
  const oscs: number[] = [];
  let typed = "";
  term.onData((data) => (typed += data));
  for (const id of [0, 1, 2, 8, 52])
    term.parser.registerOscHandler(id, () => (oscs.push(id), true));
  await new Promise<void>((done) => term.write(output, done));
  const buffer = term.buffer.active;
  const lines: string[] = [];
  const viewport: string[] = [];
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y)!;
    let text = "";
    for (let x = 0; x < line.length; x++) {
      const cell = line.getCell(x)!;
      if (cell.getWidth() === 0) continue; // the second half of a wide character
      text += cell.isInvisible() ? " ".repeat(cell.getWidth()) : cell.getChars() || " ";
    }
    if (y >= buffer.viewportY && y < buffer.viewportY + rows) viewport.push(text.trimEnd());
    if (line.isWrapped && lines.length) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  for (let i = 0; i < lines.length; i++) lines[i] = lines[i].trimEnd();
  term.dispose();
  while (lines.length && lines.at(-1) === "") lines.pop();
  return { lines, oscs, typed, viewport };
}

/** The lines a person would read as one of the harness's questions: `? … [yes/no…]` at the
 *  start of a line. */
export const questionLines = (screen: Screen) =>
  screen.lines.filter((l) => /^\? .*\[yes\/no/.test(l));

export interface TerminalRun {
  /** Everything the runner wrote to its terminal so far. */
  output(): string;
  /** The same, as it arrived: each piece with the time it came (Date.now()). */
  chunks: { at: number; text: string }[];
  /** Types `text` at the keyboard. */
  type(text: string): void;
  /** Waits until the rendered screen satisfies `condition`. */
  waitForScreen(condition: (s: Screen) => boolean, what: string): Promise<Screen>;
  /** Resolves with the exit code once the runner has ended. */
  exited: Promise<number | null>;
}

/** util-linux's `script` gives a command a pseudo-terminal (macOS's takes other flags). */
export const hasPseudoTerminal = /util-linux/.test(
  spawnSync("script", ["--version"], { encoding: "utf8" }).stdout ?? "",
);

/** Starts `node cli.js args…` on a pseudo-terminal of 120×40 (or `size`), as a learner at a terminal does
 *  (stdin a TTY, so permission and trust questions are asked, not answered "no"). */
export function runCliInTerminal(
  args: string[],
  env: Record<string, string> = {},
  { cols = 120, rows = 40 }: TerminalSize = {},
): TerminalRun {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`);
  const size = `stty cols ${cols} rows ${rows}`;
  const child = killAfterTest(
    spawn("script", ["-qfec", `${size}; exec ${quoted.join(" ")}`, "/dev/null"], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        TERM: "xterm-256color",
        ...env,
      },
    }),
  );
  let output = "";
  const chunks: TerminalRun["chunks"] = [];
  // Decoded as a stream, so a character split between two reads arrives whole.
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  const arrived = (d: string) => {
    output += d;
    chunks.push({ at: Date.now(), text: d });
  };
  child.stdout!.on("data", arrived);
  child.stderr!.on("data", arrived);
  const exited = new Promise<number | null>((r) => child.on("close", r));
  return {
    output: () => output,
    chunks,
    type: (text) => child.stdin!.write(text),
    exited,
    async waitForScreen(condition, what) {
      let screen: Screen = { lines: [], oscs: [], typed: "", viewport: [] };
      let checking = false;
      try {
        await waitFor(
          () => {
            // render() is asynchronous: look at its last result and start the next one.
            if (!checking) {
              checking = true;
              void render(output, { cols, rows }).then((s) => ((screen = s), (checking = false)));
            }
            return condition(screen);
          },
          what,
          budget("cli"),
        );
      } catch (err) {
        throw new Error(`${(err as Error).message}; the screen:\n${screen.lines.join("\n")}`);
      }
      return screen;
    },
  };
}
