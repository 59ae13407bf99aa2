// One id per `vitest run`, so test files share one site build (see site-build.ts).
import { rmSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../chapters/_runner/chapters.ts";

export default function setup() {
  process.env.LAH_TEST_RUN = `${process.pid}-${Date.now()}`;
  return () =>
    rmSync(path.join(REPO_ROOT, ".astro", "test-build"), { recursive: true, force: true });
}
