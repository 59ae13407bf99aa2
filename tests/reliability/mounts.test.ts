// What decides the sandbox's mounts, attacked. The plan of each attack is in its test's comment.
// Before the fix (issue 22, items 1 and 7): a `.git` file the model wrote chose a folder that was
// then bound writable (`/`, so the next command wrote anywhere and read the home folder), and a
// `bin` folder on PATH showed its whole parent (~/.cargo with credentials.toml, ~/.local with
// the keyrings).
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapArgs, runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import { bash } from "../../chapters/s01-agent-loop/agent.ts";
import { ownProgram } from "../../chapters/_shared/programs.ts";
import { tempDir, machineSandbox } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";

const sandboxed = machineSandbox().kind === "bubblewrap";
const run = async (command: string, cwd: string) =>
  (await runCommand(command, { sandbox: sandboxFor(cwd), cwd, timeoutMs: budget("command") }))
    .output;

/** Runs `fn` with HOME and PATH set for it (bwrapArgs reads both when a command starts). */
async function withHomeAndPath<T>(home: string, pathDirs: string[], fn: () => Promise<T>) {
  const saved = { HOME: process.env.HOME, PATH: process.env.PATH };
  process.env.HOME = home;
  process.env.PATH = [...pathDirs, saved.PATH].join(":");
  try {
    return await fn();
  } finally {
    process.env.HOME = saved.HOME;
    process.env.PATH = saved.PATH;
  }
}

