// `--reset` empties a workspace. Attacked: it must never empty a folder the harness did not make.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, stateDirFor } from "../../chapters/_shared/paths.ts";
import { prepareWorkspace, WorkspaceError } from "../../chapters/_runner/workspace.ts";
import { tempDir } from "../support/helpers.ts";

/** A folder full of someone's files, as --reset would find a home or a repository. */
function precious(): string {
  const dir = tempDir("lah-precious-");
  mkdirSync(path.join(dir, ".ssh"));
  writeFileSync(path.join(dir, ".ssh", "id_rsa"), "key");
  writeFileSync(path.join(dir, "notes.txt"), "mine");
  return dir;
}

describe("--reset", () => {
  it("empties a workspace the harness created, and its state beside it", () => {
    const ws = path.join(tempDir(), "ws");
    prepareWorkspace(ws);
    writeFileSync(path.join(ws, "made-by-the-model.txt"), "x");
    writeFileSync(path.join(stateDirFor(ws), "board.json"), "{}");
    prepareWorkspace(ws, { reset: true });
    expect(readdirSync(ws)).toEqual([]);
    expect(existsSync(path.join(stateDirFor(ws), "board.json"))).toBe(false);
  });

  it("empties an empty folder (nothing to lose)", () => {
    const ws = tempDir();
    expect(prepareWorkspace(ws, { reset: true })).toBe(ws);
  });

  it("refuses an ordinary folder with files in it, and leaves every file", () => {
    const dir = precious();
    expect(() => prepareWorkspace(dir, { reset: true })).toThrow(
      /refusing to reset .*did not create it/,
    );
    expect(readdirSync(dir).sort()).toEqual([".ssh", "notes.txt"]);
  });

  it("refuses a folder it was merely pointed at before (used, not created)", () => {
    const dir = precious();
    prepareWorkspace(dir); // fine without --reset: the harness works in it
    expect(() => prepareWorkspace(dir, { reset: true })).toThrow(WorkspaceError);
    expect(existsSync(path.join(dir, ".ssh", "id_rsa"))).toBe(true);
  });

  it("refuses a symlink to a folder full of files (a repository, say)", () => {
    const dir = precious();
    const link = path.join(tempDir(), "link");
    symlinkSync(dir, link);
    expect(() => prepareWorkspace(link, { reset: true })).toThrow(WorkspaceError);
    expect(readdirSync(dir).sort()).toEqual([".ssh", "notes.txt"]);
  });

  it("refuses a harness mark forged for another folder", () => {
    const dir = precious();
    mkdirSync(stateDirFor(dir), { recursive: true });
    writeFileSync(
      path.join(stateDirFor(dir), "workspace.json"),
      JSON.stringify({ workspace: "/elsewhere", made: true }),
    );
    expect(() => prepareWorkspace(dir, { reset: true })).toThrow(WorkspaceError);
    expect(readdirSync(dir).sort()).toEqual([".ssh", "notes.txt"]);
  });

  it("refuses the home folder, its parents, the repository and the root, with or without --reset", () => {
    for (const dir of [
      process.env.HOME ?? "/root",
      path.dirname(process.env.HOME ?? "/root"),
      REPO_ROOT,
      "/",
    ]) {
      expect(() => prepareWorkspace(dir, { reset: true }), dir).toThrow(/refusing to use/);
      expect(() => prepareWorkspace(dir), dir).toThrow(/refusing to use/);
    }
  });
});
