// Attacks on the claim that the sandbox is "a frozen object the runner makes once from its flags
// and hands to every tool (`env.sandbox`): no module setting a tool or a test could switch off for
// the next command", and that "two runs in one process each keep their own" (docs/threat-model.md,
// s07). Written by a tester who did not write the code; each test failed on fe58f23 (the first
// sandbox-object commit) and names the guarantee it holds since.
//
// Whatever changes shell.ts's module state (its cached `bwrap` path and probe result) runs in a
// node process of its own (runIsolated): the test files share their worker's modules
// (isolate: false), and a poisoned probe there would turn the sandbox off for the files after.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import type { MessageParam } from "../../chapters/_shared/types.ts";
import * as s02 from "../../chapters/s02-tool-use/agent.ts";
import { budget } from "../support/budgets.ts";
import { HOST_NET, LOOK, resultsIn } from "../support/sandbox-look.ts";

const SHELL_TS = path.join(REPO_ROOT, "chapters/_shared/shell.ts");
import { endTurn, startFakeApi, toolUse, type FakeApi } from "../support/fake-api.ts";
import { killAfterTest, machineSandbox, scriptedEnv, tempDir } from "../support/helpers.ts";
import { CLI } from "../support/run-cli.ts";

const sandboxed = machineSandbox().kind === "bubblewrap";

/** Runs `source` (an ES module, TypeScript) in a node process of its own, from the repository,
 *  with `args` after it; resolves with what it printed. */
function runIsolated(
  source: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = path.join(tempDir("lah-script-"), "script.mts");
  writeFileSync(file, source);
  return runNode(["--import", "tsx", file, ...args], REPO_ROOT, {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    NO_COLOR: "1",
    ...env,
  });
}

