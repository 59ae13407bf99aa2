/**
 * s13 · Agent teams: the crash-safe mailbox
 *
 * The team's agents talk through files: one JSONL mailbox per agent in the harness's state folder,
 * beside the workspace and out of the model's reach. Files, not memory, so any process can write
 * to any agent, and nothing is lost while a reader is busy, killed, or its turn fails. What that
 * takes is this file (agent.ts only sends, receives and acknowledges):
 *
 *   1. send appends one line under the mailbox's lock; a line torn by a dead sender stays alone;
 *   2. a reader does not delete what it reads: it renames the mailbox to a pending file named
 *      after itself (its reader id) and deletes that only when the turn that read the mail is kept
 *      (acknowledge); a dropped turn puts the mail back for the next read;
 *   3. pending files of a reader whose process is gone are adopted by the next reader;
 *   4. a line that is not a message becomes a dead letter, kept aside with a note;
 *   5. a model reads each message in an envelope whose text is escaped, so no message can pass
 *      for one from someone else.
 *
 * On top of the bus sits the team's post: messages only between names the team knows, each one
 * recorded in the trace, and new mail read as one user turn of envelopes.
 *
 * Delivery is at least once: after a crash a message can come twice, never zero times.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { endsMidLine, writeFileAtomic } from "../_shared/fsutil.ts";
import { running, withLock } from "../_shared/lock.ts";
import type { IO } from "../_shared/types.ts";

// #region bus
/** One line of a mailbox. Protocol chapters add fields (a `request_id`, an `approve` flag). */
export interface TeamMessage {
  id: string;
  type: string; // "message" | "result" | "idle" | a protocol's own type
  from: string;
  to: string;
  content: string;
  ts: string;
  [field: string]: unknown;
}

/** This process as a mail reader. Mail it has taken but not yet acknowledged waits in files named
 *  after it, so a reader started later can tell a dead reader's mail from a live one's. */
const READER = `${process.pid}.${randomBytes(4).toString("hex")}`;
let takes = 0;

/** Mailboxes on disk, in the harness's state folder (out of the model's reach):
 *    <name>.jsonl                     new mail; a send appends one JSON line
 *    <name>.<stamp>.<reader>.pending  mail a reader has taken and not yet acknowledged
 *    <name>.dead.jsonl                lines that were not messages
 *  A message leaves the disk only when its reader acknowledges it. */
export class MessageBus {
  private count = 0;
  /** Pending files this reader has handed out and not yet acknowledged, per mailbox. */
  private readonly handedOut = new Map<string, Set<string>>();

