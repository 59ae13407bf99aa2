// Worker for mailbox.test.ts: one writer process. It waits for the go signal so that all writers
// start together, then sends `count` messages to the lead through the real MessageBus.
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { MessageBus } from "../../../chapters/s13-agent-teams/mailbox.ts";

const [dir, name, count, goFile] = process.argv.slice(2);
const bus = new MessageBus(dir);
process.stdout.write("ready\n");
while (!existsSync(goFile)) await sleep(2);
for (let seq = 0; seq < Number(count); seq++) bus.send(name, "lead", `${name}#${seq}`);
process.stdout.write(`sent ${count}\n`);
