// Worker for the lock tests: takes the lock at each path given with chapters/_shared/lock.ts, prints
// `holding`, then holds them until killed (`forever`) or for a number of milliseconds (then prints
// `released <time>`).
import { tryLock } from "../../../chapters/_shared/lock.ts";

const [hold, ...paths] = process.argv.slice(2);
const locks = paths.map((file) => tryLock(file));
if (locks.some((lock) => !lock)) throw new Error("could not take a lock");
process.stdout.write("holding\n");
if (hold === "forever") setInterval(() => {}, 60_000);
else
  setTimeout(() => {
    for (const lock of locks) lock!.release();
    process.stdout.write(`released ${Date.now()}\n`);
  }, Number(hold));
