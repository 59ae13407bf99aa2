// s09's memory, attacked (issue 22, item 5). The harness itself reads `.memory/` into every system
// prompt and writes it for save_memory, so a link the model planted there used to decide what the
// harness read (the API key from /proc/self/environ, any file the user can read) and where it wrote.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scanSkills } from "../../chapters/s04-skill-loading/agent.ts";
import { createAgent, loadMemories } from "../../chapters/s09-memory-system/agent.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { killAfterTest, scriptedEnv, tempDir } from "../support/helpers.ts";
import { spawn } from "node:child_process";

const MEMORY =
  "---\nname: Stolen\ndescription: read from outside\ntype: user\n---\n\nouter-secret\n";

describe("s09: the harness reads and writes memory through the jail", () => {
  // Plan: `ln -s /proc/self/environ .memory/MEMORY.md`; the next request's system prompt would
  // carry the harness's environment, API key included.
  it("an index linked to /proc/self/environ is not read into the system prompt", async () => {
    const env = scriptedEnv([say("hi")]);
    mkdirSync(path.join(env.workspace, ".memory"));
    symlinkSync("/proc/self/environ", path.join(env.workspace, ".memory/MEMORY.md"));
    // One real memory, so the index is shown at all.
    writeFileSync(path.join(env.workspace, ".memory/tabs.md"), MEMORY.replace("Stolen", "Tabs"));
    await createAgent(env).send("hello");
    // /proc/self/environ holds the environment the process started with (process.env changes
    // later do not show there): any of its entries in the prompt is the leak.
    const started = readFileSync("/proc/self/environ", "utf8").split("\0").filter(Boolean);
    const system = String(env.requests[0].body.system);
    expect(started.filter((entry) => system.includes(entry))).toEqual([]);
    const notes = env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
    expect(notes.some((n) => /MEMORY\.md.*symlink/.test(n))).toBe(true);
  });

  // Plan: a memory file linked to a file outside the workspace that looks like a memory.
  it("a memory file linked outside is skipped, with the reason", () => {
    const ws = tempDir();
    const outside = path.join(tempDir(), "stolen.md");
    writeFileSync(outside, MEMORY);
    mkdirSync(path.join(ws, ".memory"));
    symlinkSync(outside, path.join(ws, ".memory/stolen.md"));
    const { memories, skipped } = loadMemories(path.join(ws, ".memory"));
    expect(memories).toEqual([]);
    expect(skipped.join("\n")).toMatch(/stolen\.md: .*symlink/);
  });

  // Plan: `.memory` itself linked to a folder outside: its files would be read, and save_memory
  // would write there.
  it("a .memory folder linked outside is neither read nor written", async () => {
    const outside = tempDir();
    writeFileSync(path.join(outside, "stolen.md"), MEMORY);
    writeFileSync(path.join(outside, "MEMORY.md"), "- [Stolen](stolen.md) — outer-secret\n");
    const env = scriptedEnv([
      use("save_memory", { name: "Tabs", description: "tabs", type: "user", content: "tabs" }),
      say("saved"),
    ]);
    symlinkSync(outside, path.join(env.workspace, ".memory"));
    await createAgent(env).send("remember tabs");
    expect(String(env.requests[0].body.system)).not.toContain("outer-secret");
    expect(readdirSync(outside).sort()).toEqual(["MEMORY.md", "stolen.md"]);
    const result = env.io.trace.find((e) => e.kind === "tool_result");
    expect(result).toMatchObject({ is_error: true });
    expect(existsSync(path.join(outside, "tabs.md"))).toBe(false);
  });
});

describe("s04: the skills folder is read through the jail too", () => {
  // Plan: `skills` linked to a folder outside; its folder names used to be listed (and reported).
  it("a skills folder linked outside is not listed", () => {
    const ws = tempDir();
    const outside = tempDir();
    mkdirSync(path.join(outside, "private-project-name"));
    symlinkSync(outside, path.join(ws, "skills"));
    const index = scanSkills(ws);
    expect(JSON.stringify(index)).not.toContain("private-project-name");
    expect(index.problems).toEqual([
      {
        folder: "skills",
        reason: expect.stringMatching(/escapes the workspace through a symlink/),
      },
    ]);
  });
});

describe("the skills and memory folders are listed race-free", () => {
  // Plan (found by the independent attacker): a concurrent command flips `skills` between a real
  // folder and a link to the home folder while the harness scans it; the scan used to check the
  // path, then list it by name, so names from outside leaked (and an ENOENT ended the turn).
  it("a folder flipped to a link to outside while it is scanned never lists outside names", async () => {
    const ws = tempDir();
    const outside = tempDir();
    mkdirSync(path.join(outside, "secret-project-name"));
    mkdirSync(path.join(ws, "real-skills/a"), { recursive: true });
    const flipper = killAfterTest(
      spawn(
        "bash",
        [
          "-c",
          `cd ${ws}; for i in $(seq 4000); do ln -sfn real-skills skills; rm -f skills; ` +
            `ln -s ${outside} skills; rm -f skills; done`,
        ],
        { stdio: "ignore", detached: true }, // its own group: one kill ends its ln and rm too
      ),
    );
    let scans = 0;
    try {
      while (flipper.exitCode === null && scans < 3000) {
        const index = scanSkills(ws);
        expect(JSON.stringify(index)).not.toContain("secret-project-name");
        const memory = loadMemories(path.join(ws, "skills"));
        expect(JSON.stringify(memory)).not.toContain("secret-project-name");
        scans++;
        if (scans % 50 === 0) await new Promise((r) => setImmediate(r));
      }
    } finally {
      // Wait for it to end: its last link must not land while the folder is being removed.
      const ended = new Promise((resolve) =>
        flipper.exitCode === null ? flipper.once("exit", resolve) : resolve(null),
      );
      try {
        process.kill(-flipper.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      await ended;
    }
    expect(scans).toBeGreaterThan(10);
  });
});
