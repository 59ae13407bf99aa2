// The offline demo for a6: one run of the kind an eval makes. The chapter's agent (s02's) gets
// the instruction of the task add-a-function on the tiny repository, and the scripted model
// plays the task's own script: the same turns `npm run eval` plays. What the eval adds (a fresh
// workspace per run, the hidden verifier, the numbers) is npm run eval's, and the page's.
import type { Scenario } from "../_shared/types.ts";
import { TOOLS } from "./agent.ts";
import type { TaskScript } from "./tasks.ts";
import script from "./tasks/add-a-function/scripted.ts";

/** The task's instruction.md, word for word (the site bundles this file, so it cannot read that
 *  one at load time; tests/chapters/a6-evals.test.ts holds the two equal). */
export const INSTRUCTION = [
  "Add `median(values: number[]): number` to `src/math.ts`: the middle value of the sorted list,",
  "the mean of the two middle values when the count is even, and `0` for an empty list.",
  "Do not change the order of the caller's list.",
].join("\n");

export default {
  summary:
    "one eval run: the agent gets a task's instruction on the tiny repository and plays its script; npm run eval runs every task on every harness",
  prompts: [INSTRUCTION],
  script: (script as TaskScript)(new Set(TOOLS.map((t) => t.name))),
} satisfies Scenario;
