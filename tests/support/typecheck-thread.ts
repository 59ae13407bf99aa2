// The checker's type check (chapters/_exercises/typecheck.js) in a thread of its own. Checking
// every exercise's copies is tens of seconds of one core; a test file's worker that did it in-line
// answered nothing meanwhile, and on a busy 2-core machine vitest's own calls from that worker to
// the main process timed out after 60 s ("Timeout calling onTaskUpdate", 76 of them in one run).
// The thread keeps one parse cache for its calls (the files every copy reads, parsed once), and
// it goes, hundreds of megabytes, when the thread is closed.
import { Worker } from "node:worker_threads";
import type { Copy } from "../../chapters/_exercises/typecheck.js";

const TYPECHECK = new URL("../../chapters/_exercises/typecheck.js", import.meta.url).href;

const THREAD = `
  const { parentPort, workerData } = require("node:worker_threads");
  const parsed = new Map();
  import(workerData.module).then((check) =>
    parentPort.on("message", ({ id, copies, limit }) => {
      try {
        parentPort.postMessage({ id, errors: check.typeErrorsOf(copies, limit, parsed) });
      } catch (err) {
        parentPort.postMessage({ id, failed: String(err?.stack ?? err) });
      }
    }));`;

/** A thread that answers `typeErrorsOf(copies, limit)` (and, for one copy, `typeErrors`) as
 *  typecheck.js does in-line; `close()` when done with it. */
export function typeCheckThread() {
  const worker = new Worker(THREAD, { eval: true, workerData: { module: TYPECHECK } });
  const waiting = new Map<number, { resolve(e: string[][]): void; reject(e: Error): void }>();
  let next = 0;
  // Once the thread has failed or ended, every call waiting and every later one gets why.
  let ended: Error | undefined;
  const fail = (err: Error) => {
    ended ??= err;
    for (const w of waiting.values()) w.reject(ended);
    waiting.clear();
  };
  worker.on(
    "message",
    ({ id, errors, failed }: { id: number; errors?: string[][]; failed?: string }) => {
      const w = waiting.get(id);
      waiting.delete(id);
      if (failed !== undefined) w?.reject(new Error(failed));
      else w?.resolve(errors ?? []);
    },
  );
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the type-check thread ended (exit code ${code})`)));
  const typeErrorsOf = (copies: Copy[], limit: number) =>
    new Promise<string[][]>((resolve, reject) => {
      if (ended) return reject(ended);
      const id = next++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({
        id,
        copies: copies.map(({ file, lesson }) => ({ file, lesson })),
        limit,
      });
    });
  return {
    typeErrorsOf,
    typeErrors: async (file: string, lesson: string | undefined, limit: number) =>
      (await typeErrorsOf([{ file, lesson }], limit))[0],
    close: () => worker.terminate(),
  };
}
