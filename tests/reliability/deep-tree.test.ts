// A folder tree deeper than any stack (issue 22, item 12): the model's `mkdir d && cd d` in a loop.
// Attacked: the harness's own folder walks (glob's listing, --reset) must neither crash nor run out
// of file descriptors on it, and must still follow no symlink out.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import { BASE_HANDLERS, listInside, runTool } from "../../chapters/s02-tool-use/agent.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { deepTree, removeDeep } from "../support/deep-tree.ts";
import { tempDir, toolAt } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";

// Today's recursive walks overflow from about 2,000 (rmSync) and 8,000 (the glob's listing) levels.
const DEPTH = 10_000;
// Building and removing 10,000 levels takes seconds (a few hundred thousand file system calls).
const SLOW = budget({ process: 18 });

describe("a 10,000-deep folder tree", () => {
  // One tree for the glob and the --reset below: building and removing it is most of this file's
  // work. Its own folder (not tempDir(), which is emptied after each test), made on first use so
  // either test also runs alone; the glob reads it, then --reset empties it.
  let shared: { ws: string; outside: string } | undefined;
  const folders: string[] = [];
  const deepWorkspace = () => {
    if (shared) return shared;
    const base = mkdtempSync(path.join(tmpdir(), "lah-deep-"));
    const outside = mkdtempSync(path.join(tmpdir(), "lah-outside-"));
    folders.push(base, outside);
    const ws = prepareWorkspace(path.join(base, "ws"));
    writeFileSync(path.join(outside, "keep.txt"), "mine");
    symlinkSync(outside, path.join(ws, "link-out"));
    writeFileSync(path.join(ws, "file.txt"), "x");
    writeFileSync(path.join(ws, "top.txt"), "x");
    const ms = deepTree(ws, DEPTH, { 3: "shallow.txt", 100: "f.txt", 500: "deep.txt" });
    console.info(`deep tree: ${DEPTH} levels built in ${ms} ms`);
    return (shared = { ws, outside });
  };
  afterAll(() => {
    if (shared) removeDeep(shared.ws);
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  }, SLOW);

  it(
    "glob lists what it can reach and says the listing stopped at the depth limit",
    async () => {
      const { ws } = deepWorkspace();
      const { output, isError } = await runTool(
        BASE_HANDLERS,
        {
          type: "tool_use",
          id: "g",
          name: "glob",
          input: { pattern: "**/*.txt" },
        } as ToolUseBlock,
        toolAt(ws),
      );
      expect(isError, output).toBe(false);
      expect(output).toContain("top.txt");
      expect(output).toContain("d/d/d/shallow.txt");
      expect(output).not.toContain("deep.txt");
      expect(output).toMatch(/folders deeper than \d+ levels were not listed/);
    },
    SLOW,
  );

  it("listInside stops at the depth limit, follows no link out, and reports it", () => {
    const ws = tempDir("lah-deep-");
    const outside = tempDir("lah-outside-");
    writeFileSync(path.join(outside, "secret.txt"), "secret");
    mkdirSync(path.join(ws, "a/b/c"), { recursive: true });
    symlinkSync(outside, path.join(ws, "a/b/c/out"));
    writeFileSync(path.join(ws, "a/b/c/in.txt"), "x");
    deepTree(path.join(ws, "a"), 300, { 200: "too-deep.txt" });
    try {
      const { files, complete, tooDeep } = listInside(ws);
      expect(files).toContain("a/b/c/in.txt");
      expect(files).toContain("a/b/c/out"); // the link itself, never what it points at
      expect(files.some((f) => f.includes("secret"))).toBe(false);
      expect(files.some((f) => f.endsWith("too-deep.txt"))).toBe(false);
      expect(complete).toBe(false);
      expect(tooDeep).toBe(true);
      const shallow = listInside(path.join(ws, "a/b"));
      expect(shallow).toMatchObject({ complete: true, tooDeep: false });
    } finally {
      removeDeep(path.join(ws, "a"));
    }
  });

  it(
    "--reset empties it, and removes a link to a folder outside without following it",
    () => {
      const { ws, outside } = deepWorkspace();
      expect(prepareWorkspace(ws, { reset: true })).toBe(ws);
      expect(readdirSync(ws)).toEqual([]);
      expect(readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("mine");
    },
    SLOW,
  );
});
