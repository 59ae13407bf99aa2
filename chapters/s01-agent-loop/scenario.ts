// The offline demo for s01: the scripted model asks for bash three times, then answers.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

export default {
  summary:
    "the model looks around, writes hello.js with bash, runs it, and stops when it has its answer",
  prompts: ["Create hello.js that prints a greeting, then run it."],
  script: {
    lead: [
      use("bash", { command: "ls -la" }, "Let me see what is in the workspace first."),
      use("bash", {
        command: "echo 'console.log(\"Hello from the agent loop!\")' > hello.js && cat hello.js",
      }),
      use("bash", { command: "node hello.js" }),
      ({ lastResult }) => say(`Done. hello.js prints: ${lastResult()}`),
    ],
  },
} satisfies Scenario;
