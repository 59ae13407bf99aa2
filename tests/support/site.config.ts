// `npm run test:site`: the site checks that read the built site, and the browser tests.
import { suite } from "../../vitest.config.ts";

export default suite("site");
