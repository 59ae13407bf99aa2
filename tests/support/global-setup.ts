// After the run: stop a site build still going (an interrupted run), remove its markers and the
// compiled reliability workers of this run (tests/support/workers.ts), not another run's.
import { rmSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { finishSiteBuild } from "./site-build.ts";

export default function setup() {
  return () => {
    finishSiteBuild();
    rmSync(
      path.join(
        REPO_ROOT,
        "node_modules",
        ".cache",
        "lah-workers",
        process.env.LAH_TEST_RUN ?? "run",
      ),
      {
        recursive: true,
        force: true,
      },
    );
  };
}
