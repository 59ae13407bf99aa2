// The jail's own root, attacked. A teammate's file tools are jailed to its lane
// (`.worktrees/<name>`), and the lead's bash can replace that folder with a link to your home.
// Before the fix the jail resolved its root first, so it jailed the tools to the home folder:
// `read .ssh/id_rsa` worked.
import { mkdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BASE_HANDLERS, runTool } from "../../chapters/s02-tool-use/agent.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { tempDir, toolAt } from "../support/helpers.ts";

const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `t_${name}`, name, input }) as ToolUseBlock;

describe("the jail's root is not followed through a link", () => {
  it("file tools refuse a root that was swapped for a symlink", async () => {
    const base = tempDir();
    const home = path.join(base, "home");
    mkdirSync(path.join(home, ".ssh"), { recursive: true });
    writeFileSync(path.join(home, ".ssh/id_rsa"), "PRIVATE-KEY");
    const lane = path.join(base, "ws/.worktrees/x");
    mkdirSync(lane, { recursive: true });
    // The lead's bash: rm -rf .worktrees/x && ln -s ~ .worktrees/x
    rmSync(lane, { recursive: true });
    symlinkSync(home, lane);
    const root = lane;
    const read = await runTool(BASE_HANDLERS, call("read", { path: ".ssh/id_rsa" }), toolAt(root));
    expect(read.output).not.toContain("PRIVATE-KEY");
    expect(read).toMatchObject({ isError: true, output: expect.stringMatching(/symlink/) });
    const glob = await runTool(BASE_HANDLERS, call("glob", { pattern: "**/*" }), toolAt(root));
    expect(glob.output).not.toContain("id_rsa");
    await runTool(
      BASE_HANDLERS,
      call("write", { path: "planted.txt", content: "x" }),
      toolAt(root),
    );
    expect(existsSync(path.join(home, "planted.txt"))).toBe(false);
  });
});
