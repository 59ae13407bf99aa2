// Builds the site once per test run, whichever test file asks first; the others wait for it.
// (Test files run in parallel workers, so a lock file decides who builds.)
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../chapters/_runner/chapters.ts";
import { waitFor } from "./helpers.ts";

export const DIST = path.join(REPO_ROOT, "dist");
const MARKERS = path.join(REPO_ROOT, ".astro", "test-build");

export async function ensureSiteBuilt(): Promise<string> {
  if (process.env.SKIP_SITE_BUILD === "1" && existsSync(DIST)) return DIST;
  const run = process.env.LAH_TEST_RUN ?? String(process.ppid);
  mkdirSync(MARKERS, { recursive: true });
  const lock = path.join(MARKERS, `${run}.lock`);
  const result = path.join(MARKERS, `${run}.result`);
  let builder = false;
  try {
    openSync(lock, "wx");
    builder = true;
  } catch {
    // another test file is building already
  }
  if (builder) {
    const outcome = await new Promise<string>((resolve) => {
      // vitest puts NODE_ENV=test, DEV=1, MODE=test, ... into the environment; a build that sees them
      // becomes a development build (no search). Build with the environment a user's shell has.
      const env = Object.fromEntries(
        Object.entries(process.env).filter(
          ([k]) => !/^(VITEST.*|NODE_ENV|DEV|PROD|MODE|SSR|BASE_URL|TEST)$/.test(k),
        ),
      );
      execFile(
        "npx",
        ["astro", "build"],
        { cwd: REPO_ROOT, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) =>
          resolve(err ? `failed\n${stderr || stdout || err.message}`.slice(0, 20_000) : "ok"),
      );
    });
    writeFileSync(result, outcome);
  }
  const outcome = () => (existsSync(result) ? readFileSync(result, "utf8") : "");
  await waitFor(
    () => outcome() !== "",
    "the site build (run by whichever test file asked first)",
    600_000,
  );
  if (outcome() !== "ok") throw new Error(`the site build failed:\n${outcome()}`);
  return DIST;
}
