// One site build per test run, started as soon as vitest knows which files will run.
//
// The build takes about a minute of CPU, so it should overlap the chapter and reliability tests
// rather than hold a worker: the sequencer (tests/sequencer.ts) sees the selected files in the main
// process, calls startSiteBuild() if any of them needs the site, and sorts those files last. The
// files themselves call ensureSiteBuilt(), which waits for the result. Run on its own (a single
// file, a sequencer that did not start it), ensureSiteBuilt() starts the build itself.
//
// The suite builds the site the way it is published on GitHub Pages: under a sub-path, with a
// site URL and a repository URL. Every site test therefore also checks that nothing forgets the
// base; a build at the root is the same code with BASE_PATH unset.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { budget } from "./budgets.ts";
import { waitFor } from "./wait.ts";

/** Where the suite's build goes: not dist/, the reader's own build (`npm run build`), which
 *  `npm run preview` serves at the root. A build under the suite's base served there is a page
 *  of 404s without styles (seen after `npm test`). */
export const DIST = path.join(REPO_ROOT, ".workspace", "site-build");
export const BASE = "/learn-agent-harness/";
export const REPO_URL = "https://github.com/example-owner/learn-agent-harness";
const MARKERS = path.join(REPO_ROOT, ".astro", "test-build");

/** `path` under the base the suite builds with: `/ja/s01/` → `/learn-agent-harness/ja/s01/`. */
export const underBase = (route: string) => BASE + route.replace(/^\/+/, "");

/** The environment a user's shell has, plus where the site is published. vitest puts
 *  NODE_ENV=test, DEV=1, MODE=test... into the environment; a build that sees them becomes a
 *  development build (no search). */
export function buildEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(VITEST.*|NODE_ENV|DEV|PROD|MODE|SSR|BASE_URL|TEST)$/.test(k),
    ),
  );
  return {
    ...env,
    BASE_PATH: BASE,
    SITE: "https://example-owner.github.io",
    REPO_URL,
    REPO_BRANCH: "main",
    OUT_DIR: DIST,
    ...extra,
  };
}

const runId = () => process.env.LAH_TEST_RUN ?? String(process.ppid);
const marker = (ext: "lock" | "result" | "pid") => path.join(MARKERS, `${runId()}.${ext}`);

/** Starts `astro build` in the background unless this run has started it already. */
export function startSiteBuild(): void {
  if (process.env.SKIP_SITE_BUILD === "1" && existsSync(DIST)) return;
  mkdirSync(MARKERS, { recursive: true });
  try {
    openSync(marker("lock"), "wx"); // whoever creates the lock builds
  } catch {
    return;
  }
  let output = "";
  const child = spawn("npx", ["astro", "build"], {
    cwd: REPO_ROOT,
    env: buildEnv(),
    detached: true, // its own process group, so the run's teardown can stop all of it
    stdio: ["ignore", "pipe", "pipe"],
  });
  writeFileSync(marker("pid"), String(child.pid));
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  child.on("error", (err) => writeFileSync(marker("result"), `failed\n${err.message}`));
  child.on("close", (code, signal) =>
    writeFileSync(marker("result"), code === 0 ? "ok" : `failed (${code ?? signal})\n${output}`),
  );
}

/** Waits for this run's build (starting it if nobody has) and returns where it is (DIST). */
export async function ensureSiteBuilt(): Promise<string> {
  if (process.env.SKIP_SITE_BUILD === "1" && existsSync(DIST)) return DIST;
  startSiteBuild();
  const outcome = () =>
    existsSync(marker("result")) ? readFileSync(marker("result"), "utf8") : "";
  await waitFor(() => outcome() !== "", "the site build", budget("siteBuild"));
  if (outcome() !== "ok") throw new Error(`the site build failed:\n${outcome()}`);
  return DIST;
}

/** Teardown: stops a build still running (an interrupted run) and forgets this run's markers. */
export function finishSiteBuild(): void {
  const pid = existsSync(marker("pid")) ? Number(readFileSync(marker("pid"), "utf8")) : 0;
  if (pid > 0 && !existsSync(marker("result"))) {
    try {
      process.kill(-pid, "SIGTERM"); // the group this run started, nothing else
    } catch {
      // already gone
    }
  }
  for (const ext of ["lock", "result", "pid"] as const) rmSync(marker(ext), { force: true });
}

/** Whether a test file needs the built site: it calls ensureSiteBuilt, or the browser tests'
 *  openSite or siteForSuite (tests/support/browser.ts), which do. */
export const needsSite = (file: string) =>
  /\b(ensureSiteBuilt|openSite|siteForSuite)\(/.test(readFileSync(file, "utf8"));
