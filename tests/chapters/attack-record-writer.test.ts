// Attack (independent tester): `--record FILE` (chapters/_runner/recording.ts).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startRecording } from "../../chapters/_runner/recording.ts";
import { killAfterTest, tempDir } from "../support/helpers.ts";
import { CLI } from "../support/run-cli.ts";
import { budget } from "../support/budgets.ts";

describe("attack: the workspace's path in an object's key", () => {
  it("is left out of keys too, not only of string values", () => {
    const dir = realpathSync(tempDir());
    const workspace = path.join(dir, "ws");
    mkdirSync(workspace);
    const file = path.join(dir, "run.jsonl");
    const rec = startRecording(
      file,
      { chapter: "s02", name: "s02-tool-use", title: "t", model: "scripted" },
      [workspace],
    );
    // A model's tool input (any JSON: its keys are the model's), or a mailbox message's protocol
    // fields (events.ts: `[protocolField: string]: unknown`).
    rec.write({
      kind: "tool_call",
      agent: "lead",
      id: "t1",
      name: "edit_files",
      input: { [`${workspace}/notes.md`]: "new text" },
    });
    rec.close();
    const text = readFileSync(file, "utf8");
    // Seen: {"...","input":{"/tmp/…/ws/notes.md":"new text"}}: withoutPaths cleans values only.
    expect(text).not.toContain(workspace);
  });
});

describe("attack: --record to a FIFO nobody reads", () => {
  it("is refused (or said), not a harness that hangs silently before its banner", async () => {
    const dir = tempDir();
    const fifo = path.join(dir, "run.jsonl");
    execFileSync("mkfifo", [fifo]);
    const child = spawn(
      process.execPath,
      [CLI, "s01", "--demo", "--workspace", path.join(dir, "ws"), "--record", fifo],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    killAfterTest(child);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), budget("cli"));
      child.on("exit", (c) => (clearTimeout(timer), resolve(c)));
    });
    // Seen: after 15 s, still blocked in openSync(O_WRONLY) on the FIFO, nothing printed but
    // the title line.
    expect(code, `output so far: ${out}`).not.toBeNull();
  });
});
