// Starting worker processes for the reliability tests: real child processes running
// tests/reliability/workers/*.ts and the chapter code they import.
//
// A test may start a hundred of them (one after every SIGKILL), and starting tsx costs about half
// a second of CPU each time. So each worker is compiled once per test process, by esbuild (the
// compiler tsx itself uses), into one plain ES module beside node_modules, and started with plain
// node: about 0.1 s. The code that runs is the same TypeScript, transformed the same way.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { killAfterTest } from "./helpers.ts";

const WORKERS = fileURLToPath(new URL("./workers/", import.meta.url));
// Inside the repository, so the bundles' imports of packages resolve to its node_modules; one
// folder per test run and process, so parallel test files (and another checkout's run sharing this
// node_modules) never write or remove each other's bundles.
const COMPILED_RUNS = path.join(REPO_ROOT, "node_modules", ".cache", "lah-workers");
const COMPILED = path.join(COMPILED_RUNS, process.env.LAH_TEST_RUN ?? "run", String(process.pid));

/** Bundled code keeps each source file's own `import.meta.url` and `import.meta.dirname`
 *  (REPO_ROOT and s07's starting rules are found from them), not the bundle's. */
const ownImportMeta: Plugin = {
  name: "own-import-meta",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, ({ path: file }) => ({
      loader: "ts",
      contents: readFileSync(file, "utf8")
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(file).href))
        .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(file))),
    }));
  },
};

// Every worker, compiled once when a test file first imports this module (a fraction of a second).
await build({
  entryPoints: readdirSync(WORKERS)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(WORKERS, f)),
  outdir: COMPILED,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  packages: "external", // node_modules stay imports; only our own code is bundled
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "error",
  plugins: [ownImportMeta],
});

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

export function startWorker(name: string, args: string[]): Worker {
  const child = killAfterTest(
    spawn(process.execPath, [path.join(COMPILED, `${name}.mjs`), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
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
    child.on("close", (code, signal) => resolve({ code, signal })),
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
