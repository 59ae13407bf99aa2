// `npm run screenshots`: the pictures in artifacts/screenshots/ (tests/browser/*.shots.ts).
import { suite } from "../../vitest.config.ts";

const base = suite("site");
export default { ...base, test: { ...base.test, include: ["tests/browser/**/*.shots.ts"] } };