  constructor(
    readonly dir: string,
    private readonly io?: Pick<IO, "note">,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  file(name: string): string {
    return path.join(this.dir, `${name}.jsonl`);
  }

  /** One message = one line, appended while holding the mailbox's lock. A sender killed mid-write
   *  leaves a line without its newline: ours then starts on a line of its own, so only the torn
   *  fragment becomes a dead letter, never the message after it. */
  send(
    from: string,
    to: string,
    content: string,
    type = "message",
    extra: Record<string, unknown> = {},
  ): TeamMessage {
    const id = `msg_${Date.now().toString(36)}_${process.pid}_${++this.count}`;
    const ts = new Date().toISOString();
    const message: TeamMessage = { id, type, from, to, content, ts, ...extra };
    const file = this.file(to);
    withLock(`${file}.lock`, () =>
      appendFileSync(file, `${endsMidLine(file) ? "\n" : ""}${JSON.stringify(message)}\n`),
    );
    return message;
  }

  /** New mail for `name`, oldest first. The mailbox file is renamed to a pending file of this reader
   *  (under the lock: a send's append never lands in a file already read) and read from there. It
   *  stays on disk until acknowledge(); a dead reader's pending files are taken over and read again. */
  receive(name: string): TeamMessage[] {
    this.adoptOrphans(name);
    const stamp = `${Date.now()}-${String(++takes).padStart(6, "0")}`;
    const pending = this.pendingPath(name, stamp, READER);
    try {
      withLock(`${this.file(name)}.lock`, () => renameSync(this.file(name), pending));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; // ENOENT: no new mail
    }
    const handed = this.handedOut.get(name) ?? new Set<string>();
    this.handedOut.set(name, handed);
    const fresh = this.pendingFiles(name).filter((f) => f.reader === READER && !handed.has(f.path));
    for (const file of fresh) handed.add(file.path);
    return fresh.flatMap((file) => this.readPending(name, file.path));
  }

  /** The turn that read this mail was kept: the mail is done with, delete it. */
  acknowledge(name: string): void {
    for (const file of this.handedOut.get(name) ?? []) rmSync(file, { force: true });
    this.handedOut.delete(name);
  }

  /** The turn that read this mail was dropped: the next receive() hands it out again. */
  putBack(name: string): void {
    this.handedOut.delete(name);
  }

  /** Mail not yet handed out, without taking it (the REPL's /inbox, the team's "anything unread?"). */
  peek(name: string): TeamMessage[] {
    const handed = this.handedOut.get(name);
    const waiting = this.pendingFiles(name).filter((f) => !handed?.has(f.path));
    const files = [...waiting.map((f) => f.path), this.file(name)];
    return files.flatMap((file) => this.parse(name, readIfThere(file)).messages);
  }
  // #endregion bus

  // #region orphans
  private pendingPath(name: string, stamp: string, reader: string): string {
    return path.join(this.dir, `${name}.${stamp}.${reader}.pending`);
  }

  /** `<name>.<stamp>.<reader>.pending` files; stamps sort in the order mail was taken. */
  private pendingFiles(name: string): { path: string; stamp: string; reader: string }[] {
    const pattern = new RegExp(`^${name}\\.(\\d+-\\d+)\\.(\\d+\\.[0-9a-f]+)\\.pending$`);
    return readdirSync(this.dir)
      .sort()
      .flatMap((file) => {
        const match = pattern.exec(file);
        return match
          ? [{ path: path.join(this.dir, file), stamp: match[1], reader: match[2] }]
          : [];
      });
  }

  /** Pending mail of a reader whose process is gone becomes ours. A rename moves each file once:
   *  of two readers adopting at the same moment, one gets it and the other finds it gone. */
  private adoptOrphans(name: string): void {
    for (const file of this.pendingFiles(name)) {
      if (file.reader === READER || running(file.reader)) continue;
      try {
        renameSync(file.path, this.pendingPath(name, file.stamp, READER));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; // another reader got it
      }
    }
  }
  // #endregion orphans

  // #region dead-letters
  /** A pending file's messages. Malformed lines are moved to the dead letters once, with a note, and
   *  the file rewritten without them: one bad writer must not take the reader or other mail down. */
  private readPending(name: string, file: string): TeamMessage[] {
    const { messages, malformed } = this.parse(name, readIfThere(file));
    if (!malformed.length) return messages;
    const dead = path.join(this.dir, `${name}.dead.jsonl`);
    for (const line of malformed) {
      appendFileSync(dead, `${JSON.stringify({ line, ts: new Date().toISOString() })}\n`);
      const where = `${path.basename(this.dir)}/${name}.dead.jsonl`;
      this.io?.note(`skipped a malformed line in ${name}'s mailbox (kept in ${where})`);
    }
    writeFileAtomic(file, messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
    return messages;
  }

  private parse(name: string, text: string): { messages: TeamMessage[]; malformed: string[] } {
    const messages: TeamMessage[] = [];
    const malformed: string[] = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let message: TeamMessage | undefined;
      try {
        const value = JSON.parse(line) as TeamMessage;
        const fields = value && [value.from, value.type, value.content];
        if (fields && fields.every((field) => typeof field === "string")) message = value;
      } catch {
        // not JSON: malformed, like any other line that is not a message
      }
      if (message) messages.push(message);
      else malformed.push(line);
    }
    return { messages, malformed };
  }
  // #endregion dead-letters
}

function readIfThere(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw err;
  }
}

// #region envelope
const BASE_FIELDS = new Set(["id", "type", "from", "to", "content", "ts"]);

/** `<`, `>` and `&` escaped (and `"` inside an attribute): no content can close an envelope or open
 *  one that looks as if it came from someone else. */
function escapeText(text: string, inAttribute = false): string {
  const escaped = text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return inAttribute ? escaped.replaceAll('"', "&quot;") : escaped;
}

/** How a message reads to a model: who sent it, its type, any protocol fields, then the text. */
export function formatMessage(message: TeamMessage): string {
  const attribute = (key: string, value: unknown) =>
    ` ${key}="${escapeText(typeof value === "string" ? value : JSON.stringify(value), true)}"`;
  const extra = Object.entries(message)
    .filter(([key]) => !BASE_FIELDS.has(key) && /^[a-z_]+$/.test(key))
    .map(([key, value]) => attribute(key, value))
    .join("");
  return (
    `<message${attribute("from", message.from)}${attribute("type", message.type)}${extra}>\n` +
    `${escapeText(message.content)}\n</message>`
  );
}
// #endregion envelope

// #region post
/** The team's post: every message goes through here, only between names the team knows, and each
 *  is recorded in the trace; new mail is read as one user turn, each message in its envelope. */
export class Post {
  constructor(
    readonly bus: MessageBus,
    private readonly io: Pick<IO, "event">,
    private readonly names: () => string[],
  ) {}

  send(
    from: string,
    to: string,
    content: string,
    type = "message",
    extra: Record<string, unknown> = {},
  ): TeamMessage {
    const known = this.names();
    if (!known.includes(to))
      throw new Error(`no one named "${to}" on the team (known: ${known.join(", ")})`);
    if (to === from) throw new Error("cannot send a message to yourself");
    if (!content.trim()) throw new Error("a message needs some content");
    const message = this.bus.send(from, to, content, type, extra);
    // The trace gets the message as written, with its protocol fields (request_id, approve, ...).
    this.io.event("mailbox_send", { id: message.id, type, from, to, content, ...extra }, from);
    return message;
  }

  /** New mail for `name` as one user turn, or null when there is none. */
  read(name: string): string | null {
    const messages = this.bus.receive(name);
    for (const { id, type, from } of messages)
      this.io.event("mailbox_read", { id, type, from, to: name }, name);
    return messages.length ? messages.map(formatMessage).join("\n") : null;
  }
}
// #endregion post