function runNode(args: string[], cwd: string, env: Record<string, string>, input = "") {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = killAfterTest(spawn(process.execPath, args, { cwd, env }));
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.stdin!.end(input);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe.runIf(sandboxed)("the probe is the process's, not the run's", () => {
  it(
    "a workspace that holds the only bwrap says so, not that bubblewrap is missing",
    async () => {
      const { stdout, stderr } = await runIsolated(
        `import path from "node:path";
import { ownProgram } from ${JSON.stringify(path.join(REPO_ROOT, "chapters/_shared/programs.ts"))};
import { sandboxFor, sandboxStatus } from ${JSON.stringify(SHELL_TS)};
const bwrap = ownProgram("bwrap", []);
console.log(JSON.stringify(sandboxStatus(sandboxFor(path.dirname(bwrap)))));`,
      );
      const status = JSON.parse(stdout || JSON.stringify({ summary: stderr })) as {
        kind?: string;
        summary: string;
      };
      expect(status.kind).toBe("none");
      expect(status.summary).toMatch(/lies in a workspace/);
    },
    budget({ cli: 2 }),
  );

  it(
    "a first sandbox whose workspace does not exist yet leaves bubblewrap on for every later run in the process",
    async () => {
      // Run 1 is made for a folder it will create later (an embedder that prints the banner
      // first, query({ workspace: ".workspace/a5" }) before that folder exists): the bwrap lookup
      // realpaths that workspace, throws, and "bubblewrap is not installed" is cached for good.
      // Run 2, in a real folder with the default sandbox (on, no network), then runs unsandboxed.
      const missing = path.join(tempDir(), "not-made-yet");
      const ws = tempDir("lah-run2-");
      const { stdout, stderr } = await runIsolated(
        `import { runCommand, sandboxFor, sandboxStatus } from ${JSON.stringify(SHELL_TS)};
const [missing, ws, look] = process.argv.slice(2);
const first = sandboxStatus(sandboxFor(missing));
const second = await runCommand(look, { sandbox: sandboxFor(ws), cwd: ws });
console.log(JSON.stringify({ first: first.summary, output: second.output }));`,
        [missing, ws, LOOK],
      );
      const seen = JSON.parse(stdout || `{"output": ${JSON.stringify(stderr)}}`) as {
        first?: string;
        output: string;
      };
      // Run 2 asked for the default sandbox; and bubblewrap IS installed here (machineSandbox
      // said so), so run 1's banner may not say otherwise.
      expect({
        run2RepoHidden: seen.output.includes("repo:hidden"),
        run2HostNetwork: seen.output.includes(HOST_NET),
        run1SaysNotInstalled: (seen.first ?? "").includes("not installed"),
      }).toEqual({ run2RepoHidden: true, run2HostNetwork: false, run1SaysNotInstalled: false });
    },
    budget({ cli: 2 }),
  );

  it(
    "bwrap is never a file in any run's workspace: another run's model cannot replace the one a run starts",
    async () => {
      // Two runs in one process (a program that embeds two agents, started from run 2's folder
      // with direnv, so PATH names run 2's bin/). Run 1 (workspace A) probes first: its lookup
      // leaves out A only, so B/bin/bwrap (a real bubblewrap while run 2 is young) becomes the
      // process's bwrap. Run 2's model then rewrites that file with its write tool (jailed to B,
      // so allowed), and run 1's next command starts it, outside any sandbox, with the harness's
      // own permissions. (Run 2 itself gets no command at all: "lies in a folder the command may
      // write: not started", though /usr/bin/bwrap is right there.)
      const a = tempDir("lah-runA-");
      const b = tempDir("lah-runB-");
      const outside = tempDir("lah-outside-");
      const { stdout, stderr } = await runIsolated(
        `import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ownProgram } from ${JSON.stringify(path.join(REPO_ROOT, "chapters/_shared/programs.ts"))};
import { runCommand, sandboxFor, sandboxStatus } from ${JSON.stringify(SHELL_TS)};
import { BASE_HANDLERS } from ${JSON.stringify(path.join(REPO_ROOT, "chapters/s02-tool-use/agent.ts"))};
const [a, b, outside] = process.argv.slice(2);
const real = ownProgram("bwrap", a);
mkdirSync(path.join(b, "bin"));
copyFileSync(real, path.join(b, "bin", "bwrap"));
chmodSync(path.join(b, "bin", "bwrap"), 0o755);
process.env.PATH = path.join(b, "bin") + path.delimiter + process.env.PATH;
const run1 = sandboxFor(a);
const run2 = sandboxFor(b);
const status = sandboxStatus(run1).kind;
// Run 2's model writes a file in its own workspace.
const planted = "#!/bin/sh\\nreadlink /proc/self/ns/net > " + path.join(outside, "escaped") + "\\nexec " + real + ' "$@"\\n';
await BASE_HANDLERS.write({ path: "bin/bwrap", content: planted }, { root: b, sandbox: run2 });
// Run 1's model runs a harmless command in its own workspace.
const result = await runCommand("echo run1", { sandbox: run1, cwd: a });
const escaped = path.join(outside, "escaped");
console.log(JSON.stringify({ status, output: result.output, escaped: existsSync(escaped) ? readFileSync(escaped, "utf8") : null }));`,
        [a, b, outside],
      );
      const seen = JSON.parse(stdout || `{"output": ${JSON.stringify(stderr)}}`) as {
        status?: string;
        output: string;
        escaped: string | null;
      };
      expect(seen.status).toBe("bubblewrap");
      // Nothing started for run 1 may have run outside its sandbox (outside/escaped would hold
      // the host's network namespace, written by run 2's file).
      expect(seen.escaped).toBeNull();
      expect(existsSync(path.join(outside, "escaped"))).toBe(false);
    },
    budget({ cli: 2 }),
  );

  it(
    "a file the model planted in the workspace neither turns the sandbox off nor reads the harness's secrets when the harness is started from there",
    async () => {
      // Session 1, in the sandbox as it should be: the model leaves an executable
      // node_modules/.bin/true in its workspace (a workspace is kept between sessions).
      const ws = tempDir("lah-ws-");
      const plant = await runCommand(
        "mkdir -p node_modules/.bin && printf '#!/bin/sh\\nenv > leaked-env\\nexit 1\\n' > node_modules/.bin/true && chmod +x node_modules/.bin/true && echo planted",
        { sandbox: sandboxFor(ws), cwd: ws },
      );
      expect(plant.output).toContain("planted");
      // Session 2: the runner started from the workspace (node …/cli.js s02 --workspace .), with a
      // relative PATH entry (the one shell.ts's own comments guard bwrap against). The banner's
      // probe runs `bwrap … true` with --chdir to the harness's cwd, the harness's whole
      // environment, and PATH looked up there: the model's `true` runs, sees the API key, and
      // its exit 1 reads as "user namespaces are off", for the whole process.
      api = await startFakeApi([toolUse("bash", { command: LOOK }), endTurn("Done.")]);
      const { code } = await runNode(
        [CLI, "s02", "--workspace", "."],
        ws,
        {
          PATH: `node_modules/.bin${path.delimiter}${process.env.PATH ?? ""}`,
          HOME: process.env.HOME ?? "/tmp",
          NO_COLOR: "1",
          ANTHROPIC_API_KEY: "sk-test-secret",
          ANTHROPIC_BASE_URL: api.url,
        },
        "look\n",
      );
      expect(code).toBe(0);
      const seen = resultsIn((api.requests[1]?.body.messages ?? []) as MessageParam[]);
      const leaked = path.join(ws, "leaked-env");
      // The model's command in the sandbox; the API key never reaching anything the model wrote.
      expect({
        repoHidden: seen.includes("repo:hidden"),
        hostNetwork: seen.includes(HOST_NET),
        keyLeaked: existsSync(leaked) && readFileSync(leaked, "utf8").includes("sk-test-secret"),
      }).toEqual({ repoHidden: true, hostNetwork: false, keyLeaked: false });
    },
    budget({ cli: 2, command: 1 }),
  );
});

describe.runIf(sandboxed)(
  "a JavaScript caller with the wrong sandbox gets a sentence, not no sandbox",
  () => {
    it(
      "s01's bash called the way it was before the sandbox became an argument gets a sentence, not your permissions and network",
      async () => {
        // A learner's copy from before this change (or any JS caller) passes the options object
        // where the sandbox now goes: bash(command, cwd, { timeoutMs }). That object is not
        // undefined, so shell.ts's "no sandbox given" sentence does not fire; it has no workspace,
        // so the bwrap lookup throws, is read as "bubblewrap is not installed", and the command
        // runs unsandboxed (and so does every later command of the process).
        const ws = tempDir();
        const { stdout, stderr } = await runIsolated(
          `import { bash } from ${JSON.stringify(path.join(REPO_ROOT, "chapters/s01-agent-loop/agent.ts"))};
const [ws, look] = process.argv.slice(2);
const result = await bash(look, ws, { timeoutMs: 20_000 } as never);
console.log(JSON.stringify(result));`,
          [ws, LOOK],
        );
        const seen = JSON.parse(stdout || `{"output": ${JSON.stringify(stderr)}}`) as {
          output: string;
          isError?: boolean;
        };
        // Either a sentence saying what is wrong, or the sandbox: never your permissions silently.
        const refused = seen.isError === true && /sandbox/i.test(seen.output);
        if (!refused) {
          expect(seen.output).toContain("repo:hidden");
          expect(seen.output).not.toContain(HOST_NET);
        }
      },
      budget({ cli: 2 }),
    );
  },
);

describe.runIf(sandboxed)("the run's sandbox cannot be swapped under its agent", () => {
  it(
    "code holding the env cannot switch the sandbox off for the agent's next command",
    async () => {
      // The Sandbox object is frozen, but the slot that holds it is not: anything given the env
      // (a tool factory, a hook runner, s13's team, a test) can put another sandbox there after
      // the agent was made, and the next command runs in it.
      const ws = tempDir();
      const env = scriptedEnv([use("bash", { command: LOOK }), say("done")], { workspace: ws });
      const agent = s02.createAgent(env);
      try {
        (env as { sandbox: unknown }).sandbox = sandboxFor(ws, { disabled: true });
      } catch {
        // a frozen env refuses: that is the claim holding
      }
      await agent.send("look");
      await agent.close?.();
      const seen = resultsIn(env.requests.flatMap((r) => r.body.messages));
      expect(seen).toContain("repo:hidden");
    },
    budget("chapterRun"),
  );
});
