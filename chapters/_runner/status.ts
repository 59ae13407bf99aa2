// The status line: while agents wait for the model, one line at the bottom of a terminal says
// who waits and for how long (`⠋ waiting for lead 3s · alice 1s`); while a tool runs, which and
// for how long, with the last line its command printed (`⠋ running bash 4s │ 12 tests passed`);
// while background commands run, how many and since when. Only on a terminal: piped output (and
// so a recording) gets no spinner and no control characters at all.
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

/** A command running now (shell.ts's liveCommands): the line shows its last line of output. */
export interface RunningCommandView {
  since: number;
  background: boolean;
  lastLine(): string;
}

const seconds = (since: number, now: number) => `${Math.floor((now - since) / 1000)}s`;

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

/** Every status line made in this process, weakly: whichever is on screen when the process exits
 *  is wiped. One listener for all of them (one per line piled up in a long-lived process). */
const lines = new Set<WeakRef<StatusLine>>();
let wipingAtExit = false;

export class StatusLine {
  private readonly waiting = new Map<number, { agent: string; since: number; label: string }>();
  /** Tools running now, by agent: from the printed call until its result is printed. */
  private readonly running = new Map<number, { agent: string; since: number; name: string }>();
  private nextId = 0;
  private shown = false;
  private atLineStart = true;
  private held = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private soonPending = false;
  private readonly write: (text: string) => void;

  constructor(
    private readonly terminal: NodeJS.WriteStream,
    private readonly dim: (text: string) => string = (t) => t,
    /** Other streams that reach the same screen (stderr). */
    also: NodeJS.WriteStream[] = [],
    /** The commands running now (shell.ts's liveCommands), asked at each redraw. */
    private readonly commands: () => RunningCommandView[] = () => [],
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
    lines.add(new WeakRef(this));
    if (!wipingAtExit) {
      wipingAtExit = true;
      process.on("exit", () => lines.forEach((line) => line.deref()?.hide()));
    }
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
    this.tick();
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
        this.tick();
      },
      done: () => {
        if (this.waiting.delete(id)) this.tick();
      },
    };
  }

  /** `agent` runs the tool `name` (its call is on screen): shown until `done`, when its result
   *  is printed. */
  run(agent: string, name: string): { done(): void } {
    const id = this.nextId++;
    this.running.set(id, { agent: oneLine(agent), since: Date.now(), name: oneLine(name) });
    this.tick();
    return {
      done: () => {
        if (this.running.delete(id)) this.tick();
      },
    };
  }

  /** What the line says now, without its spinner; "" when there is nothing to say. */
  private text(now: number): string {
    const parts: string[] = [];
    const who = [...this.waiting.values()].map(
      (w) => `${w.agent}${w.label} ${seconds(w.since, now)}`,
    );
    if (who.length) parts.push(`waiting for ${who.join(" · ")}`);
    for (const r of this.running.values())
      parts.push(
        `${r.agent === "lead" ? "" : `${r.agent} `}running ${r.name} ${seconds(r.since, now)}`,
      );
    const commands = this.commands();
    const background = commands.filter((c) => c.background);
    if (background.length) {
      // Alone on the line, they are what the turn waits for (s11 before its turn may end).
      const count = `${background.length} background command${background.length === 1 ? "" : "s"} ${seconds(background[0].since, now)}`;
      parts.push(parts.length ? count : `waiting for ${count}`);
    }
    if (!parts.length) return "";
    // The newest command's last line: the one awaited by a tool first, else a background one's.
    const shown = commands.filter((c) => !c.background).at(-1) ?? background.at(-1);
    const last = shown ? oneLine(shown.lastLine().replaceAll("\t", " ")) : "";
    return `${parts.join(" · ")}${last ? ` │ ${last}` : ""}`;
  }

  /** Keeps the clock going while there is something to show, and draws it now. */
  private tick(): void {
    if (this.text(Date.now())) {
      this.timer ??= setInterval(() => this.tick(), 100).unref();
      this.draw();
    } else {
      clearInterval(this.timer);
      this.timer = undefined;
      this.hide();
    }
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
    if (this.soonPending) return;
    this.soonPending = true;
    setImmediate(() => {
      this.soonPending = false;
      this.tick();
    });
  }

  private draw(): void {
    if (!this.atLineStart || this.held) return;
    const said = this.text(Date.now());
    if (!said) return this.hide();
    this.frame = (this.frame + 1) % FRAMES.length;
    // Kept narrower than the screen, in columns (a name in CJK takes two a character): a line
    // that wrapped could not be erased in one go.
    const width = Math.max(10, (this.terminal.columns || 80) - 1);
    const text = fitColumns(`${FRAMES[this.frame]} ${said}`, width);
    this.write(`${this.shown ? ERASE : ""}${this.dim(text)}`);
    this.shown = true;
  }

  /** Wipes the line (at exit too: see `lines`). */
  hide(): void {
    if (!this.shown) return;
    this.shown = false;
    this.write(ERASE);
  }
}
