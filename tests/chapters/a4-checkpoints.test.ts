import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import * as a4 from "../../chapters/a4-checkpoints/agent.ts";
import { createAgent, parseRewind } from "../../chapters/a4-checkpoints/agent.ts";
import scenario from "../../chapters/a4-checkpoints/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { Agent } from "../../chapters/_shared/types.ts";
import { budget } from "../support/budgets.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";
import { scriptedEnv, tempDir, toolNames } from "../support/helpers.ts";

const SEED = 31;

/** Every file and link in a folder (not its `.git`), as bytes, executable bit and link target:
 *  what "byte for byte" compares. Folders are not listed: git keeps files, not folders. */
type Tree = Record<string, string>;
function treeOf(root: string, skip: string[] = [".git"]): Tree {
  const tree: Tree = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel))) {
      const file = path.join(rel, name);
      if (skip.includes(file)) continue;
      const st = lstatSync(path.join(root, file));
      if (st.isSymbolicLink()) tree[file] = `link:${readlinkSync(path.join(root, file))}`;
      else if (st.isDirectory()) walk(file);
      else
        tree[file] =
          `${st.mode & 0o100 ? "x" : "-"}:${readFileSync(path.join(root, file)).toString("base64")}`;
    }
  };
  walk("");
  return tree;
}

/** Makes the workspace hold exactly `files` (what a prompt's tool calls would have left). */
function become(root: string, files: Record<string, { bytes: Uint8Array; exec: boolean }>) {
  for (const name of readdirSync(root))
    if (name !== ".git") rmSync(path.join(root, name), { recursive: true, force: true });
  for (const [file, { bytes, exec }] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), bytes);
    chmodSync(path.join(root, file), exec ? 0o755 : 0o644);
  }
}

const rewind = (agent: Agent, args: string) => agent.commands!["/rewind"].run(args) as string;
const history = (agent: Agent) => JSON.stringify(agent.messages);

/** Names a model (or a hostile repository) might give files: spaces, a newline, leading dashes,
 *  non-ASCII, a dot file, nesting, and `conf` that is a file in one state and a folder in another. */
const NAMES = [
  "a.txt",
  "src/main.ts",
  "with space.md",
  "-rf",
  "--help",
  "new\nline",
  "ünï€ode.txt",
  ".hidden",
  "deep/er/still/c.bin",
  "conf",
  "conf/inner.json",
];
const workspaceState = fc
  .dictionary(
    fc.constantFrom(...NAMES),
    fc.record({ bytes: fc.uint8Array({ maxLength: 40 }), exec: fc.boolean() }),
    { maxKeys: 6 },
  )
  .map((files) => {
    // One state cannot hold `conf` both as a file and as a folder.
    if (files.conf) delete files["conf/inner.json"];
    return files;
  });

