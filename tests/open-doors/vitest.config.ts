// Open doors (docs/threat-model.md): an independent attacker's findings that the harness does not
// hold yet, each a test that fails while the door is open. Not part of `npm test` (it would be red
// by design); `npm run test:open-doors` shows which are still open. When a fix makes one pass, it
// moves to tests/reliability/ and its row in the threat model moves from "Open doors" to the table.
import { suite } from "../../vitest.config.ts";

const base = suite("all");
// Empty while no door is known open: that is a pass, not an error.
export default {
  ...base,
  test: {
    ...base.test,
    include: ["tests/open-doors/**/*.test.ts"],
    exclude: [],
    passWithNoTests: true,
  },
};
