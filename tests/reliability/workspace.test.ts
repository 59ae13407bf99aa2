// Where a workspace may be (issue 22, item 11). The harness's state for a workspace (permissions,
// trust marks, lanes) lives beside it in `<ws>.harness/`, out of the model's reach. Attacked: a
// model that can write one workspace must never get to write the state of another, and
// `--workspace` must not hand it the repository, a git folder or a state folder.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, stateDirFor } from "../../chapters/_shared/paths.ts";
import { prepareWorkspace, WorkspaceError } from "../../chapters/_runner/workspace.ts";
import { BASE_HANDLERS, runTool } from "../../chapters/s02-tool-use/agent.ts";
import * as s07 from "../../chapters/s07-permission-system/agent.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, toolAt } from "../support/helpers.ts";

const write = (p: string, content: string) =>
  ({ type: "tool_use", id: `t_${p}`, name: "write", input: { path: p, content } }) as ToolUseBlock;
const AUTO = JSON.stringify({ mode: "auto" });

describe("a workspace is never inside another workspace", () => {
  it("the model's sub.harness/permissions.json in `nest` does not decide a `nest/sub` session", async () => {
    const nest = prepareWorkspace(path.join(tempDir(), "nest"));
    // The model in `nest` plants the state of a workspace-to-be, marker and all.
    for (const [p, text] of [
      ["sub.harness/permissions.json", AUTO],
      ["sub.harness/workspace.json", JSON.stringify({ workspace: `${nest}/sub`, made: true })],
    ]) {
      const { isError } = await runTool(BASE_HANDLERS, write(p, text), toolAt(nest));
      expect(isError).toBe(false); // inside its workspace: the jail rightly allows it
    }
    expect(() => prepareWorkspace(path.join(nest, "sub"))).toThrow(
      /refusing to use .*sub as a workspace: it is inside the workspace .*nest/,
    );
    // What the refusal prevents: s07 reading the planted rules and running bash unasked.
    const env = scriptedEnv([{ text: "hi" }], { workspace: path.join(nest, "sub") });
    expect(readFileSync(path.join(env.stateDir, s07.RULES_FILE), "utf8")).toBe(AUTO);
  });

  it("refuses a folder deeper inside another workspace, and one inside the default workspace", () => {
    const nest = prepareWorkspace(path.join(tempDir(), "nest"));
    mkdirSync(path.join(nest, "a", "b"), { recursive: true });
    expect(() => prepareWorkspace(path.join(nest, "a", "b"))).toThrow(/inside the workspace/);
    expect(() => prepareWorkspace(path.join(nest, "not", "yet"))).toThrow(/inside the workspace/);
    expect(existsSync(path.join(nest, "not"))).toBe(false); // refused before anything was made
  });
});

describe("no state folder is inside a workspace", () => {
  it("refuses a folder that holds another workspace's state folder (that workspace used first)", () => {
    const nest = path.join(tempDir(), "nest");
    prepareWorkspace(path.join(nest, "deeper", "sub"));
    expect(() => prepareWorkspace(nest)).toThrow(
      /refusing to use .*nest as a workspace: it holds the state folder .*deeper\/sub\.harness/,
    );
    expect(existsSync(stateDirFor(nest))).toBe(false);
  });
});

describe("a state folder is trusted only if the harness made it", () => {
  it("refuses a state folder that exists while its workspace does not (left over or planted)", () => {
    const ws = path.join(tempDir(), "fresh");
    mkdirSync(stateDirFor(ws));
    writeFileSync(path.join(stateDirFor(ws), s07.RULES_FILE), AUTO);
    expect(() => prepareWorkspace(ws)).toThrow(
      /refusing to use .*fresh as a workspace: its state folder .*fresh\.harness exists without it/,
    );
    expect(existsSync(ws)).toBe(false);
  });

  it("refuses a state folder with no marker, or a marker for another folder", () => {
    const ws = tempDir();
    mkdirSync(stateDirFor(ws));
    writeFileSync(path.join(stateDirFor(ws), s07.RULES_FILE), AUTO);
    expect(() => prepareWorkspace(ws)).toThrow(/was not made by the harness/);
    writeFileSync(
      path.join(stateDirFor(ws), "workspace.json"),
      JSON.stringify({ workspace: "/elsewhere", made: true }),
    );
    expect(() => prepareWorkspace(ws)).toThrow(/was not made by the harness/);
  });

  it("refuses a state folder that is a symlink, writable by others, or owned by someone else", () => {
    const ws = prepareWorkspace(tempDir());
    const state = stateDirFor(ws);
    chmodSync(state, 0o777);
    expect(() => prepareWorkspace(ws)).toThrow(/state folder .* can be changed by other users/);
    chmodSync(state, 0o755);
    chmodSync(path.join(state, "workspace.json"), 0o666);
    expect(() => prepareWorkspace(ws)).toThrow(/state folder .* can be changed by other users/);
    chmodSync(path.join(state, "workspace.json"), 0o644);
    expect(prepareWorkspace(ws)).toBe(ws); // the harness's own, as it made it
    if (process.getuid?.() === 0) {
      chownSync(state, 65534, 65534);
      expect(() => prepareWorkspace(ws)).toThrow(/state folder .* belongs to another user/);
      chownSync(state, 0, 0);
    }
    const other = prepareWorkspace(tempDir());
    const linked = tempDir();
    symlinkSync(stateDirFor(other), stateDirFor(linked));
    expect(() => prepareWorkspace(linked)).toThrow(/state folder .* is a symlink/);
  });
});

