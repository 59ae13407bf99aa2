// The shell runner behind every bash tool: process-group kill, output cap, no secrets.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCommand, scrubbedEnv } from "../../chapters/_shared/shell.ts";
import { bash } from "../../chapters/s01-agent-loop/agent.ts";
import { tempDir } from "../helpers.ts";

/** Running (not gone, not a zombie waiting to be reaped by an init that never reaps). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
};

describe("shell", () => {
  it("runs with the workspace as its working directory", async () => {
    const ws = tempDir();
    const { output } = await runCommand("pwd", { cwd: ws });
    expect(output.trim()).toBe(ws);
  });

  it("a timeout kills the whole process group: no sleeping child is left behind", async () => {
    const ws = tempDir();
    const marker = `lah-orphan-${process.pid}-${Date.now()}`;
    const result = await runCommand(`(exec -a ${marker} sleep 30) & echo "child $!"; wait`, { cwd: ws, timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    const childPid = Number(/child (\d+)/.exec(result.output)?.[1]);
    expect(childPid).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(childPid)).toBe(false);
    const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(ps).not.toContain(marker);
  });

  it("a command that exits leaves no background child running either", async () => {
    const result = await runCommand("sleep 30 & echo $!", { cwd: tempDir() });
    const pid = Number(result.output.trim());
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(pid)).toBe(false);
  });

  it("caps the output it collects", async () => {
    const result = await runCommand("yes | head -c 1000000", { cwd: tempDir(), maxOutput: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBe(10_000);
  });

  it("hides secrets from the environment the model's commands see", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { ANTHROPIC_API_KEY: "sk-ant-secret", ANTHROPIC_AUTH_TOKEN: "tok", GITHUB_TOKEN: "gh", MY_PASSWORD: "pw" });
    try {
      const { output } = await bash("echo \"[$ANTHROPIC_API_KEY][$ANTHROPIC_AUTH_TOKEN][$GITHUB_TOKEN][$MY_PASSWORD]\"; env | grep -ci -e secret -e sk-ant || true", tempDir());
      expect(output).toBe("[][][][]\n0");
      expect(scrubbedEnv().PATH).toBe(process.env.PATH);
    } finally {
      process.env = saved;
    }
  });
});

describe("shell: a grandchild that leaves the process group", () => {
  it("does not keep the command hanging after it exits", async () => {
    const start = Date.now();
    const result = await runCommand("setsid sleep 20 & echo started", { cwd: tempDir(), timeoutMs: 10_000 });
    expect(result.output.trim()).toBe("started");
    expect(result.timedOut).toBe(false);
    expect(Date.now() - start).toBeLessThan(9_000);
    try {
      execFileSync("pkill", ["-f", "^sleep 20$"], { stdio: "ignore" }); // tidy up the escaped sleeper
    } catch {
      // already gone
    }
  });
});
