// The offline demo for s04: the system prompt lists two skills (workspace/skills/); the model
// loads each one only when the task reaches it, and follows what the skill says.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

export default {
  summary:
    "the model sees two skills by name, loads node-test and changelog when it needs them, and follows them",
  prompts: [
    "Add clamp(value, min, max) to src/math.mjs, test it the way this project tests, and note it in the changelog.",
  ],
  script: {
    lead: [
      use(
        "load_skill",
        { name: "node-test" },
        "This project has a skill for tests. Loading it before I start.",
      ),
      use("write", {
        path: "src/math.mjs",
        content: [
          "/** Limits value to the range [min, max]. */",
          "export function clamp(value, min, max) {",
          "  if (min > max) throw new RangeError(`min (${min}) is greater than max (${max})`);",
          "  return Math.min(Math.max(value, min), max);",
          "}",
          "",
        ].join("\n"),
      }),
      use(
        "write",
        {
          path: "test/math.test.mjs",
          content: [
            'import { test } from "node:test";',
            'import assert from "node:assert/strict";',
            'import { clamp } from "../src/math.mjs";',
            "",
            'test("keeps a value inside the range unchanged", () => assert.equal(clamp(5, 0, 10), 5));',
            'test("clamps a value below the range to min", () => assert.equal(clamp(-3, 0, 10), 0));',
            'test("clamps a value above the range to max", () => assert.equal(clamp(42, 0, 10), 10));',
            'test("accepts the range ends themselves", () => assert.equal(clamp(10, 0, 10), 10));',
            'test("rejects a range whose min is greater than its max", () => assert.throws(() => clamp(1, 10, 0), RangeError));',
            "",
          ].join("\n"),
        },
        "Following the skill: test/<module>.test.mjs, node:test, one test per behaviour.",
      ),
      use("bash", {
        command:
          "node --test --test-reporter=spec test/*.test.mjs 2>&1 | grep -E '^(✔|✖|ℹ (tests|pass|fail))'",
      }),
      use(
        "load_skill",
        { name: "changelog" },
        "All five pass. Now the changelog, which has its own skill.",
      ),
      use("write", {
        path: "CHANGELOG.md",
        content: [
          "# Changelog",
          "",
          "All notable changes to this project are documented here.",
          "",
          "## [Unreleased]",
          "",
          "### Added",
          "",
          "- `clamp(value, min, max)` in `src/math.mjs` keeps a number inside a range.",
          "",
        ].join("\n"),
      }),
      say(
        "Done: `clamp()` is in src/math.mjs with five node:test tests (all passing), and CHANGELOG.md " +
          "has an Unreleased › Added entry. I loaded the node-test and changelog skills when each step needed them.",
      ),
    ],
  },
} satisfies Scenario;