describe("a4 checkpoints", () => {
  it("offers exactly the five base tools", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.a4.lead);
    expect(a4.TOOLS.map((t) => t.name)).toEqual(CURRICULUM_TOOLS.a4.lead);
  });

  test.prop(
    [fc.array(workspaceState, { minLength: 4, maxLength: 4 }), fc.integer({ min: 1, max: 3 })],
    {
      seed: SEED,
      // Each run is ~30 sandboxed git calls. The seed's first four runs already hold new, changed,
      // deleted and executable files, the odd names (newline, -rf, --help, non-ASCII, nesting) and
      // every k: a shadow that drops the executable bit or misses new files fails on the first.
      numRuns: 4,
    },
  )(
    "after three prompts, a code rewind to prompt k restores every file byte for byte (new, changed, deleted), and its undo restores the state before it",
    async (states, k) => {
      const env = scriptedEnv([say("one"), say("two"), say("three")]);
      const agent = createAgent(env);
      const seen: Tree[] = [];
      for (const [i, prompt] of ["first", "second", "third"].entries()) {
        become(env.workspace, states[i]);
        seen.push(treeOf(env.workspace));
        await agent.send(prompt);
      }
      become(env.workspace, states[3]);
      const last = treeOf(env.workspace);
      const conversation = history(agent);

      const report = rewind(agent, `${k} code`);
      expect(treeOf(env.workspace)).toEqual(seen[k - 1]);
      expect(history(agent)).toBe(conversation); // code only: the history is as it was
      expect(report).toMatch(new RegExp(`^Rewound to checkpoint #${k}`));

      rewind(agent, "undo");
      expect(treeOf(env.workspace)).toEqual(last);
      expect(history(agent)).toBe(conversation);
    },
    budget({ chapterRun: 12 }),
  );

  it("a conversation rewind cuts the history at that prompt and keeps the files; its undo brings the history back", async () => {
    const env = scriptedEnv([
      use("write", { path: "one.txt", content: "1" }),
      say("wrote one"),
      say("two"),
      use("write", { path: "three.txt", content: "3" }),
      say("wrote three"),
    ]);
    const agent = createAgent(env);
    const before: string[] = [];
    for (const prompt of ["first", "second", "third"]) {
      before.push(history(agent));
      await agent.send(prompt);
    }
    const full = history(agent);
    const files = treeOf(env.workspace);

    for (const k of [3, 2, 1]) {
      const report = rewind(agent, `${k} conversation`);
      expect(history(agent)).toBe(before[k - 1]);
      expect(treeOf(env.workspace)).toEqual(files);
      expect(report).toContain(`conversation: cut before prompt #${k}`);
      rewind(agent, "undo");
      expect(history(agent)).toBe(full);
    }

    // Both at once; and the undo of an undo is the rewind again.
    rewind(agent, "2 both");
    expect(history(agent)).toBe(before[1]);
    expect(existsSync(path.join(env.workspace, "three.txt"))).toBe(false);
    rewind(agent, "undo");
    expect(history(agent)).toBe(full);
    expect(treeOf(env.workspace)).toEqual(files);
    rewind(agent, "undo");
    expect(history(agent)).toBe(before[1]);
    expect(existsSync(path.join(env.workspace, "three.txt"))).toBe(false);
  });

  it("a prompt the conversation no longer holds can have its code restored, not its conversation", async () => {
    const env = scriptedEnv([say("one"), say("two"), say("three")]);
    const agent = createAgent(env);
    await agent.send("first");
    await agent.send("second");
    rewind(agent, "1 conversation");
    await agent.send("another first"); // a new line of work: undo is gone, #2 was cut away
    expect(() => rewind(agent, "undo")).toThrow(/nothing to undo/);
    const now = history(agent);
    expect(() => rewind(agent, "2 conversation")).toThrow(/no longer holds prompt #2/);
    expect(history(agent)).toBe(now);
    expect(rewind(agent, "")).toMatch(/#2 .*second {2}\(conversation rewound away\)/);
    expect(rewind(agent, "2 code")).toMatch(/^Rewound to checkpoint #2/);
  });

  it("bad /rewind input is refused with the usage and changes nothing", async () => {
    const env = scriptedEnv([use("write", { path: "a.txt", content: "new" }), say("ok")]);
    const agent = createAgent(env);
    writeFileSync(path.join(env.workspace, "a.txt"), "old");
    await agent.send("change it");
    const files = treeOf(env.workspace);
    const conversation = history(agent);
    for (const args of ["7", "0", "1 everything", "1 code extra", "-1", "undo", "rm -rf /", "1;2"])
      expect(() => rewind(agent, args)).toThrow(args === "7" ? /no checkpoint #7/ : /./);
    expect(treeOf(env.workspace)).toEqual(files);
    expect(history(agent)).toBe(conversation);
  });

  test.prop([fc.string({ maxLength: 30 })], { seed: SEED, numRuns: 300 })(
    "/rewind's arguments: a list, an undo, a checkpoint number with code, conversation or both — or an error",
    (args) => {
      let request: ReturnType<typeof parseRewind>;
      try {
        request = parseRewind(args);
      } catch (err) {
        expect((err as Error).message).toMatch(/^usage: \/rewind/);
        return;
      }
      const words = args.trim().split(/\s+/).filter(Boolean);
      if (request.kind === "list") expect(words).toEqual([]);
      else if (request.kind === "undo") expect(words).toEqual(["undo"]);
      else {
        expect(words[0].replace(/^#/, "")).toBe(String(request.id));
        expect(a4.REWIND_TARGETS).toContain(request.target);
        expect(words[1] ?? "both").toBe(request.target);
      }
    },
  );

  it(
    "the workspace's own .git is never read or touched: its hooks, filters, fsmonitor and config include do not run",
    async () => {
      const ws = tempDir("lah-ws-");
      const markers = tempDir("lah-markers-");
      const git = (...args: string[]) =>
        execFileSync("git", args, {
          cwd: ws,
          env: { PATH: process.env.PATH, HOME: markers, GIT_CONFIG_NOSYSTEM: "1" },
          stdio: "pipe",
        });
      git("init", "-q");
      const touch = (name: string) => `touch ${path.join(markers, name)}`;
      const evil = path.join(markers, "included.config");
      writeFileSync(evil, `[core]\n\tfsmonitor = "${touch("included-fsmonitor")}"\n`);
      writeFileSync(
        path.join(ws, ".git/config"),
        [
          "[core]",
          `\tfsmonitor = "${touch("fsmonitor")}"`,
          "[include]",
          `\tpath = ${evil}`,
          '[filter "evil"]',
          `\tclean = "${touch("clean")}; cat"`,
          `\tsmudge = "${touch("smudge")}; cat"`,
          "",
        ].join("\n"),
      );
      for (const hook of [
        "post-checkout",
        "pre-commit",
        "post-index-change",
        "reference-transaction",
      ]) {
        writeFileSync(path.join(ws, ".git/hooks", hook), `#!/bin/sh\n${touch(hook)}\n`);
        chmodSync(path.join(ws, ".git/hooks", hook), 0o755);
      }
      // And the work tree asks for the filter and for line-ending conversion on every file.
      writeFileSync(path.join(ws, ".gitattributes"), "* filter=evil\n* text eol=crlf\n");
      const dotGit = () => {
        const tree = treeOf(path.join(ws, ".git"), []);
        return createHash("sha256").update(JSON.stringify(tree)).digest("hex");
      };
      const gitBefore = dotGit();
      const gitTimes = lstatSync(path.join(ws, ".git/config")).mtimeMs;

      const env = scriptedEnv(
        [
          use("write", { path: "unix.txt", content: "one\ntwo\n" }),
          say("ok"),
          use("bash", { command: "printf 'a\\r\\nb\\n' > mixed.txt" }),
          say("ok"),
          use("write", { path: "unix.txt", content: "changed\n" }),
          say("ok"),
        ],
        { workspace: ws },
      );
      const agent = createAgent(env);
      const seen: Tree[] = [];
      for (const prompt of ["one", "two", "three"]) {
        seen.push(treeOf(ws));
        await agent.send(prompt);
      }
      const last = treeOf(ws);
      rewind(agent, "1 code");
      expect(treeOf(ws)).toEqual(seen[0]);
      rewind(agent, "undo");
      expect(treeOf(ws)).toEqual(last); // byte for byte: no CRLF added, no filter ran
      expect(readFileSync(path.join(ws, "mixed.txt"), "latin1")).toBe("a\r\nb\n");
      rewind(agent, "2 both");
      expect(treeOf(ws)).toEqual(seen[1]);

      expect(readdirSync(markers)).toEqual(["included.config"]);
      expect(dotGit()).toBe(gitBefore);
      expect(lstatSync(path.join(ws, ".git/config")).mtimeMs).toBe(gitTimes);
      // The snapshots are in the state folder, not in the workspace's repository.
      expect(existsSync(path.join(env.stateDir, "checkpoints/shadow.git/HEAD"))).toBe(true);
      expect(() => git("rev-parse", "--verify", "-q", "HEAD")).toThrow(); // no commit of ours there

      // The attack is real: a git that reads this repository runs them.
      try {
        git("status");
      } catch {
        // (whether status itself succeeds does not matter)
      }
      expect(readdirSync(markers)).toContain("included-fsmonitor");
    },
    budget({ chapterRun: 2 }),
  );

  it("ignored folders (node_modules) are neither copied nor restored, and the rewind says so", async () => {
    const env = scriptedEnv([say("one"), say("two")]);
    const ws = env.workspace;
    writeFileSync(path.join(ws, ".gitignore"), "node_modules/\n");
    mkdirSync(path.join(ws, "node_modules/pad"), { recursive: true });
    writeFileSync(path.join(ws, "node_modules/pad/index.js"), "v1");
    const agent = createAgent(env);
    await agent.send("first");
    writeFileSync(path.join(ws, "node_modules/pad/index.js"), "v2");
    writeFileSync(path.join(ws, "app.js"), "new");
    await agent.send("second");
    const report = rewind(agent, "1 code");
    expect(existsSync(path.join(ws, "app.js"))).toBe(false);
    expect(readFileSync(path.join(ws, "node_modules/pad/index.js"), "utf8")).toBe("v2");
    expect(report).toMatch(/left as they are \(your \.gitignore names them.*\): node_modules\//);
    const shadowFiles = execFileSync("git", ["ls-tree", "-r", "--name-only", "HEAD"], {
      env: { PATH: process.env.PATH, GIT_DIR: path.join(env.stateDir, "checkpoints/shadow.git") },
    }).toString();
    expect(shadowFiles).not.toContain("node_modules");
  });

  it("a rewind names the commands run since, whose effects outside the workspace's files it cannot undo", async () => {
    const env = scriptedEnv([
      use("bash", { command: "echo hi > greeting.txt" }),
      say("one"),
      use("bash", { command: "curl -X POST https://example.invalid/deploy || true" }),
      say("two"),
    ]);
    const agent = createAgent(env);
    await agent.send("first");
    await agent.send("second");
    const second = rewind(agent, "2 code");
    expect(second).toContain("not undone");
    expect(second).toContain("`curl -X POST https://example.invalid/deploy || true`");
    expect(second).not.toContain("echo hi");
    rewind(agent, "undo");
    expect(rewind(agent, "1 code")).toMatch(/`echo hi > greeting\.txt`, `curl/);
  });

  it("restores through symlinks never: a folder swapped for a link outside is put back inside", async () => {
    const env = scriptedEnv([say("one")]);
    const ws = env.workspace;
    const outside = tempDir("lah-outside-");
    mkdirSync(path.join(ws, "x"));
    writeFileSync(path.join(ws, "x/secret.txt"), "inside");
    symlinkSync("/etc/hostname", path.join(ws, "link"));
    const agent = createAgent(env);
    await agent.send("first");
    rmSync(path.join(ws, "x"), { recursive: true });
    symlinkSync(outside, path.join(ws, "x"));
    rmSync(path.join(ws, "link"));
    writeFileSync(path.join(ws, "link"), "not a link");
    rewind(agent, "1 code");
    expect(lstatSync(path.join(ws, "x")).isDirectory()).toBe(true);
    expect(readFileSync(path.join(ws, "x/secret.txt"), "utf8")).toBe("inside");
    expect(readdirSync(outside)).toEqual([]);
    expect(readlinkSync(path.join(ws, "link"))).toBe("/etc/hostname");
  });

  it("a checkpoint that cannot be taken is said, and the prompt still runs", async () => {
    const env = scriptedEnv([use("write", { path: "a.txt", content: "x" }), say("done")]);
    mkdirSync(env.stateDir, { recursive: true });
    writeFileSync(path.join(env.stateDir, "checkpoints"), "a file where the folder goes");
    const agent = createAgent(env);
    await agent.send("go");
    expect(readFileSync(path.join(env.workspace, "a.txt"), "utf8")).toBe("x");
    expect(env.io.trace.some((s) => s.kind === "note" && /no checkpoint before/.test(s.text))).toBe(
      true,
    );
    expect(rewind(agent, "")).toMatch(/No checkpoints yet/);
  });

  it("the scenario: three checkpoints, a code rewind and its undo, a conversation rewind that keeps the files", async () => {
    const ws = tempDir("lah-ws-");
    const { env, agent } = await playScenario(a4, scenario, ws);
    const events = env.io.trace.flatMap((s) => (s.kind === "event" ? [s] : []));
    expect(events.filter((e) => e.type === "checkpoint").map((e) => e.data)).toMatchObject([
      { id: 1 },
      { id: 2 },
      { id: 3 },
      { id: 4 },
    ]);
    expect(events.filter((e) => e.type === "rewind").map((e) => e.data)).toEqual([
      { to: 2, restore: "code", undo: false, files: 4, messages: 28 },
      { to: 2, restore: "code", undo: true, files: 4, messages: 28 },
      { to: 3, restore: "conversation", undo: false, files: 0, messages: 18 },
    ]);
    // The files of prompt 3 are there; the conversation does not hold prompt 3.
    expect(readFileSync(path.join(ws, "greet.config.json"), "utf8")).toContain("punctuation");
    expect(existsSync(path.join(ws, "NOTES.md"))).toBe(false);
    expect(history(agent)).not.toContain("Tidy up");
    expect(history(agent)).toContain("What is in the workspace now?");
  });
});
