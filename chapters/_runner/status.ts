// The status line: while agents wait for the model, one line at the bottom of a terminal says
// who waits and for how long (`⠋ waiting for lead 3s · alice 1s`). Only on a terminal: piped
// output gets no spinner and no control characters at all.
//
// Everything written to the terminal goes through here (the terminal's write methods are wrapped),
// so any output first erases the line and it is drawn again after: nothing lands on top of it. It
// is drawn only when the cursor is at the start of an empty line. A question, a --step pause, the
// `you ›` prompt or the model's text in mid-line all leave the cursor after them, so the status
// line never draws over them; `hold` keeps it away for as long as a question is open, too.

import stringWidth from "string-width";
import { oneLine } from "../_shared/visible.js";

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
/** Erase the current line and go back to its start. */
const ERASE = "\r\x1b[2K";

type Write = NodeJS.WriteStream["write"];

/** `text` cut to at most `columns` terminal columns, with "…" where it was cut (whole characters:
 *  a surrogate pair or a combining mark is never split). */
export function fitColumns(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  let out = "";
  let used = 1; // the "…"
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const w = stringWidth(segment);
    if (used + w > columns) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

export class StatusLine {
  private readonly waiting = new Map<number, { agent: string; since: number; label: string }>();
  private nextId = 0;
  private shown = false;
  private atLineStart = true;
  private held = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly write: (text: string) => void;

  constructor(
    private readonly terminal: NodeJS.WriteStream,
    private readonly dim: (text: string) => string = (t) => t,
    /** Other streams that reach the same screen (stderr). */
    also: NodeJS.WriteStream[] = [],
  ) {
    const original = terminal.write.bind(terminal) as Write;
    this.write = (text) => void original(text);
    for (const stream of [terminal, ...also]) {
      const own = stream.write.bind(stream) as Write;
      stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        this.hide();
        const ok = own(chunk, ...rest);
        if (chunk.length) {
          const last =
            typeof chunk === "string" ? chunk.at(-1) : String.fromCharCode(chunk.at(-1)!);
          this.atLineStart = last === "\n";
        }
        this.soon();
        return ok;
      }) as Write;
    }
    process.on("exit", () => this.hide());
  }

  /** `agent` sent a request: it shows on the line from now until `done` is called. */
  begin(agent: string): {
    thinking(): void;
    input(name: string, characters: number): void;
    done(): void;
  } {
    const id = this.nextId++;
    const since = Date.now();
    this.waiting.set(id, { agent: oneLine(agent), since, label: "" });
    this.timer ??= setInterval(() => this.draw(), 100).unref();
    this.draw();
    return {
      thinking: () => {
        const entry = this.waiting.get(id);
        if (entry) entry.label = " thinking";
        this.draw();
      },
      // Shown again if text came first: the call's input may take longer than the text did.
      input: (name, characters) => {
        const label = ` writing a ${oneLine(name)} call, ${characters.toLocaleString("en")} characters,`;
        this.waiting.set(id, { agent: oneLine(agent), since, label });
        this.timer ??= setInterval(() => this.draw(), 100).unref();
        this.draw();
      },
      done: () => {
        if (!this.waiting.delete(id)) return;
        if (this.waiting.size === 0) {
          clearInterval(this.timer);
          this.timer = undefined;
          this.hide();
        } else this.draw();
      },
    };
  }

  /** Keeps the line off the screen while `work` runs (a question, a pause). */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.held++;
    this.hide();
    try {
      return await work();
    } finally {
      this.held--;
      this.soon();
    }
  }

  private soon(): void {
    if (this.waiting.size) setImmediate(() => this.draw());
  }

  private draw(): void {
    if (!this.waiting.size || !this.atLineStart || this.held) return;
    const now = Date.now();
    const who = [...this.waiting.values()]
      .map((w) => `${w.agent}${w.label} ${Math.floor((now - w.since) / 1000)}s`)
      .join(" · ");
    this.frame = (this.frame + 1) % FRAMES.length;
    // Kept narrower than the screen, in columns (a name in CJK takes two a character): a line
    // that wrapped could not be erased in one go.
    const width = Math.max(10, (this.terminal.columns || 80) - 1);
    const text = fitColumns(`${FRAMES[this.frame]} waiting for ${who}`, width);
    this.write(`${this.shown ? ERASE : ""}${this.dim(text)}`);
    this.shown = true;
  }

  private hide(): void {
    if (!this.shown) return;
    this.shown = false;
    this.write(ERASE);
  }
}
