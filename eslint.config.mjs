// ESLint for the chapters, the site code and the tests: typescript-eslint's recommended rules.
// Formatting is Prettier's job (see .prettierrc.json), so no style rules here.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/",
      ".astro/",
      ".workspace/",
      "workbench/",
      "node_modules/",
      "site/traces/",
      ".stryker-tmp/",
      "reports/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
    rules: {
      // `_name` marks a parameter a signature needs but the body does not.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      // `let x!: T` assigned once, after a closure that reads it was made, cannot be a const.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
);