describe.runIf(sandboxed)("the sandbox's mounts come only from what the harness knows", () => {
  // Plan: a `.git` file naming a folder whose `commondir` says `/`; the harness used to read both
  // and bind the result writable. The next command then writes beside the workspace.
  it("a .git file and commondir planted by the model bind nothing", async () => {
    const parent = tempDir();
    const ws = path.join(parent, "ws");
    mkdirSync(ws);
    await run("mkdir -p g && printf '/\\n' > g/commondir && printf 'gitdir: g\\n' > .git", ws);
    const escaped = path.join(parent, "escaped.txt");
    const out = await run(`echo pwned > ${escaped}; echo done`, ws);
    expect(out).toContain("done");
    expect(existsSync(escaped)).toBe(false);
  });

  // Plan: the same through a lane-shaped `.git` (gitdir: .git/worktrees/x, commondir ../../..),
  // which s12's write tool could plant in a lane folder.
  it("a worktree-shaped .git pointing up and out binds nothing either", async () => {
    const parent = tempDir();
    const ws = path.join(parent, "ws");
    mkdirSync(path.join(ws, "meta/worktrees/x"), { recursive: true });
    writeFileSync(path.join(ws, "meta/worktrees/x/commondir"), "../../../..\n");
    writeFileSync(path.join(ws, ".git"), "gitdir: meta/worktrees/x\n");
    const escaped = path.join(parent, "escaped.txt");
    await run(`echo pwned > ${escaped}`, ws);
    expect(existsSync(escaped)).toBe(false);
  });

  // Plan: a working folder that is a symlink the model made (`.worktrees/x -> ..`): the harness
  // used to resolve it and bind the folder it named writable.
  it("a working folder reached through a symlink is refused, not bound", async () => {
    const parent = tempDir();
    const ws = path.join(parent, "ws");
    mkdirSync(path.join(ws, ".worktrees"), { recursive: true });
    symlinkSync(parent, path.join(ws, ".worktrees", "x"));
    const escaped = path.join(parent, "escaped.txt");
    const lane = path.join(ws, ".worktrees", "x");
    const result = await runCommand(`echo pwned > ${escaped}`, {
      sandbox: sandboxFor(lane),
      cwd: lane,
      timeoutMs: budget("command"),
    });
    expect(existsSync(escaped)).toBe(false);
    expect(result).toMatchObject({ refused: true, output: expect.stringMatching(/symlink/) });
    // ...and the bash tool reports it as an error, not as a command's output.
    const viaTool = await bash("true", lane, sandboxFor(lane));
    expect(viaTool).toMatchObject({ isError: true, output: expect.stringMatching(/symlink/) });
  });

  // Plan: rustup's and pip's defaults put ~/.cargo/bin and ~/.local/bin on PATH; the sandbox
  // showed their parents, and with them ~/.cargo/credentials.toml and ~/.local/share/keyrings.
  // Also nvm's and pyenv's trees. The tools must still run; the secrets must stay hidden.
  it("tool folders on PATH show their tools, never a folder that holds credentials", async () => {
    const home = path.join(tempDir(), "home");
    const secrets: Record<string, string> = {
      ".ssh/id_rsa": "ssh-secret",
      ".aws/credentials": "aws-secret",
      ".config/gh/hosts.yml": "gh-secret",
      ".npmrc": "npm-secret",
      ".netrc": "netrc-secret",
      ".cargo/credentials.toml": "cargo-secret",
      ".local/share/keyrings/login.keyring": "keyring-secret",
      ".pyenv/version": "pyenv-ok",
      "project/.env": "dotenv-secret",
    };
    for (const [file, text] of Object.entries(secrets)) {
      mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
      writeFileSync(path.join(home, file), text);
    }
    const tool = (dir: string, name: string, body: string) => {
      mkdirSync(path.join(home, dir), { recursive: true });
      writeFileSync(path.join(home, dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    };
    // nvm: bin/npm runs code from ../lib; pip --user: scripts import from ~/.local/lib.
    mkdirSync(path.join(home, ".nvm/versions/node/v20/lib/node_modules/npm"), { recursive: true });
    writeFileSync(
      path.join(home, ".nvm/versions/node/v20/lib/node_modules/npm/cli.sh"),
      "echo npm-ok",
    );
    tool(
      ".nvm/versions/node/v20/bin",
      "lah-npm",
      `. ${home}/.nvm/versions/node/v20/lib/node_modules/npm/cli.sh`,
    );
    mkdirSync(path.join(home, ".local/lib/python3/site-packages"), { recursive: true });
    writeFileSync(path.join(home, ".local/lib/python3/site-packages/mod.sh"), "echo pip-ok");
    tool(".local/bin", "lah-pip", `. ${home}/.local/lib/python3/site-packages/mod.sh`);
    tool(".cargo/bin", "lah-cargo", "echo cargo-ok");
    tool(".pyenv/bin", "lah-pyenv", "echo pyenv-bin-ok");
    tool(".pyenv/shims", "lah-py", "echo shim-ok");
    const onPath = [
      ".nvm/versions/node/v20/bin",
      ".local/bin",
      ".cargo/bin",
      ".pyenv/bin",
      ".pyenv/shims",
    ];
    const ws = tempDir();
    const out = await withHomeAndPath(
      home,
      onPath.map((d) => path.join(home, d)),
      () =>
        run(
          `lah-npm; lah-pip; lah-cargo; lah-pyenv; lah-py; ` +
            Object.keys(secrets)
              .map((f) => `cat ${home}/${f} 2>/dev/null; echo`)
              .join("; "),
          ws,
        ),
    );
    // (It failed twice under heavy load, not reproduced since: the message keeps what was seen.)
    for (const ok of ["npm-ok", "pip-ok", "cargo-ok", "pyenv-bin-ok", "shim-ok"])
      expect(out, `${ok} missing from the output:\n${out}`).toContain(ok);
    for (const [file, text] of Object.entries(secrets))
      if (text.endsWith("-secret")) expect(out, file).not.toContain(text);
  });

  // Plan: a PATH entry that is itself a link to the home folder (`~/bin -> ~`), or a folder that
  // holds secrets by name (~/.ssh on PATH): showing it would show the secrets.
  it("a PATH entry that is (or links to) a secret store is not shown", async () => {
    const home = path.join(tempDir(), "home");
    mkdirSync(path.join(home, ".ssh"), { recursive: true });
    writeFileSync(path.join(home, ".ssh/id_rsa"), "ssh-secret");
    symlinkSync(home, path.join(home, "bin"));
    const args = await withHomeAndPath(
      home,
      [path.join(home, "bin"), path.join(home, ".ssh")],
      async () => {
        const dir = tempDir();
        return bwrapArgs(sandboxFor(dir), dir, []);
      },
    );
    const shown = args.flatMap((a, i) => (args[i - 1] === "--ro-bind" ? [a] : []));
    expect(shown.filter((d) => d.startsWith(home))).toEqual([]);
    const out = await withHomeAndPath(home, [path.join(home, "bin"), path.join(home, ".ssh")], () =>
      run(`cat ${home}/.ssh/id_rsa ${home}/bin/.ssh/id_rsa 2>/dev/null; echo end`, tempDir()),
    );
    expect(out).not.toContain("ssh-secret");
    rmSync(path.join(home, "bin"));
    expect(readFileSync(path.join(home, ".ssh/id_rsa"), "utf8")).toBe("ssh-secret");
  });

  // Plan (found by the independent attacker): `--unshare-net` does not cover sockets that are
  // files. With / shown read-only, a command could still connect() to /run/user/$UID/bus
  // (systemd-run: a command outside the sandbox), /var/run/docker.sock, PostgreSQL's socket, …
  const runWritable = (() => {
    try {
      accessSync("/run", constants.W_OK);
      return true;
    } catch {
      return false;
    }
  })();
  it.runIf(runWritable)("cannot connect to a Unix socket under /run", async () => {
    const socket = `/run/lah-test-${process.pid}.sock`;
    let connections = 0;
    const server = createServer((c) => {
      connections++;
      c.end("hello from outside\n");
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const out = await run(
        `node -e "require('net').connect('${socket}').on('data', d => console.log('GOT', String(d))).on('error', e => console.log('ERR', e.code))"; ls /run /var/run 2>&1 | head -5`,
        tempDir(),
      );
      expect(out).not.toContain("GOT");
      expect(connections).toBe(0);
    } finally {
      server.close();
      rmSync(socket, { force: true });
    }
  });

  // Plan (found by the hooks engineer): the harness starts `bwrap` by name, so with a relative
  // entry on its PATH (`.`, `bin`, `node_modules/.bin`) the workspace's own `bin/bwrap` ran, outside
  // any sandbox, for every command.
  it("the harness's bwrap is its own, never a file in the workspace", async () => {
    const parent = tempDir();
    const ws = path.join(parent, "ws");
    mkdirSync(path.join(ws, "bin"), { recursive: true });
    const marker = path.join(parent, "fake-bwrap-ran");
    writeFileSync(path.join(ws, "bin/bwrap"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `bin:${saved}`;
    try {
      const out = await run("echo inside", ws);
      expect(out).toContain("inside");
    } finally {
      process.env.PATH = saved;
    }
    expect(existsSync(marker)).toBe(false);
  });

  // Plan (found by the independent attacker): with a workspace folder on the harness's PATH (a
  // direnv'd `bin`), the model replaced `bin` with a link to ~/Documents, and the sandbox showed
  // the link's target as a tool folder.
  it("a PATH folder inside the workspace is not shown as a tool folder, whatever it links to", async () => {
    const home = path.join(tempDir(), "home");
    mkdirSync(path.join(home, "Documents"), { recursive: true });
    writeFileSync(path.join(home, "Documents/diary.txt"), "dear-diary");
    const ws = path.join(home, "code/app");
    mkdirSync(ws, { recursive: true });
    symlinkSync(path.join(home, "Documents"), path.join(ws, "bin"));
    const out = await withHomeAndPath(home, [path.join(ws, "bin")], () =>
      run(`cat ${home}/Documents/diary.txt bin/diary.txt 2>/dev/null; echo end`, ws),
    );
    expect(out).not.toContain("dear-diary");
  });

  // Plan (found by the independent attacker): the harness checked where `bwrap` on PATH led,
  // then started it by its name; a link switched between the two ran the model's script.
  it("the harness's own programs are started by the path it checked", () => {
    const dir = tempDir();
    symlinkSync("/bin/true", path.join(dir, "lah-prog"));
    const saved = process.env.PATH;
    process.env.PATH = `${dir}:${saved}`;
    try {
      expect(ownProgram("lah-prog", tempDir())).toBe(realpathSync("/bin/true"));
    } finally {
      process.env.PATH = saved;
    }
  });

  // a3's type check runs a harness file (its script, the harness's TypeScript) in the sandbox,
  // which hides the repository: the harness names those files, and they are shown read-only,
  // by handle, each alone (not the folder around it).
  it("files the harness shows a command are read-only, and what lies beside them stays hidden", async () => {
    const harness = tempDir();
    writeFileSync(path.join(harness, "shown.txt"), "shown\n");
    writeFileSync(path.join(harness, "beside.txt"), "beside\n");
    const ws = tempDir();
    const shown = path.join(harness, "shown.txt");
    const { output } = await runCommand(
      `cat '${shown}'; echo more >> '${shown}' && echo WROTE; cat '${path.join(harness, "beside.txt")}' || echo HIDDEN`,
      { sandbox: sandboxFor(ws), cwd: ws, timeoutMs: budget("command"), readable: [shown] },
    );
    expect(output).toContain("shown");
    expect(output).not.toContain("WROTE");
    expect(output).toContain("HIDDEN");
    expect(readFileSync(shown, "utf8")).toBe("shown\n");
  });
});
