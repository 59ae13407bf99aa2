// The sandbox is an object a run is given (chapters/_shared/shell.ts `sandboxFor`), not a setting
// of the module: two runs in one process each keep their own, and the runner's flags
// (`--no-sandbox`, `--allow-network`) reach the model's commands through the agent's env.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { use, say } from "../../chapters/_shared/scripted.ts";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import type {
  ChapterModule,
  MessageParam,
  ToolResultBlockParam,
} from "../../chapters/_shared/types.ts";
import { allRunnable, loadChapter } from "../../chapters/_runner/chapters.ts";
import { budget } from "../support/budgets.ts";
import { endTurn, startFakeApi, toolUse, type FakeApi } from "../support/fake-api.ts";
import { machineSandbox, scriptedEnv, tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

const sandboxed = machineSandbox().kind === "bubblewrap";

/** Prints what a command sees: this repository (hidden by the sandbox) and its network. */
const LOOK = `test -e ${path.join(REPO_ROOT, "package.json")} && echo repo:visible || echo repo:hidden; readlink /proc/self/ns/net`;
const HOST_NET = readlinkSync("/proc/self/ns/net");

/** The text of every tool result in `messages`. */
const resultsIn = (messages: MessageParam[]) =>
  messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b): b is ToolResultBlockParam => b.type === "tool_result")
    .map((b) => JSON.stringify(b.content))
    .join("\n");

describe.runIf(sandboxed)("the sandbox is an object each run is given", () => {
  it("three commands at once, with three sandboxes, each run under its own", async () => {
    const ws = tempDir();
    const [closed, networked, off] = await Promise.all(
      [sandboxFor(ws), sandboxFor(ws, { network: true }), sandboxFor(ws, { disabled: true })].map(
        (sandbox) => runCommand(LOOK, { sandbox, cwd: ws, timeoutMs: budget("command") }),
      ),
    );
    expect(closed.output).toContain("repo:hidden");
    expect(closed.output).not.toContain(HOST_NET);
    expect(networked.output).toContain("repo:hidden");
    expect(networked.output).toContain(HOST_NET);
    expect(off.output).toContain("repo:visible");
  });

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
