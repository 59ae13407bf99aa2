// The sandbox, attacked: what a command the model runs must not be able to do. Each case ran
// unsandboxed before (the command saw the harness's /proc, the repository's .env, the home
// folder, the network, and could write anywhere the user can).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import { tempDir, machineSandbox } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";

const sandboxed = machineSandbox().kind === "bubblewrap";

describe("sandbox availability", () => {
  // CI installs bubblewrap (.ci/run); there the attack tests below must run, not skip.
  it.runIf(process.env.CI)("starts on CI", () => {
    expect(machineSandbox().kind).toBe("bubblewrap");
  });
  // Where bubblewrap is missing the attacks below are skipped; this line says so in the output.
  it.runIf(!sandboxed)(
    "NOT RUN: bubblewrap is missing, so the sandbox attacks are skipped (apt-get install bubblewrap)",
    () => {
      console.warn(`sandbox attacks skipped: ${machineSandbox().summary}`);
    },
  );
  it("says in one line what it is", () => {
    expect(machineSandbox().summary).toMatch(/^sandbox: /);
    expect(machineSandbox().summary).not.toContain("\n");
  });
});

describe.runIf(sandboxed)("sandbox: a command the model runs", () => {
  const run = async (command: string, cwd = tempDir()) =>
    (await runCommand(command, { sandbox: sandboxFor(cwd), cwd, timeoutMs: budget("command") }))
      .output;
  const homeSecret = path.join(homedir(), `.lah-test-secret-${process.pid}`);
  afterAll(() => rmSync(homeSecret, { force: true }));

  it("writes inside the workspace", async () => {
    const ws = tempDir();
    await run("mkdir -p a/b && echo hi > a/b/f.txt", ws);
    expect(existsSync(path.join(ws, "a/b/f.txt"))).toBe(true);
  });

  it("cannot write beside the workspace, in the repository, in /tmp of the host or in /etc", async () => {
    const parent = tempDir();
    const ws = path.join(parent, "ws");
    mkdirSync(ws);
    const targets = [
      path.join(parent, "beside.txt"),
      path.join(REPO_ROOT, `lah-escape-${process.pid}.txt`),
      // the learner's copies, which `npm run chapter -- --mine` runs outside any sandbox
      path.join(REPO_ROOT, "workbench", `lah-escape-${process.pid}.ts`),
      `/tmp/lah-escape-${process.pid}`,
      `/etc/lah-escape-${process.pid}`,
    ];
    const out = await run(
      targets.map((t) => `mkdir -p ${path.dirname(t)}; echo x > ${t}; touch ${t}`).join("; ") +
        "; echo done",
      ws,
    );
    expect(out).toContain("done");
    for (const t of targets) expect(existsSync(t), t).toBe(false);
  });

  it("cannot read the harness's environment through /proc", async () => {
    const secret = `sk-ant-proc-${process.pid}`;
    process.env.LAH_TEST_PROC_SECRET = secret;
    try {
      const out = await run(
        "cat /proc/$PPID/environ; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; ls /proc | grep -c '^[0-9]'",
      );
      expect(out).not.toContain(secret);
      // Only the sandbox's own few processes exist in its pid namespace.
      expect(Number(out.trim().split("\n").at(-1))).toBeLessThan(10);
    } finally {
      delete process.env.LAH_TEST_PROC_SECRET;
    }
  });

  it("cannot read the repository (.env, the source, other workspaces) even from a default workspace", async () => {
    const ws = path.join(REPO_ROOT, ".workspace", `lah-test-${process.pid}`);
    mkdirSync(ws, { recursive: true });
    // A secret in the repository's .env: planted when there is none (a real one is only read).
    const env = path.join(REPO_ROOT, ".env");
    const planted = !existsSync(env);
    if (planted) writeFileSync(env, `ANTHROPIC_API_KEY=sk-ant-dotenv-${process.pid}\n`);
    const secret = readFileSync(env, "utf8").trim().split("\n")[0];
    try {
      const out = await run(
        "cat ../../package.json ../../.env 2>&1; echo ---; ls -A ../..; ls -A ..",
        ws,
      );
      expect(out).not.toContain("learn-agent-harness");
      if (secret) expect(out).not.toContain(secret);
      // The repository is empty but for the path down to this workspace (and node_modules/.bin,
      // read-only, when npm put it on PATH).
      const listed = out.split("---\n")[1].trim().split("\n");
      expect(listed.filter((f) => f !== "node_modules")).toEqual([".workspace", path.basename(ws)]);
    } finally {
      rmSync(ws, { recursive: true, force: true });
      if (planted) rmSync(env, { force: true });
    }
  });

  it("cannot read the home folder (.ssh, tokens)", async () => {
    writeFileSync(homeSecret, "home-secret-value");
    const out = await run(`cat ${homeSecret} ~/.ssh/id_rsa 2>&1; echo ---; ls -A ${homedir()}`);
    expect(out).not.toContain("home-secret-value");
    // Empty, but for tool folders on PATH (~/.cargo/bin, say), shown read-only.
    const listed = out.split("---")[1].trim().split("\n").filter(Boolean);
    expect(listed).not.toContain(path.basename(homeSecret));
    expect(listed).not.toContain(".ssh");
    for (const entry of listed) expect(process.env.PATH).toContain(path.join(homedir(), entry));
  });

  it("still finds tools installed under the hidden home folder (nvm's node, say), read-only", async () => {
    const tools = path.join(homedir(), `.lah-test-tools-${process.pid}`);
    mkdirSync(path.join(tools, "bin"), { recursive: true });
    mkdirSync(path.join(tools, "lib"), { recursive: true });
    writeFileSync(path.join(tools, "lib", "impl.sh"), "echo tool-works");
    writeFileSync(path.join(tools, "bin", "lah-tool"), `#!/bin/sh\n. ${tools}/lib/impl.sh\n`, {
      mode: 0o755,
    });
    writeFileSync(homeSecret, "home-secret-value");
    const saved = process.env.PATH;
    process.env.PATH = `${path.join(tools, "bin")}:${saved}`;
    try {
      const out = await run(`lah-tool; touch ${tools}/lib/x 2>&1 || true; cat ${homeSecret} 2>&1`);
      expect(out).toContain("tool-works");
      expect(existsSync(path.join(tools, "lib", "x"))).toBe(false);
      expect(out).not.toContain("home-secret-value");
    } finally {
      process.env.PATH = saved;
      rmSync(tools, { recursive: true, force: true });
    }
  });

  it("cannot read /etc/shadow", async () => {
    const out = await run("cat /etc/shadow 2>/dev/null | wc -c");
    expect(out.trim()).toBe("0");
  });

  it("has no network", async () => {
    const server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const out = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3; echo "exit $?"`);
      expect(out).not.toContain("hello from the host");
    } finally {
      server.close();
    }
  });

  // npx -y in a sandbox with no network retried the registry for half a minute before failing.
  it("tells npm there is no network, so npx fails at once with the reason", async () => {
    const out = await run('npx -y @lah-test/no-such-package 2>&1; echo "exit $?"');
    expect(out).toMatch(/ENOTCACHED|only-if-cached/);
    expect(out).toMatch(/exit [1-9]/);
  });
});
