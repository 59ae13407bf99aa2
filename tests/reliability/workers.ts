// Starting worker processes for the reliability tests: real child processes running
// tests/reliability/workers/*.ts with tsx, exactly as `npm run chapter` runs a chapter.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

const WORKERS = fileURLToPath(new URL("./workers/", import.meta.url));

export interface Worker {
  child: ChildProcess;
  /** Everything the worker printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once the worker has printed a line matching `pattern` (rejects if it exits first). */
  waitFor(pattern: RegExp): Promise<void>;
  /** Resolves when the process has exited and its output is complete. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// A test that fails half-way must not leave its workers running (a writer loops until killed).
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
});

export function startWorker(name: string, args: string[]): Worker {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(WORKERS, `${name}.ts`), ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  running.add(child);
  let out = "";
  let err = "";
  const watchers: { pattern: RegExp; resolve(): void }[] = [];
  child.stdout!.on("data", (d) => {
    out += d;
    for (const w of watchers.filter((w) => w.pattern.test(out))) {
      watchers.splice(watchers.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern) {
      if (pattern.test(out)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        watchers.push({ pattern, resolve });
        void exited
          .then(({ code, signal }) =>
            reject(
              new Error(
                `worker ${name} exited (code ${code}, signal ${signal}) before printing ${pattern}\n${out}\n${err}`,
              ),
            ),
          )
          .catch(() => {});
      });
    },
  };
}
