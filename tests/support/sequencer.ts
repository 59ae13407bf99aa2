// Runs the files that need the built site last, and starts that build before anything runs, so
// it overlaps the chapter and reliability tests instead of holding a worker (see site-build.ts).
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { needsSite, startSiteBuild } from "./site-build.ts";

export default class SiteLastSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files); // longest first, from the last run's timings
    const site = sorted.filter((f) => needsSite(f.moduleId));
    if (site.length) startSiteBuild();
    return [...sorted.filter((f) => !site.includes(f)), ...site];
  }
}
