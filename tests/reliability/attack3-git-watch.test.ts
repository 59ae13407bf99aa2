// Third independent attack on the `.git` watch (held since; see docs/threat-model.md) (`_shared/shell.ts`, s11), 2026-12-04. A
// background command's change to what git runs is named when its result is injected. A command
// that changes `.git` and then keeps running (a "dev server") never has its result injected: the
// turn waits for it, the person ends the session (Ctrl-C, `q`: every exit path calls the agent's
// `close`), and `BackgroundJobs.close` drops the finished job's warnings. The change is then never
// named, on screen or anywhere. The rule: a change to what git runs is named before the session
// ends, however the command that made it ends.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { createAgent } from "../../chapters/s11-background-tasks/agent.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { budget } from "../support/budgets.ts";
import { scriptedEnv, tempDir } from "../support/helpers.ts";

const ID = ["-c", "user.name=t", "-c", "user.email=t@t"];
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, stdio: "pipe" });

describe("a background command that changes .git and runs on until the session ends", () => {
  it(
    "has its change named on screen before the session is over",
    async () => {
      const ws = tempDir("lah-attack3-git-");
      git(ws, "init", "-q", "-b", "main");
      writeFileSync(path.join(ws, "app.js"), "1\n");
      git(ws, "add", "-A");
      git(ws, ...ID, "commit", "-qm", "first");
      // The "dev server": points your git at a config of its own (`commondir`, whose config
      // starts an fsmonitor), then serves for ever.
      const command = [
        "mkdir .git/x && cp -r .git/objects .git/refs .git/x/",
        `printf '[core]\\n\\tfsmonitor = "touch pwned; false"\\n' > .git/x/config`,
        "echo x > .git/commondir && exec sleep 600",
      ].join(" && ");
      const env = scriptedEnv([use("background_run", { command }), say("The server is up.")], {
        workspace: ws,
      });
      const agent = createAgent(env);
      const turn = agent.send("start the dev server");
      const notes = () => env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
      // The turn waits for the job; the planted file is there.
      await vi.waitFor(
        () => {
          expect(notes().some((n) => n.startsWith("waiting for 1 background command"))).toBe(true);
          expect(existsSync(path.join(ws, ".git/commondir"))).toBe(true);
        },
        { timeout: budget({ cli: 10 }), interval: 50 },
      );
      // The person ends the session (what Ctrl-C, `q` and SIGTERM all do to the agent).
      await agent.close!();
      await turn;
      // What it left runs at your next `git status`, outside any sandbox.
      git(ws, "status");
      expect(existsSync(path.join(ws, "pwned"))).toBe(true);
      // And the person was never told.
      expect(notes().join("\n")).toMatch(/changed what git runs: .*\.git\/commondir/);
    },
    budget({ cli: 30 }),
  );
});
