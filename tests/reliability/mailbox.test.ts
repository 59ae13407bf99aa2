// Mailboxes under load: many writer processes, readers draining at the same time. Nothing may be
// lost, nothing read twice, and a malformed line must not take the reader (or other mail) down.
import { appendFileSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createIO } from "../../chapters/_shared/io.ts";
import { MessageBus, type TeamMessage } from "../../chapters/s13-agent-teams/agent.ts";
import { tempDir } from "../helpers.ts";
import { startWorker } from "./workers.ts";

const WRITERS = 8;
const PER_WRITER = 500;

describe("mailboxes", () => {
  it(`lose nothing: ${WRITERS} writer processes × ${PER_WRITER} messages, drained concurrently by two readers`, async () => {
    const base = tempDir("lah-mail-");
    const dir = path.join(base, ".mailboxes");
    const go = path.join(base, "go");
    const stop = path.join(base, "stop");
    const drainerOut = path.join(base, "drainer.json");
    const bus = new MessageBus(dir);

    const writers = Array.from({ length: WRITERS }, (_, i) => startWorker("mail-writer", [dir, `w${i}`, String(PER_WRITER), go]));
    const drainer = startWorker("mail-drainer", [dir, stop, drainerOut]);
    await Promise.all([...writers, drainer].map((w) => w.waitFor(/^ready$/m)));

    // Go: the writers append while this process and the drainer process both drain the lead's mailbox.
    writeFileSync(go, "");
    let writing = true;
    const allWritten = Promise.all(writers.map((w) => w.exited)).then((codes) => { writing = false; return codes; });
    const here: TeamMessage[] = [];
    let drainsHere = 0;
    while (writing) {
      here.push(...bus.drain("lead"));
      drainsHere++;
      await sleep(1);
    }
    for (const [i, { code }] of (await allWritten).entries()) {
      expect(code, writers[i].stderr()).toBe(0);
      expect(writers[i].stdout()).toContain(`sent ${PER_WRITER}`);
    }
    writeFileSync(stop, "");
    expect((await drainer.exited).code, drainer.stderr()).toBe(0);
    const there = JSON.parse(readFileSync(drainerOut, "utf8")) as { drains: number; messages: TeamMessage[] };
    here.push(...bus.drain("lead")); // the final drain

    const received = [...here, ...there.messages];
    const ids = new Set(received.map((m) => m.id));
    const sent = WRITERS * PER_WRITER;
    console.info(`mailbox: ${sent} messages sent by ${WRITERS} processes, ${received.length} received ` +
      `(${here.length} by this process in ${drainsHere + 1} drains, ${there.messages.length} by a second process in ${there.drains} drains)`);

    expect(ids.size).toBe(received.length); // none twice
    expect(received.length).toBe(sent); // none lost
    for (let i = 0; i < WRITERS; i++) {
      const seqs = received.filter((m) => m.from === `w${i}`).map((m) => Number(m.content.split("#")[1])).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: PER_WRITER }, (_, s) => s));
    }
    // Every line was a whole message (no interleaving), and no drain was left half done.
    expect(existsSync(path.join(dir, "lead.dead.jsonl"))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith(".draining"))).toEqual([]);
    expect(bus.drain("lead")).toEqual([]);
  }, 60_000);

  it("skip a malformed line, report it, keep it as a dead letter, and deliver the rest", () => {
    const dir = path.join(tempDir("lah-mail-"), ".mailboxes");
    const io = createIO();
    const bus = new MessageBus(dir, io);
    const first = bus.send("alice", "lead", "first");
    const garbage = [
      "this is not json {",
      '{"id":"msg_cut","type":"message","from":"bob","to":"lead","cont', // a write cut off mid-line
      '{"id":"msg_x","type":"message","to":"lead"}', // JSON, but not a message
      "null",
      "42",
    ];
    appendFileSync(bus.file("lead"), `${garbage.join("\n")}\n`);
    const second = bus.send("bob", "lead", "second");

    // peek shows the good messages and leaves the file (and the bad lines) alone.
    expect(bus.peek("lead").map((m) => m.id)).toEqual([first.id, second.id]);
    expect(existsSync(path.join(dir, "lead.dead.jsonl"))).toBe(false);

    const drained = bus.drain("lead");
    expect(drained.map((m) => m.content)).toEqual(["first", "second"]);
    const dead = readFileSync(path.join(dir, "lead.dead.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { line: string });
    expect(dead.map((d) => d.line)).toEqual(garbage);
    const notes = io.trace.filter((e) => e.kind === "note").map((e) => (e as { text: string }).text);
    expect(notes).toHaveLength(garbage.length);
    expect(notes[0]).toMatch(/skipped a malformed line in lead's mailbox \(kept in \.mailboxes\/lead\.dead\.jsonl\)/);

    // The mailbox works on as before.
    expect(bus.drain("lead")).toEqual([]);
    bus.send("alice", "lead", "third");
    expect(bus.drain("lead").map((m) => m.content)).toEqual(["third"]);
  });

  it("are not blocked for good by a lock left behind by a process that died", () => {
    const dir = path.join(tempDir("lah-mail-"), ".mailboxes");
    const bus = new MessageBus(dir);
    const lock = `${bus.file("lead")}.lock`;
    writeFileSync(lock, "");
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, longAgo, longAgo); // its holder would have needed microseconds: it is gone
    bus.send("alice", "lead", "still delivered");
    expect(bus.drain("lead").map((m) => m.content)).toEqual(["still delivered"]);
    expect(readdirSync(dir)).toEqual([]);
  });
});
