// The runner behind every command the model starts (bash tool, hooks, background jobs): process
// groups, timeouts, output caps, an environment with no secrets, and multi-byte characters intact.
import { describe, expect, it } from "vitest";
import { commandEnv, runCommand, startCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import { bash } from "../../chapters/s01-agent-loop/agent.ts";
import { processesNamed, tempDir, waitFor, scratch, scratchArgs } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";
import { SECRET_VARIABLES } from "../support/attack-sets.ts";

const marker = (what: string) => `lah-${what}-${process.pid}-${Date.now()}`;

describe("shell", () => {
  it("runs with the workspace as its working directory", async () => {
    const ws = tempDir();
    const { output } = await runCommand("pwd", { sandbox: sandboxFor(ws), cwd: ws });
    expect(output.trim()).toBe(ws);
  });

  it("a timeout kills the whole process group: no sleeping child is left behind", async () => {
    const name = marker("orphan");
    const result = await runCommand(`(exec -a ${name} sleep 30) & wait`, {
      ...scratch(),
      timeoutMs: 500,
    });
    expect(result.timedOut).toBe(true);
    await waitFor(() => processesNamed(name) === 0, `${name} to end`);
  });

  it("a command that exits leaves no background child running either", async () => {
    const name = marker("bg");
    const result = await runCommand(`(exec -a ${name} sleep 30) & echo started`, {
      ...scratch(),
    });
    expect(result.output.trim()).toBe("started");
    await waitFor(() => processesNamed(name) === 0, `${name} to end`);
  });

  it("a grandchild that leaves the process group (setsid) neither hangs the command nor outlives it", async () => {
    const name = marker("setsid");
    // The grandchild outlives the command's timeout: had the command waited for it (for the
    // output pipe it holds), the command would have timed out.
    const timeoutMs = budget("command");
    const outlives = Math.ceil((2 * timeoutMs) / 1000);
    const result = await runCommand(
      `setsid bash -c 'exec -a ${name} sleep ${outlives}' & echo started`,
      { ...scratch(), timeoutMs },
    );
    expect(result.output.trim()).toBe("started");
    expect(result.timedOut).toBe(false);
    // Inside the sandbox's pid namespace the daemon dies with the command. Without a sandbox it
    // would survive: that is why the runner uses one.
    await waitFor(() => processesNamed(name) === 0, `${name} to end`);
  });

  it("kill() ends a running command and everything it started", async () => {
    const name = marker("kill");
    const run = startCommand(`(exec -a ${name} sleep 30) & (exec -a ${name} sleep 30) & wait`, {
      ...scratch(),
    });
    await waitFor(() => processesNamed(name) === 2, `${name} to start`);
    run.kill();
    await run.done;
    await waitFor(() => processesNamed(name) === 0, `${name} to end`);
  });

  it("caps the output it collects", async () => {
    const result = await runCommand("yes | head -c 1000000", { ...scratch(), maxOutput: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBe(10_000);
  });

  it("keeps a multi-byte character whole when it is split across two chunks", async () => {
    const result = await runCommand(
      `printf '\\xe3\\x81'; sleep 0.2; printf '\\x82 \\xf0\\x9f'; sleep 0.2; printf '\\x98\\x80'`,
      { ...scratch() },
    );
    expect(result.output).toBe("あ 😀");
    expect(result.output).not.toContain("\uFFFD");
  });

  it("passes stdin and keeps stdout and stderr apart", async () => {
    const result = await runCommand("cat; echo oops >&2", {
      ...scratch(),
      stdin: "hello",
      shell: "sh",
    });
    expect(result.stdout).toBe("hello");
    expect(result.stderr).toBe("oops\n");
  });
});

describe("shell: the environment names no secrets", () => {
  const secrets = SECRET_VARIABLES;

  it("passes only an allow-list of names: unknown names never reach a command", async () => {
    const env = commandEnv({ ...secrets, PATH: "/usr/bin", LANG: "C.UTF-8", LC_ALL: "C" });
    expect(env).toEqual({ PATH: "/usr/bin", LANG: "C.UTF-8", LC_ALL: "C", HOME: "/tmp" });
  });

  it("a command's env shows none of the harness's secrets", async () => {
    const saved = Object.fromEntries(Object.keys(secrets).map((k) => [k, process.env[k]]));
    Object.assign(process.env, secrets);
    try {
      const { output } = await bash("env", ...scratchArgs());
      for (const value of Object.values(secrets)) expect(output).not.toContain(value);
      expect(output).toContain("PATH=");
    } finally {
      // Key by key: a plain object put in process.env's place is no longer the environment
      // (os.homedir() and every later test in this worker would read another one).
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});
