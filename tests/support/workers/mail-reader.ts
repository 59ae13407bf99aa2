// Worker for mailbox.test.ts: the lead's reader, as a team runs it, killed at a random moment.
//   mode "loop": receive the new mail, print `got <ids>`, take 0–15 ms (the model call of the turn
//                that reads it; drawn from the seed the test passes), acknowledge it, print `acked`;
//                again and again until killed, or until the stop file exists and a receive finds
//                nothing. The two lines tell the test a batch acknowledged from one cut off before that.
//   mode "keep": receive once (waiting for mail), print `got <ids>`, never acknowledge: the test
//                kills it holding the mail.
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { MessageBus } from "../../../chapters/s13-agent-teams/mailbox.ts";
import { mulberry32 } from "../random.ts";

const [dir, mode, stopFile, seed] = process.argv.slice(2);
const rand = mulberry32(Number(seed ?? 0));
const bus = new MessageBus(dir);
process.stdout.write("ready\n");
if (mode === "keep") {
  let messages = bus.receive("lead");
  while (!messages.length) {
    await sleep(2);
    messages = bus.receive("lead");
  }
  process.stdout.write(`got ${messages.map((m) => m.id).join(" ")}\n`);
  setInterval(() => {}, 60_000);
} else {
  for (;;) {
    const stopping = existsSync(stopFile);
    const messages = bus.receive("lead");
    if (messages.length) {
      process.stdout.write(`got ${messages.map((m) => m.id).join(" ")}\n`);
      if (!stopping) await sleep(rand() * 15);
    }
    bus.acknowledge("lead");
    if (messages.length) process.stdout.write("acked\n");
    if (stopping && !messages.length) break;
    await sleep(1);
  }
}
