// The offline demo for a6: one run of the kind an eval makes. The chapter's agent (s02's) gets
// the instruction of the task add-a-function on the tiny repository, and the scripted model
// plays the task's own script: the same turns `npm run eval` plays. What the eval adds (a fresh
// workspace per run, the hidden verifier, the numbers) is npm run eval's, and the page's.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Scenario } from "../_shared/types.ts";
import { TOOLS } from "./agent.ts";
import type { TaskScript } from "./tasks.ts";
import script from "./tasks/add-a-function/scripted.ts";

const TASK = path.join(import.meta.dirname, "tasks", "add-a-function");

export default {
  summary:
    "one eval run: the agent gets a task's instruction on the tiny repository and plays its script; npm run eval runs every task on every harness",
  prompts: [readFileSync(path.join(TASK, "instruction.md"), "utf8").trim()],
  script: (script as TaskScript)(new Set(TOOLS.map((t) => t.name))),
} satisfies Scenario;
