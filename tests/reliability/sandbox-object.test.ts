// The sandbox is an object a run is given (chapters/_shared/shell.ts `sandboxFor`), not a setting
// of the module: two runs in one process each keep their own, and the runner's flags
// (`--no-sandbox`, `--allow-network`) reach the model's commands through the agent's env.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { use, say } from "../../chapters/_shared/scripted.ts";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import type { ChapterModule, MessageParam } from "../../chapters/_shared/types.ts";
import { allRunnable, loadChapter } from "../../chapters/_runner/chapters.ts";
import { budget } from "../support/budgets.ts";
import { HOST_NET, LOOK, resultsIn } from "../support/sandbox-look.ts";
import { endTurn, startFakeApi, toolUse, type FakeApi } from "../support/fake-api.ts";
import { machineSandbox, scriptedEnv, tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

const sandboxed = machineSandbox().kind === "bubblewrap";

describe.runIf(sandboxed)("the sandbox is an object each run is given", () => {
  // The rule: whatever sandboxes a process makes, in whatever order and however many run at once
  // (in one workspace or several), a command runs under its own sandbox's settings and no other's.
  const choice = fc.record({
    network: fc.boolean(),
    disabled: fc.boolean(),
    sharedWorkspace: fc.boolean(),
  });
  test.prop([fc.array(choice, { minLength: 1, maxLength: 4 })], { seed: 33, numRuns: 12 })(
    "commands at once, each under a sandbox of its own settings, see only their own",
    async (runs) => {
      const shared = tempDir();
      const outputs = await Promise.all(
        runs.map(({ network, disabled, sharedWorkspace }) => {
          const ws = sharedWorkspace ? shared : tempDir();
          const sandbox = sandboxFor(ws, { network, disabled });
          return runCommand(LOOK, { sandbox, cwd: ws, timeoutMs: budget("command") });
        }),
      );
      runs.forEach(({ network, disabled }, i) => {
        const seen = outputs[i].output;
        expect(seen).toContain(disabled ? "repo:visible" : "repo:hidden");
        expect(seen.includes(HOST_NET)).toBe(disabled || network);
      });
    },
    budget({ cli: 2 }),
  );

  it("is frozen: a tool handed the sandbox cannot switch it off for the next command", () => {
    const sandbox = sandboxFor(tempDir());
    expect(() => Object.assign(sandbox, { disabled: true })).toThrow(TypeError);
    expect(sandbox.disabled).toBe(false);
  });
});

/** The chapters whose model has a bash tool, and their modules. */
async function withBash(): Promise<[string, ChapterModule][]> {
  const loaded: [string, ChapterModule][] = [];
  for (const info of allRunnable()) loaded.push([info.id, (await loadChapter(info)).module]);
  return loaded.filter(([, m]) => m.TOOLS.some((t) => t.name === "bash"));
}

describe.runIf(sandboxed)("env.sandbox reaches the bash tool in every chapter that has one", () => {
  it(
    "a run given no sandbox (as --no-sandbox makes) runs its command unsandboxed, and only that run",
    async () => {
      const chapters = await withBash();
      expect(chapters.length).toBeGreaterThan(10);
      const missed: string[] = [];
      for (const [id, chapter] of chapters) {
        for (const disabled of [true, false]) {
          const ws = tempDir(`lah-${id}-`);
          const env = scriptedEnv([use("bash", { command: LOOK }), say("done")], {
            workspace: ws,
            sandbox: sandboxFor(ws, { disabled }),
            answers: ["yes", "yes", "yes"],
          });
          const agent = chapter.createAgent(env, { mode: "auto" }); // s07 starts in plan mode
          await agent.send("look");
          await agent.close?.();
          const seen = resultsIn(env.requests.flatMap((r) => r.body.messages));
          const want = disabled ? "repo:visible" : "repo:hidden";
          if (!seen.includes(want))
            missed.push(`${id} (disabled: ${disabled}): ${seen.slice(0, 200)}`);
        }
      }
      expect(missed).toEqual([]);
    },
    budget({ cli: 6 }),
  );
});

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe.runIf(sandboxed)("the runner's flags reach the model's commands", () => {
  const lookThrough = async (flags: string[]) => {
    api = await startFakeApi([toolUse("bash", { command: LOOK }), endTurn("Done.")]);
    const { code } = await runCli(["s02", "--workspace", tempDir(), ...flags], {
      input: "look\n",
      env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url },
    });
    expect(code).toBe(0);
    // What the command printed: the tool result in the next request (not the command's own text,
    // which names both answers).
    return resultsIn((api.requests[1]?.body.messages ?? []) as MessageParam[]);
  };

  it(
    "by default: the repository hidden, no network",
    async () => {
      const seen = await lookThrough([]);
      expect(seen).toContain("repo:hidden");
      expect(seen).not.toContain(HOST_NET);
    },
    budget({ cli: 2 }),
  );

  it(
    "--allow-network: the host's network, the repository still hidden",
    async () => {
      const seen = await lookThrough(["--allow-network"]);
      expect(seen).toContain("repo:hidden");
      expect(seen).toContain(HOST_NET);
    },
    budget({ cli: 2 }),
  );

  it(
    "--no-sandbox: the command sees what you see",
    async () => {
      expect(await lookThrough(["--no-sandbox"])).toContain("repo:visible");
    },
    budget({ cli: 2 }),
  );
});

describe("a headless run without a sandbox says so", () => {
  it(
    "-p prints nothing about the sandbox when there is one, and one line on stderr when it is off",
    async () => {
      const ask = (flags: string[]) =>
        runCli(["a5", "--offline", "-p", "hi", "--workspace", tempDir(), ...flags]);
      const on = await ask([]);
      expect(on.code).toBe(0);
      if (sandboxed) expect(on.stderr).not.toMatch(/sandbox:/);
      else expect(on.stderr).toContain(machineSandbox().summary);
      const off = await ask(["--no-sandbox"]);
      expect(off.code).toBe(0);
      expect(off.stderr).toContain(
        "sandbox: off (--no-sandbox); commands run with your permissions",
      );
      expect(off.stdout).not.toMatch(/sandbox:/);
    },
    budget({ cli: 2 }),
  );
});

describe("a lesson uses the run's sandbox", () => {
  // Where lesson code makes a sandbox itself, and why it is not the run's. Any other
  // `sandboxFor(` in a chapter would run commands in a sandbox the runner's flags do not reach.
  const OWN: Record<string, string> = {
    "s12-worktree-isolation/agent.ts": "a lane manager built without a run (its default)",
    "a5-sessions/agent.ts": "query(), the library entry with no runner (its default)",
    "a6-evals/agent.ts": "the oracle's solve.sh, in a task's workspace the eval made",
    "a6-evals/tasks.ts": "a task's setup.sh and its verifier, the eval's own commands",
  };

  it("makes no sandbox of its own outside those places", () => {
    const chapters = path.join(REPO_ROOT, "chapters");
    const lessons = readdirSync(chapters, { recursive: true, encoding: "utf8" }).filter(
      (file) =>
        /^[sa]\d+-[^/]+\/[^/]+\.ts$/.test(file) &&
        readFileSync(path.join(chapters, file), "utf8").includes("sandboxFor("),
    );
    expect(lessons.sort()).toEqual(Object.keys(OWN).sort());
  });
});
