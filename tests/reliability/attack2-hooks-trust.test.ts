// Independent attack 2: what a "yes" to a workspace's .hooks.json covers (a2, s08). It failed on the code
// before issue 32's fix (tests/open-doors/); tests/reliability/trust-words.test.ts states the rule.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { budget } from "../support/budgets.ts";
import { describe, expect, it } from "vitest";
import * as a2 from "../../chapters/a2-full-harness/agent.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { scriptedEnv } from "../support/helpers.ts";
import { FAST } from "../support/team-helpers.ts";

describe("attack2: hook trust", () => {
  // Plan: the trust is a hash of .hooks.json and of the files its commands name — but a word
  // counts as a file only when it holds a `/` or ends like a script (`.sh`, `.js`, …). A hook
  // command that runs an extensionless script by name (`sh lint`) or a program that reads its
  // own file (`make -s check` reads `Makefile`) names files the hash leaves out. The person
  // trusts the hooks as they are; then a2's allow-listed `write` (no question) rewrites `lint`
  // and `Makefile`, and the very next tool call's PostToolUse hook runs the model's code — no
  // question, no note that anything changed. The threat model's open doors name `cd hooks && sh
  // guard.sh` and files a script sources or imports, not a script the command itself names.
  it(
    "a trusted hook does not run a script the model rewrote, even one without a slash or an extension",
    async () => {
      const env = scriptedEnv(
        [
          use("write", { path: "lint", content: "touch pwned-sh\n" }),
          use("write", { path: "Makefile", content: "check:\n\t@touch pwned-make\n" }),
          use("todo", { items: [{ id: "1", text: "x", status: "pending" }] }),
          say("done"),
        ],
        { answers: ["yes"] }, // trust the hooks, as they are now
      );
      const at = (name: string) => path.join(env.workspace, name);
      writeFileSync(at("lint"), "exit 0\n");
      writeFileSync(at("Makefile"), "check:\n\t@true\n");
      writeFileSync(
        at(".hooks.json"),
        JSON.stringify({ PostToolUse: [{ command: "sh lint" }, { command: "make -s check" }] }),
      );
      const asked: string[] = [];
      const ask = env.ask.bind(env);
      env.ask = async (question, choices) => {
        asked.push(question);
        return ask(question, choices);
      };
      const agent = a2.createAgent(env, FAST);
      try {
        await agent.send("go");
      } finally {
        await agent.close!();
      }
      expect(asked).toHaveLength(1); // the trust question, and nothing else
      const ran = ["pwned-sh", "pwned-make"].filter((f) => existsSync(at(f)));
      expect(ran).toEqual([]);
    },
    budget({ cli: 4 }),
  );
});
