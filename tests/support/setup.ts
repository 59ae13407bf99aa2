// Before every test file: the clean-ups every test relies on. Test files share their worker's
// modules (isolate: false, see vitest.config.ts), so a hook at the top of a shared module such as
// helpers.ts would be registered for the first file only; here it is registered for each.
import { afterEach } from "vitest";
import { killTestChildren, removeTempDirs } from "./helpers.ts";

afterEach(() => {
  killTestChildren();
  removeTempDirs();
});
