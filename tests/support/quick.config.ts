// `npm run test:quick`: the chapters, the reliability attacks and the site checks that are pure
// functions of site/lib — no site build, no browser — for the edit–test loop.
import { suite } from "../../vitest.config.ts";

export default suite("quick");
