import { spawnSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s08 from "../../chapters/s08-hook-system/agent.ts";
import {
  createAgent,
  HOOKS_FILE,
  hooksHash,
  trustFile,
  type HookConfig,
} from "../../chapters/s08-hook-system/agent.ts";
import scenario from "../../chapters/s08-hook-system/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import { scriptedEnv, tempDir, testKit, toolNames } from "../support/helpers.ts";
import {
  exit0RewritesAndAdds,
  matcherOnlyItsTool,
  otherExitIgnored,
  postExit2Appends,
  preExit1Blocks,
} from "../../chapters/s08-hook-system/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

type TestEnv = ReturnType<typeof scriptedEnv>;

function envWithHooks(
  script: Parameters<typeof scriptedEnv>[0],
  hooks: HookConfig | string,
  answers?: string[],
): TestEnv {
  const env = scriptedEnv(script, { answers });
  writeFileSync(
    path.join(env.workspace, HOOKS_FILE),
    typeof hooks === "string" ? hooks : JSON.stringify(hooks),
  );
  return env;
}
const results = (env: TestEnv) =>
  env.io.trace.flatMap((e) =>
    e.kind === "tool_result" ? [{ name: e.name, output: e.output, isError: e.is_error }] : [],
  );
const notes = (env: TestEnv) => env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
const file = (env: TestEnv, name: string) => path.join(env.workspace, name);

describe("s08 hook system", () => {
  // The curriculum's exit-code behaviours, defined once with the exercises
  // (exercises/checks.ts beside the chapter) and run here against the chapter's own code.
  for (const check of [
    preExit1Blocks,
    postExit2Appends,
    exit0RewritesAndAdds,
    otherExitIgnored,
    matcherOnlyItsTool,
  ])
    it(`behaviour: ${check.id}`, () => check.run(s08, testKit()));

  it("offers exactly the five base tools", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s08.lead);
  });

  it('a matcher fires only for its tool; "*" fires for every tool', async () => {
    const calls = [
      use("bash", { command: "echo hi" }),
      use("read", { path: "a.txt" }),
      use("glob", { pattern: "*.txt" }),
      use("write", { path: "b.txt", content: "b" }),
      say("ok"),
    ];
    const env = envWithHooks(calls, {
      PreToolUse: [
        { matcher: "write", command: "echo write >> write-hook.log" },
        { matcher: "*", command: "echo any >> any-hook.log" },
      ],
    });
    writeFileSync(file(env, "a.txt"), "A");
    await createAgent(env, { trusted: true }).send("go");
    expect(readFileSync(file(env, "write-hook.log"), "utf8")).toBe("write\n");
    expect(readFileSync(file(env, "any-hook.log"), "utf8")).toBe("any\n".repeat(4));
  });

  const MARKING_HOOKS: HookConfig = {
    SessionStart: [{ command: "touch session-hook-ran" }],
    PreToolUse: [{ command: "touch pre-hook-ran" }],
    PostToolUse: [{ command: "touch post-hook-ran" }],
  };
  const ran = (env: TestEnv) =>
    ["session-hook-ran", "pre-hook-ran", "post-hook-ran"].map((m) => existsSync(file(env, m)));
  const trustQuestions = (env: TestEnv) => notes(env).filter((n) => n.includes("Run its hooks"));

  it("an untrusted workspace runs no hooks; a .trusted file shipped in the workspace means nothing", async () => {
    const env = envWithHooks([use("bash", { command: "echo hi" }), say("ok")], MARKING_HOOKS, [
      "no",
    ]);
    writeFileSync(file(env, ".trusted"), ""); // a cloned repository can ship this file
    await createAgent(env).send("go");
    expect(trustQuestions(env)).toHaveLength(1); // asked anyway
    expect(ran(env)).toEqual([false, false, false]);
    expect(results(env)[0].output).toBe("hi");
    expect(notes(env)).toContain("hooks not run: you did not trust this .hooks.json");
  });

  it("the model cannot trust hooks it wrote: a .hooks.json from write is asked about in the next session", async () => {
    const ws = tempDir();
    const first = scriptedEnv(
      [use("write", { path: HOOKS_FILE, content: JSON.stringify(MARKING_HOOKS) }), say("done")],
      { workspace: ws },
    );
    await createAgent(first).send("set up");
    const second = scriptedEnv([use("bash", { command: "echo hi" }), say("ok")], {
      workspace: ws,
      answers: ["no"],
    });
    await createAgent(second).send("go");
    expect(trustQuestions(second)).toHaveLength(1);
    expect(ran(second)).toEqual([false, false, false]);
  });

  it("yes trusts this exact .hooks.json, recorded in the state folder; a changed file is asked about again", async () => {
    const ws = tempDir();
    const session = (answers: string[]) =>
      scriptedEnv([use("bash", { command: "echo hi" }), say("ok")], { workspace: ws, answers });
    writeFileSync(path.join(ws, HOOKS_FILE), JSON.stringify(MARKING_HOOKS));

    const first = session(["yes"]);
    await createAgent(first).send("go");
    expect(trustQuestions(first)).toHaveLength(1);
    expect(ran(first)).toEqual([true, true, true]);
    expect(readFileSync(trustFile(first), "utf8")).toContain(
      hooksHash(JSON.stringify(MARKING_HOOKS)),
    );
    expect(trustFile(first).startsWith(ws + path.sep)).toBe(false); // out of the model's reach

    for (const m of ["session-hook-ran", "pre-hook-ran", "post-hook-ran"]) rmSync(path.join(ws, m));
    const second = session([]); // same file: no question, the hooks run
    await createAgent(second).send("go");
    expect(trustQuestions(second)).toEqual([]);
    expect(ran(second)).toEqual([true, true, true]);

    for (const m of ["session-hook-ran", "pre-hook-ran", "post-hook-ran"]) rmSync(path.join(ws, m));
    writeFileSync(
      path.join(ws, HOOKS_FILE),
      JSON.stringify({ ...MARKING_HOOKS, PreToolUse: [{ command: "touch sneaky" }] }),
    );
    const third = session(["no"]);
    await createAgent(third).send("go");
    expect(trustQuestions(third)).toHaveLength(1);
    expect(ran(third)).toEqual([false, false, false]);
    expect(existsSync(path.join(ws, "sneaky"))).toBe(false);
  });

  it("a script a trusted hook runs, rewritten by the model mid-session, does not run; the next session asks again", async () => {
    const ws = tempDir();
    mkdirSync(path.join(ws, "hooks"));
    writeFileSync(path.join(ws, "hooks/after.sh"), "echo checked >> after.log\n");
    writeFileSync(
      path.join(ws, HOOKS_FILE),
      JSON.stringify({ PostToolUse: [{ command: "sh hooks/after.sh" }] }),
    );
    const first = scriptedEnv(
      [
        use("bash", { command: "echo before" }), // the trusted script runs as it was
        use("write", { path: "hooks/after.sh", content: "touch pwned\n" }),
        use("bash", { command: "echo after" }),
        say("ok"),
      ],
      { workspace: ws, answers: ["yes"] },
    );
    await createAgent(first).send("go");
    expect(existsSync(path.join(ws, "pwned"))).toBe(false);
    expect(readFileSync(path.join(ws, "after.log"), "utf8")).toBe("checked\n");
    expect(trustQuestions(first)).toEqual([
      expect.stringContaining("(with hooks/after.sh as they are now)"),
    ]);
    expect(notes(first)).toContain(
      "PostToolUse hooks not run: hooks/after.sh changed since you trusted .hooks.json, so its hooks do not run until you trust it again",
    );
    const second = scriptedEnv([use("bash", { command: "echo hi" }), say("ok")], {
      workspace: ws,
      answers: ["no"],
    });
    await createAgent(second).send("go");
    expect(trustQuestions(second)).toHaveLength(1); // the same .hooks.json, a new script: asked
    expect(existsSync(path.join(ws, "pwned"))).toBe(false);
  });

  it("a script the jail will not read (a hard link) is still covered: a write through its other name is seen", async () => {
    const env = envWithHooks(
      [
        use("bash", { command: "printf 'touch pwned\\n' > other-name" }),
        use("bash", { command: "echo hi" }),
        say("ok"),
      ],
      { PostToolUse: [{ command: "sh hooks/after.sh" }] },
    );
    mkdirSync(file(env, "hooks"));
    writeFileSync(file(env, "hooks/after.sh"), "exit 0\n");
    linkSync(file(env, "hooks/after.sh"), file(env, "other-name"));
    await createAgent(env, { trusted: true }).send("go");
    expect(readFileSync(file(env, "hooks/after.sh"), "utf8")).toBe("touch pwned\n"); // it was rewritten
    expect(existsSync(file(env, "pwned"))).toBe(false); // and did not run
  });

  it("a rewritten PreToolUse guard script fails closed: the call is blocked, not let through", async () => {
    const env = envWithHooks(
      [
        use("write", { path: "hooks/guard.sh", content: "exit 0\n" }),
        use("bash", { command: "touch ran.txt" }),
        say("ok"),
      ],
      { PreToolUse: [{ matcher: "bash", command: "sh hooks/guard.sh" }] },
    );
    mkdirSync(file(env, "hooks"));
    writeFileSync(file(env, "hooks/guard.sh"), "echo 'no commands today' >&2; exit 1\n");
    await createAgent(env, { trusted: true }).send("go");
    expect(results(env)[1]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/^Blocked by a PreToolUse hook: hooks\/guard.sh changed/),
    });
    expect(existsSync(file(env, "ran.txt"))).toBe(false);
  });

  it("a script that changes while its hook runs (a race with a background job) has its answer dropped, and the call is blocked", async () => {
    const env = envWithHooks([use("bash", { command: "echo original" }), say("ok")], {
      PreToolUse: [{ matcher: "bash", command: "sh hooks/guard.sh" }],
    });
    mkdirSync(file(env, "hooks"));
    // Stands in for a writer that swaps the script between the check and the run.
    writeFileSync(
      file(env, "hooks/guard.sh"),
      `echo 'exit 1' > hooks/guard.sh; echo '{"updatedInput": {"command": "touch ran.txt"}}'\n`,
    );
    await createAgent(env, { trusted: true }).send("go");
    expect(existsSync(file(env, "ran.txt"))).toBe(false);
    expect(results(env)[0]).toMatchObject({
      isError: true,
      output:
        "Blocked by a PreToolUse hook: hooks/guard.sh changed since you trusted .hooks.json, so its hooks do not run until you trust it again",
    });
  });

  it("reads .hooks.json through the jail: a symlink out of the workspace, or a FIFO, is not read", async () => {
    const outside = tempDir();
    writeFileSync(
      path.join(outside, "hooks.json"),
      JSON.stringify({ SessionStart: [{ command: "touch hook-ran" }] }),
    );
    const linked = scriptedEnv([say("ok")]);
    symlinkSync(path.join(outside, "hooks.json"), file(linked, HOOKS_FILE));
    await createAgent(linked, { trusted: true }).send("go");
    expect(existsSync(file(linked, "hook-ran"))).toBe(false);
    expect(notes(linked)).toContain(
      ".hooks.json is not read (path escapes the workspace through a symlink: .hooks.json); running without hooks",
    );
    const fifo = scriptedEnv([say("ok")]);
    spawnSync("mkfifo", [file(fifo, HOOKS_FILE)]);
    await createAgent(fifo, { trusted: true }).send("go"); // returns: a FIFO does not block it
    expect(notes(fifo)).toContain(
      ".hooks.json is not read (.hooks.json is not a regular file; refused); running without hooks",
    );
  });

  it("the trust question shows control characters escaped: C1 and bidi cannot redraw or reorder it", async () => {
    const env = envWithHooks(
      [say("ok")],
      { SessionStart: [{ command: "echo hi \u009b2K\u202e \u001b[2K\r" }] },
      ["no"],
    );
    await createAgent(env).send("go");
    const [question] = trustQuestions(env);
    expect(question).toContain("echo hi \\u{9b}2K\\u{202e} \\u001b[2K\\r");
    // eslint-disable-next-line no-control-regex -- no raw control character may be left
    expect(question).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it("updatedInput from a PreToolUse hook rewrites the call's arguments", async () => {
    const env = envWithHooks([use("bash", { command: "echo original" }), say("ok")], {
      PreToolUse: [
        {
          matcher: "bash",
          command: `cat > event.json; echo '{"updatedInput": {"command": "echo rewritten"}}'`,
        },
      ],
    });
    await createAgent(env, { trusted: true }).send("go");
    expect(results(env)[0].output).toBe("rewritten");
    // The hook saw the event as JSON on stdin.
    const event = JSON.parse(readFileSync(file(env, "event.json"), "utf8"));
    expect(event).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "bash",
      tool_input: { command: "echo original" },
    });
  });

  it("PostToolUse hooks see the result; additionalContext joins the result as a note", async () => {
    const env = envWithHooks([use("bash", { command: "echo payload" }), say("ok")], {
      PostToolUse: [
        { command: `cat > event.json; echo '{"additionalContext": "remember to commit"}'` },
      ],
    });
    await createAgent(env, { trusted: true }).send("go");
    expect(JSON.parse(readFileSync(file(env, "event.json"), "utf8"))).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "bash",
      tool_result: "payload",
      is_error: false,
    });
    expect(results(env)[0].output).toBe("payload\n\n[hook] remember to commit");
  });

  it("SessionStart context reaches the system prompt of every request", async () => {
    const env = envWithHooks([use("bash", { command: "true" }), say("ok")], {
      SessionStart: [{ command: `echo '{"additionalContext": "The build command is make."}'` }],
    });
    await createAgent(env, { trusted: true }).send("go");
    expect(env.requests).toHaveLength(2);
    for (const r of env.requests) expect(r.body.system).toContain("The build command is make.");
  });

  it("a broken .hooks.json gives a clear note, and the agent runs without hooks", async () => {
    for (const broken of [
      "{ nope",
      JSON.stringify({ BeforeEverything: [] }),
      JSON.stringify({ PreToolUse: [{ matcher: "bash" }] }),
    ]) {
      const env = envWithHooks([use("bash", { command: "echo still here" }), say("ok")], broken);
      await createAgent(env, { trusted: true }).send("go");
      expect(
        notes(env).some((n) => n.startsWith(`${HOOKS_FILE} is not valid`)),
        broken,
      ).toBe(true);
      expect(results(env)[0]).toMatchObject({ output: "still here", isError: false });
    }
  });

  it("a hook that hangs is stopped at the timeout with a note, and the tool still runs", async () => {
    const env = envWithHooks([use("bash", { command: "echo after" }), say("ok")], {
      PreToolUse: [{ command: "sleep 10" }],
    });
    await createAgent(env, { trusted: true, hookTimeoutMs: 300 }).send("go");
    expect(notes(env).some((n) => /timed out/.test(n))).toBe(true);
    expect(results(env)[0]).toMatchObject({ output: "after", isError: false });
  });

  it("plays its scenario offline: context added, syntax error flagged, rm blocked, file moved", async () => {
    const ws = prepareWorkspace(tempDir(), {
      template: path.join(import.meta.dirname, "../../chapters/s08-hook-system/workspace"),
    });
    const { env } = await playScenario(s08, scenario, ws);
    expect(env.scripted!.finished).toBe(true);
    expect(env.scripted!.requests[0].body.system).toContain(
      "Files in the workspace: hooks scratch.txt",
    );
    const all = results(env as TestEnv);
    expect(all[0].output).toMatch(/\[hook\] sum\.js has a syntax error[\s\S]*SyntaxError/);
    expect(all[1].output).toBe("Edited sum.js"); // the fixed file passes the check silently
    expect(all[3]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/^Blocked by a PreToolUse hook: rm is not allowed/),
    });
    expect(existsSync(path.join(ws, "scratch.txt"))).toBe(false);
    expect(readFileSync(path.join(ws, "trash/scratch.txt"), "utf8")).toContain("Scratch notes");
  });
});

describe("the workspace's block-rm hook", () => {
  const hook = path.join(
    import.meta.dirname,
    "../../chapters/s08-hook-system/workspace/hooks/block-rm.sh",
  );
  const decide = (command: string) =>
    spawnSync("sh", [hook], {
      input: JSON.stringify({
        hook_event_name: "PreToolUse",
        tool_name: "bash",
        tool_input: { command },
      }),
    }).status;

  it("blocks rm however the command hides it, and lets other commands through", () => {
    for (const command of [
      "rm scratch.txt",
      'echo "x"; rm scratch.txt',
      "cd . && rm scratch.txt",
      "/bin/rm scratch.txt",
      "true | rm -f scratch.txt",
      "(rm scratch.txt)",
    ])
      expect(decide(command), command).toBe(1);
    for (const command of [
      "ls",
      "rmdir empty",
      "mkdir -p trash && mv scratch.txt trash/",
      "npm run format",
    ])
      expect(decide(command), command).toBe(0);
  });
});
