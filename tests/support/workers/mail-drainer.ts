// Worker for mailbox.test.ts: a second reader. It drains the lead's mailbox again and again until
// the stop file appears, then writes every message it took to `outFile`.
import { existsSync, writeFileSync } from "node:fs";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { MessageBus, type TeamMessage } from "../../../chapters/s13-agent-teams/mailbox.ts";

const [dir, stopFile, outFile] = process.argv.slice(2);
const bus = new MessageBus(dir);
const taken: TeamMessage[] = [];
let drains = 0;
process.stdout.write("ready\n");
while (!existsSync(stopFile)) {
  taken.push(...bus.receive("lead"));
  bus.acknowledge("lead"); // no turn to lose: done with it at once
  drains++;
  await yieldToLoop();
}
writeFileSync(outFile, JSON.stringify({ drains, messages: taken }));
process.stdout.write(`drained ${taken.length} in ${drains} drains\n`);
