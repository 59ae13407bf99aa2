// Mailboxes under attack: writers and readers in many processes, killed with SIGKILL at random
// moments. Nothing may be lost, nothing read twice once acknowledged, a torn line must not take the
// next message with it, and a lock left by a dead process must not block the mailbox.
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createIO } from "../../chapters/_runner/printer.ts";
import { MessageBus, type TeamMessage } from "../../chapters/s13-agent-teams/mailbox.ts";
import { mulberry32, seedFrom, seedLine, tempDir } from "../support/helpers.ts";
import { startWorker, type Worker } from "../support/workers.ts";
import { budget } from "../support/budgets.ts";

/** Takes the mail and acknowledges it at once, as a reader with no turn to lose would. */
function drain(bus: MessageBus, name: string): TeamMessage[] {
  const messages = bus.receive(name);
  bus.acknowledge(name);
  return messages;
}

const WRITERS = 6;
const PER_WRITER = 200;
const SENDERS = 3;
const KILLS_PER_PROCESS = 8; // the reader and each sender: 32 kills in all

const lines = (w: Worker, pattern: RegExp) =>
  w
    .stdout()
    .split("\n")
    .filter((l) => pattern.test(l)).length;

// Writers and readers, started again after the kills: a dozen helper processes' worth.
describe("mailboxes", { timeout: budget({ process: 12 }) }, () => {
  it(`lose nothing: ${WRITERS} writer processes × ${PER_WRITER} messages, drained concurrently by two readers`, async () => {
    const base = tempDir("lah-mail-");
    const dir = path.join(base, "mailboxes");
    const go = path.join(base, "go");
    const stop = path.join(base, "stop");
    const drainerOut = path.join(base, "drainer.json");
    const bus = new MessageBus(dir);

    const writers = Array.from({ length: WRITERS }, (_, i) =>
      startWorker("mail-writer", [dir, `w${i}`, String(PER_WRITER), go]),
    );
    const drainer = startWorker("mail-drainer", [dir, stop, drainerOut]);
    await Promise.all([...writers, drainer].map((w) => w.waitFor(/^ready$/m)));

    // Go: the writers append while this process and the drainer process both drain the lead's mailbox.
    writeFileSync(go, "");
    let writing = true;
    const allWritten = Promise.all(writers.map((w) => w.exited)).then((codes) => {
      writing = false;
      return codes;
    });
    const here: TeamMessage[] = [];
    let drainsHere = 0;
    while (writing) {
      here.push(...drain(bus, "lead"));
      drainsHere++;
      await sleep(1);
    }
    for (const [i, { code }] of (await allWritten).entries()) {
      expect(code, writers[i].stderr()).toBe(0);
      expect(writers[i].stdout()).toContain(`sent ${PER_WRITER}`);
    }
    writeFileSync(stop, "");
    expect((await drainer.exited).code, drainer.stderr()).toBe(0);
    const there = JSON.parse(readFileSync(drainerOut, "utf8")) as {
      drains: number;
      messages: TeamMessage[];
    };
    here.push(...drain(bus, "lead")); // the final drain

    const received = [...here, ...there.messages];
    const ids = new Set(received.map((m) => m.id));
    const sent = WRITERS * PER_WRITER;
    console.info(
      `mailbox: ${sent} messages sent by ${WRITERS} processes, ${received.length} received ` +
        `(${here.length} by this process in ${drainsHere + 1} drains, ${there.messages.length} by a second process in ${there.drains} drains)`,
    );

    expect(ids.size).toBe(received.length); // none twice
    expect(received.length).toBe(sent); // none lost
    for (let i = 0; i < WRITERS; i++) {
      const seqs = received
        .filter((m) => m.from === `w${i}`)
        .map((m) => Number(m.content.split("#")[1]))
        .sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: PER_WRITER }, (_, s) => s));
    }
    // Every line was a whole message (no interleaving), and nothing is left behind.
    expect(existsSync(path.join(dir, "lead.dead.jsonl"))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it(`lose nothing and repeat nothing acknowledged when readers and senders are SIGKILLed at random (${(SENDERS + 1) * KILLS_PER_PROCESS} kills)`, async () => {
    // Kill moments, and each reader's pause before it acknowledges, come from this seed.
    const seed = seedFrom("MAILBOX_SEED");
    console.info(`mailbox kill test: ${seedLine("MAILBOX_SEED", seed)}`);
    // One generator per process slot: the slots interleave differently each run, their choices do not.
    const rands = Array.from({ length: SENDERS + 1 }, (_, slot) => mulberry32(seed + slot));
    const base = tempDir("lah-mail-kill-");
    const dir = path.join(base, "mailboxes");
    const stop = path.join(base, "stop");
    new MessageBus(dir);

    const start = (slot: number) =>
      slot === 0
        ? startWorker("mail-reader", [dir, "loop", stop, String(Math.floor(rands[0]() * 2 ** 31))])
        : startWorker("mail-sender", [dir, `s${slot}`]);
    const finished: Worker[][] = Array.from({ length: SENDERS + 1 }, () => []);
    const current = Array.from({ length: SENDERS + 1 }, (_, slot) => start(slot));
    let kills = 0;

    // Each process is killed, restarted and killed again, all four side by side. The moment is random
    // and aimed at the windows that matter: 0–20 ms after the reader took mail (its turn takes 0–15 ms
    // before it acknowledges), 0–3 ms after a sender's last send (the next one may be 100 KB long).
    await Promise.all(
      current.map(async (_, slot) => {
        const progress = slot === 0 ? /^got / : /^sent /;
        for (let k = 0; k < KILLS_PER_PROCESS; k++) {
          const worker = current[slot];
          await worker.waitFor(/^ready$/m);
          const target = lines(worker, progress) + 1 + Math.floor(rands[slot]() * 3);
          const deadline = Date.now() + 2000; // a reader with no mail to read is killed all the same
          while (lines(worker, progress) < target && Date.now() < deadline) await sleep(1);
          await sleep(rands[slot]() * (slot === 0 ? 20 : 3));
          worker.child.kill("SIGKILL");
          const { signal } = await worker.exited;
          expect(signal, worker.stderr()).toBe("SIGKILL");
          kills++;
          finished[slot].push(worker);
          current[slot] = start(slot);
        }
      }),
    );

    // Stop the senders, then one last reader takes what is left (the dead readers' pending mail too).
    await Promise.all(
      current.map(async (worker, slot) => {
        await worker.waitFor(/^ready$/m);
        worker.child.kill("SIGKILL");
        await worker.exited;
        finished[slot].push(worker);
      }),
    );
    writeFileSync(stop, "");
    const last = startWorker("mail-reader", [dir, "loop", stop, "0"]);
    expect((await last.exited).code, last.stderr()).toBe(0);
    finished[0].push(last);

    // What was surely sent, and every delivery: acknowledged (`got` then `acked`) or cut off.
    const sent = finished
      .slice(1)
      .flat()
      .flatMap((w) => [...w.stdout().matchAll(/^sent (\S+)$/gm)].map((m) => m[1]));
    const acked = new Map<string, number>();
    const delivered = new Set<string>();
    let redelivered = 0;
    let repeatedAfterAck = 0;
    for (const reader of finished[0]) {
      const out = reader.stdout().split("\n");
      out.forEach((line, i) => {
        if (!line.startsWith("got ")) return;
        const ids = line.slice(4).split(" ");
        const kept = out[i + 1] === "acked";
        for (const id of ids) {
          if ((acked.get(id) ?? 0) > 0) repeatedAfterAck++;
          else if (delivered.has(id)) redelivered++;
          delivered.add(id);
          if (kept) acked.set(id, (acked.get(id) ?? 0) + 1);
        }
      });
    }
    const lost = sent.filter((id) => !delivered.has(id));
    const deadFile = path.join(dir, "lead.dead.jsonl");
    const dead = existsSync(deadFile) ? readFileSync(deadFile, "utf8").trim().split("\n") : [];
    console.info(
      `mailbox kill test: ${kills} kills (${KILLS_PER_PROCESS} per process, reader and ${SENDERS} senders), ` +
        `${sent.length} messages surely sent, ${delivered.size} delivered, ${lost.length} lost, ${repeatedAfterAck} repeated ` +
        `after an acknowledgement; ${redelivered} handed out again because their reader died before acknowledging; ` +
        `${dead.length} torn lines dead-lettered; ${seedLine("MAILBOX_SEED", seed)}`,
    );

    // A run in which nothing was sent would lose nothing: the floor the README cites.
    expect(sent.length).toBeGreaterThanOrEqual(30);
    expect(lost).toEqual([]);
    expect(repeatedAfterAck).toBe(0);
    expect(dead.length).toBeLessThanOrEqual(finished.slice(1).flat().length); // at most one torn line per killed sender
    for (const entry of dead)
      expect(() => JSON.parse((JSON.parse(entry) as { line: string }).line)).toThrow();
    // Left behind at most: the dead letters, a lock folder, and a kill's half-made lock or temp file.
    const leftovers = readdirSync(dir).filter(
      (f) => f !== "lead.dead.jsonl" && !f.startsWith("lead.jsonl.lock") && !f.endsWith(".tmp"),
    );
    expect(leftovers).toEqual([]);
  });

  it("a reader killed holding mail it has not acknowledged: the next reader gets that mail", async () => {
    const dir = path.join(tempDir("lah-mail-"), "mailboxes");
    const bus = new MessageBus(dir);
    const ids = ["one", "two", "three"].map((text) => bus.send("alice", "lead", text).id);
    const reader = startWorker("mail-reader", [dir, "keep"]);
    await reader.waitFor(/^got /m);
    expect(drain(bus, "lead")).toEqual([]); // a live reader's pending mail is its own
    reader.child.kill("SIGKILL");
    await reader.exited;
    bus.send("bob", "lead", "four");
    expect(drain(bus, "lead").map((m) => m.id)).toEqual([...ids, expect.any(String)]);
    expect(drain(bus, "lead")).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a torn line (a sender killed mid-write) is dead-lettered alone: the next message arrives whole", () => {
    const dir = path.join(tempDir("lah-mail-"), "mailboxes");
    const io = createIO();
    const bus = new MessageBus(dir, io);
    bus.send("alice", "lead", "before");
    const torn = '{"id":"msg_torn","type":"message","from":"bob","to":"lead","content":"cut of';
    appendFileSync(bus.file("lead"), torn); // no newline: the writer died here
    bus.send("carol", "lead", "after");
    expect(drain(bus, "lead").map((m) => m.content)).toEqual(["before", "after"]);
    const dead = readFileSync(path.join(dir, "lead.dead.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: string });
    expect(dead.map((d) => d.line)).toEqual([torn]);
  });

  it("skip a malformed line, report it once, keep it as a dead letter, and deliver the rest", () => {
    const dir = path.join(tempDir("lah-mail-"), "mailboxes");
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

    // Taken, then put back (its turn failed), then taken again: the bad lines are reported once.
    expect(bus.receive("lead").map((m) => m.content)).toEqual(["first", "second"]);
    bus.putBack("lead");
    expect(bus.receive("lead").map((m) => m.content)).toEqual(["first", "second"]);
    bus.acknowledge("lead");
    const dead = readFileSync(path.join(dir, "lead.dead.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: string });
    expect(dead.map((d) => d.line)).toEqual(garbage);
    const notes = io.trace
      .filter((e) => e.kind === "note")
      .map((e) => (e as { text: string }).text);
    expect(notes).toHaveLength(garbage.length);
    expect(notes[0]).toBe(
      "skipped a malformed line in lead's mailbox (kept in mailboxes/lead.dead.jsonl)",
    );

    // The mailbox works on as before.
    expect(drain(bus, "lead")).toEqual([]);
    bus.send("alice", "lead", "third");
    expect(drain(bus, "lead").map((m) => m.content)).toEqual(["third"]);
  });

  it("are not blocked by a lock whose holder died, and wait for one whose holder is alive, however slow", async () => {
    const dir = path.join(tempDir("lah-mail-"), "mailboxes");
    const bus = new MessageBus(dir);
    const lock = `${bus.file("lead")}.lock`;
    const dead = startWorker("lock-holder", ["forever", lock]);
    await dead.waitFor(/^holding$/m);
    dead.child.kill("SIGKILL");
    await dead.exited;
    bus.send("alice", "lead", "still delivered");
    expect(drain(bus, "lead").map((m) => m.content)).toEqual(["still delivered"]);

    // A live holder keeps the lock for 1.5 s (longer than any age rule would allow): the sender waits.
    const slow = startWorker("lock-holder", ["1500", lock]);
    await slow.waitFor(/^holding$/m);
    bus.send("alice", "lead", "after the slow holder");
    const sentAt = Date.now();
    await slow.waitFor(/^released \d+$/m);
    expect(sentAt).toBeGreaterThanOrEqual(Number(/^released (\d+)$/m.exec(slow.stdout())![1])); // not before its last held moment
    expect(drain(bus, "lead").map((m) => m.content)).toEqual(["after the slow holder"]);
    expect(readdirSync(dir)).toEqual([]);
  });
});
