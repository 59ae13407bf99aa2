// Independent attack 2: the harness note that names a change to what git runs. It failed on the
// code before issue 32's fix (tests/open-doors/): the note came from a memory of the last 100
// warnings; now a background job keeps its own. Runs with or without a sandbox.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { waitFor } from "../support/wait.ts";
import { budget } from "../support/budgets.ts";
import { describe, expect, it } from "vitest";
import { createIO } from "../../chapters/_runner/printer.ts";
import {
  BackgroundJobs,
  injectBackgroundResults,
} from "../../chapters/s11-background-tasks/agent.ts";
import type { AgentEnv, MessageParam } from "../../chapters/_shared/types.ts";
import { tempDir } from "../support/helpers.ts";
import { sandboxFor } from "../../chapters/_shared/shell.ts";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

describe("attack2: the harness's git warning", () => {
  // Plan: a warning is shown on screen only if the harness still remembers issuing it
  // (`harnessWarningsIn`, so a command cannot forge one) — and it remembers the last 100. A
  // background command's result waits in a queue until the next model call injects it. So: one
  // background command plants `.git/commondir`; 100 more (s11 asks about none of them; a2 in
  // auto mode neither) each touch a file of their own in `.git`. When the results are injected
  // the first warning has been forgotten: the model reads it, the person's screen shows no note
  // for `.git/commondir`.
  it(
    "the warning for a background command is shown however many others finish before it is injected",
    async () => {
      const ws = tempDir("lah-a2e-");
      git(ws, "init", "-q", "-b", "main");
      writeFileSync(path.join(ws, "app.js"), "1\n");
      const jobs = new BackgroundJobs(ws, sandboxFor(ws));
      const settle = async () => {
        await waitFor(() => jobs.running === 0, "the background jobs to end");
      };
      jobs.start("mkdir .git/x && echo x > .git/commondir");
      await settle();
      for (let i = 0; i < 100; i++) {
        jobs.start(`touch .git/zz-${i}`);
        await settle();
      }
      let written = "";
      const tty = {
        columns: 200,
        isTTY: true,
        write: (t: string) => ((written += t), true),
      } as unknown as NodeJS.WriteStream;
      const io = createIO({ stream: tty, color: false });
      const messages: MessageParam[] = [];
      injectBackgroundResults({ io } as unknown as AgentEnv, jobs, messages);
      await jobs.close();
      expect(JSON.stringify(messages)).toMatch(/changed what git runs: [^"]*\.git\/commondir/); // the model is told
      expect(written).toMatch(
        /◆ \[harness\] this command changed what git runs: .*\.git\/commondir/,
      ); // the person is not
    },
    budget({ cli: 8 }),
  );
});
