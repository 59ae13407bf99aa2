// Worker for mailbox.test.ts: a sender that is killed at a random moment. It sends to the lead
// until killed, one message in ten large (a write of 100 KB can be cut short by SIGKILL), and prints
// `sent <id>` after each send has returned, so the test knows which messages were surely sent.
import { MessageBus } from "../../../chapters/s13-agent-teams/mailbox.ts";

const [dir, name] = process.argv.slice(2);
const bus = new MessageBus(dir);
process.stdout.write("ready\n");
for (let seq = 0; ; seq++) {
  const size = seq % 10 === 9 ? 100_000 : 20 + (seq % 7) * 30;
  const message = bus.send(name, "lead", `${name}#${seq} ${"x".repeat(size)}`);
  process.stdout.write(`sent ${message.id}\n`);
  await new Promise((resolve) => setTimeout(resolve, 1));
}
