// The file tools attacked with what a check alone cannot stop: a folder swapped for a symlink
// while the tool runs, hard links, FIFOs, escaped and symlinked glob patterns, huge listings.
import { spawn } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BASE_HANDLERS, runTool } from "../../chapters/s02-tool-use/agent.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { tempDir, waitFor, toolAt } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";

const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}`, name, input }) as ToolUseBlock;
const tool = (ws: string, name: string, input: Record<string, unknown>) =>
  runTool(BASE_HANDLERS, call(name, input), toolAt(ws));

function arena() {
  const base = tempDir("lah-race-");
  const ws = path.join(base, "ws");
  const outside = path.join(base, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "f.txt"), "OUTSIDE original");
  writeFileSync(path.join(outside, "passwd"), "root:x:0:0");
  return { base, ws, outside };
}

// How long the swap race runs: 4 s in the suite (thousands of swaps); RACE_SECONDS=60 for a soak.
const RACE_SECONDS = Number(process.env.RACE_SECONDS ?? 4);
const [MIN_CALLS, MIN_SWAPS] = [1000, 100];

describe("file tools against a swap race", () => {
  it(
    `a folder swapped for a symlink to outside, ${RACE_SECONDS} s long: nothing outside is read, written or changed`,
    async () => {
      const { ws, outside } = arena();
      mkdirSync(path.join(ws, "d"));
      writeFileSync(path.join(ws, "d", "f.txt"), "inside original");
      // The attacker: another process flips ws/d between the real folder and a link to outside.
      const swapper = spawn(
        process.execPath,
        [
          "-e",
          `
      const fs = require("fs"); const [d, real, out] = process.argv.slice(1);
      let flips = 0;
      for (;;) {
        // Each step may fail when the tool got in between (it may even have made a new d): go on.
        try { fs.renameSync(d, real); } catch {}
        try { fs.rmSync(d, { recursive: true, force: true }); } catch {}
        try { fs.symlinkSync(out, d); flips++; } catch {}
        try { fs.unlinkSync(d); } catch {}
        try { if (!fs.existsSync(d)) fs.renameSync(real, d); } catch {}
        // The count is written whole (to a side file, then renamed): the test reads it at any moment.
        if (flips % 100 === 1) { try { fs.writeFileSync(real + ".flips.tmp", String(flips)); fs.renameSync(real + ".flips.tmp", real + ".flips"); } catch {} }
      }`,
          path.join(ws, "d"),
          path.join(ws, "d-real"),
          outside,
        ],
        { stdio: "ignore" },
      );
      try {
        await waitFor(() => existsSync(path.join(ws, "d-real.flips")), "the swapper to start");
        let attempts = 0;
        let leaks = 0;
        // At least RACE_SECONDS long, and on until the floor the s02 page and the README cite (a
        // real race, not a handful of calls): a busy machine makes fewer calls a second, so the
        // race runs longer rather than proving less.
        const end = Date.now() + RACE_SECONDS * 1000;
        const swaps = () => Number(readFileSync(path.join(ws, "d-real.flips"), "utf8"));
        while (Date.now() < end || attempts < MIN_CALLS || swaps() < MIN_SWAPS) {
          for (const [name, input] of [
            ["write", { path: "d/f.txt", content: "written by the tool" }],
            ["write", { path: "d/new.txt", content: "new file" }],
            ["edit", { path: "d/f.txt", old_text: "original", new_text: "edited" }],
            ["read", { path: "d/f.txt" }],
            ["read", { path: "d/passwd" }],
          ] as const) {
            attempts++;
            const { output } = await tool(ws, name, input);
            if (output.includes("OUTSIDE") || output.includes("root:x")) leaks++;
          }
          await new Promise((r) => setImmediate(r));
        }
        const flips = swaps();
        console.log(
          `swap race: ${attempts} tool calls against ${flips}+ swaps to a symlink in ${RACE_SECONDS} s, ${leaks} reads leaked`,
        );
        expect(leaks).toBe(0);
        expect(readdirSync(outside).sort()).toEqual(["f.txt", "passwd"]);
        expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("OUTSIDE original");
      } finally {
        swapper.kill("SIGKILL");
      }
    },
    RACE_SECONDS * 1000 + budget({ unit: 6 }),
  );
});

describe("file tools against odd files", () => {
  it("a hard link to a file outside is neither read nor edited nor overwritten", async () => {
    const { ws, outside } = arena();
    linkSync(path.join(outside, "f.txt"), path.join(ws, "hard.txt"));
    for (const [name, input] of [
      ["read", { path: "hard.txt" }],
      ["edit", { path: "hard.txt", old_text: "original", new_text: "pwned" }],
      ["write", { path: "hard.txt", content: "pwned" }],
    ] as const) {
      const result = await tool(ws, name, input);
      expect(result.isError, name).toBe(true);
      expect(result.output).toMatch(/hard links/);
      expect(result.output).not.toContain("OUTSIDE");
    }
    expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe("OUTSIDE original");
  });

  it("a FIFO is refused at once instead of freezing the harness", async () => {
    const { ws } = arena();
    const made = spawn("mkfifo", [path.join(ws, "pipe")]);
    await new Promise((r) => made.on("exit", r));
    for (const [name, input] of [
      ["read", { path: "pipe" }],
      ["write", { path: "pipe", content: "x" }],
      ["edit", { path: "pipe", old_text: "a", new_text: "b" }],
    ] as const) {
      const result = await tool(ws, name, input);
      expect(result.isError, name).toBe(true);
      expect(result.output).toMatch(/not a regular file/);
    }
  });

  it("a symlink in the workspace that leads outside (to a file or a folder) is refused by read and write", async () => {
    const { ws, outside } = arena();
    symlinkSync(path.join(outside, "f.txt"), path.join(ws, "link.txt"));
    symlinkSync(outside, path.join(ws, "dir-link"));
    for (const p of ["link.txt", "dir-link/f.txt", "dir-link/new.txt"]) {
      expect((await tool(ws, "write", { path: p, content: "x" })).isError, p).toBe(true);
      expect((await tool(ws, "read", { path: p })).isError, p).toBe(true);
    }
    expect(readdirSync(outside).sort()).toEqual(["f.txt", "passwd"]);
  });
});

describe("glob", () => {
  it("escaped and symlinked patterns list nothing outside the workspace", async () => {
    const { ws } = arena();
    writeFileSync(path.join(ws, "in.txt"), "x");
    symlinkSync("/", path.join(ws, "root"));
    symlinkSync("..", path.join(ws, "up"));
    const patterns = [
      "\\.\\./\\.\\./\\.\\./etc/pass*",
      ".\\./.\\./.\\./etc/pass*",
      "\\../\\../\\../etc/*",
      "root/etc/*",
      "root/*",
      "up/*",
      "up/**/passwd",
      "**/passwd",
      "root/**",
      "{..,x}/*",
      "[.][.]/*",
      "*/../../*",
      "/etc/*",
      "~/*",
      "../outside/*",
    ];
    for (const pattern of patterns) {
      const { output } = await tool(ws, "glob", { pattern });
      expect(output, pattern).not.toMatch(/passwd|etc\/|outside|f\.txt/);
    }
    expect((await tool(ws, "glob", { pattern: "*.txt" })).output).toBe("in.txt");
  });

  it("caps what it returns", async () => {
    const { ws } = arena();
    mkdirSync(path.join(ws, "many"));
    for (let i = 0; i < 3000; i++)
      writeFileSync(
        path.join(ws, "many", `file-${String(i).padStart(4, "0")}-${"x".repeat(100)}.txt`),
        "",
      );
    const { output } = await tool(ws, "glob", { pattern: "**/*.txt" });
    const lines = output.split("\n");
    expect(lines.length).toBe(1001);
    expect(lines.at(-1)).toBe("… (2000 more matches; narrow the pattern)");
  });
});
