// The vitest configuration Stryker uses for `npm run mutation`: one exercise's checks only.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/mutation/checks.mutation.ts"],
    setupFiles: [],
    testTimeout: 30_000,
  },
});
