// Worker for the lock tests: takes the lock at each path given with chapters/_shared/lock.ts, prints
// `holding`, then holds them until killed (`forever`) or for a number of milliseconds (then prints
// `released <time>`, the time read just before letting go: a waiter cannot have the lock before it).
import { tryLock } from "../../../chapters/_shared/lock.ts";

const [hold, ...paths] = process.argv.slice(2);
const locks = paths.map((file) => tryLock(file));
if (locks.some((lock) => !lock)) throw new Error("could not take a lock");
process.stdout.write("holding\n");
if (hold === "forever") setInterval(() => {}, 60_000);
else
  setTimeout(() => {
    const lastHeld = Date.now();
    for (const lock of locks) lock!.release();
    process.stdout.write(`released ${lastHeld}\n`);
  }, Number(hold));