describe("--workspace is never the repository's, a git folder or a state folder", () => {
  it("refuses folders inside the repository, but keeps the default .workspace/<chapter>/", () => {
    for (const dir of [
      path.join(REPO_ROOT, "chapters", "_shared"),
      path.join(REPO_ROOT, "chapters", "_shared", "new-folder"),
      path.join(REPO_ROOT, "node_modules"),
      path.join(REPO_ROOT, ".git"),
      path.join(REPO_ROOT, ".workspace"),
      path.join(REPO_ROOT, ".workspace", "s07.harness"),
      path.join(REPO_ROOT, ".workspace", "s07", "sub"),
    ]) {
      expect(() => prepareWorkspace(dir), dir).toThrow(WorkspaceError);
      expect(() => prepareWorkspace(dir), dir).toThrow(/refusing to use/);
      expect(existsSync(stateDirFor(dir)), `${dir} got a state folder`).toBe(false);
    }
    const ws = path.join(REPO_ROOT, ".workspace", `lah-test-ws-${process.pid}`);
    try {
      expect(prepareWorkspace(ws)).toBe(ws);
      expect(prepareWorkspace(ws, { reset: true })).toBe(ws);
      // Its state sits where no model reaches: one from before markers is still the harness's.
      execFileSync("rm", ["--", path.join(stateDirFor(ws), "workspace.json")]);
      expect(prepareWorkspace(ws)).toBe(ws);
      expect(existsSync(path.join(stateDirFor(ws), "workspace.json"))).toBe(true);
    } finally {
      for (const d of [ws, stateDirFor(ws)]) execFileSync("rm", ["-rf", "--", d]);
    }
  });

  it("refuses a path into the repository through a symlink, even to a folder not made yet", () => {
    const link = path.join(tempDir(), "link");
    symlinkSync(path.join(REPO_ROOT, "chapters"), link);
    expect(() => prepareWorkspace(path.join(link, "new-ws"))).toThrow(/inside the repository/);
    expect(existsSync(path.join(REPO_ROOT, "chapters", "new-ws"))).toBe(false);
  });

  it("refuses another workspace's state folder and anything in it", () => {
    const ws = prepareWorkspace(tempDir());
    for (const dir of [stateDirFor(ws), path.join(stateDirFor(ws), "lanes")])
      expect(() => prepareWorkspace(dir), dir).toThrow(/is a state folder|inside the state folder/);
    expect(existsSync(stateDirFor(stateDirFor(ws)))).toBe(false);
  });

  it("refuses a repository's .git folder anywhere", () => {
    const repo = tempDir();
    execFileSync("git", ["init", "-q", repo]);
    for (const dir of [path.join(repo, ".git"), path.join(repo, ".git", "hooks")])
      expect(() => prepareWorkspace(dir), dir).toThrow(/git folder/);
  });

  it("still accepts an ordinary folder outside the repository, and uses it again", () => {
    const ws = path.join(tempDir(), "mine");
    expect(prepareWorkspace(ws)).toBe(ws);
    writeFileSync(path.join(ws, "work.txt"), "kept");
    expect(prepareWorkspace(ws)).toBe(ws);
    expect(readFileSync(path.join(ws, "work.txt"), "utf8")).toBe("kept");
  });
});

describe("the chapter's template files", () => {
  const template = path.join(REPO_ROOT, "chapters", "s04-skill-loading", "workspace");
  it("are not copied through a link the model left in their way, and the refusal is one sentence", () => {
    const ws = prepareWorkspace(tempDir(), { template });
    const outside = tempDir("lah-outside-");
    execFileSync("rm", ["-rf", "--", path.join(ws, "skills")]);
    symlinkSync(outside, path.join(ws, "skills"));
    expect(() => prepareWorkspace(ws, { template })).toThrow(WorkspaceError);
    expect(() => prepareWorkspace(ws, { template })).toThrow(/^cannot use .* as a workspace: /);
    expect(readdirSync(outside)).toEqual([]);
    // A link in place of one file: the file is not copied through it either.
    execFileSync("rm", ["-f", "--", path.join(ws, "skills")]);
    mkdirSync(path.join(ws, "skills", "changelog"), { recursive: true });
    symlinkSync(path.join(outside, "planted.md"), path.join(ws, "skills", "changelog", "SKILL.md"));
    prepareWorkspace(ws, { template });
    expect(readdirSync(outside)).toEqual([]);
  });
});
