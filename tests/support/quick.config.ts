// `npm run test:quick`: the chapters' behaviours and the site checks that are pure functions of
// site/lib — no site build, no browser, no end-to-end attack or exercise suite — for the edit–test
// loop (vitest.config.ts says which files each suite runs).
import { suite } from "../../vitest.config.ts";

export default suite("quick");
