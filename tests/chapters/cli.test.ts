// The runner as a learner uses it: `npm run chapter ...` (here: node cli.js, what npm runs).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import { apiError, endTurn, startFakeApi, type FakeApi } from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

const run = runCli;

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("npm run chapter", () => {
  it("--list lists the chapters", async () => {
    const { code, stdout } = await run(["--list"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/s01\s+agent-loop/);
    expect(stdout).toMatch(/s02\s+tool-use/);
  });

  it("an unknown chapter prints the list and exits non-zero", async () => {
    const { code, stderr } = await run(["s99"]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/Unknown chapter "s99"/);
    expect(stderr).toMatch(/s01\s+agent-loop/);
  });

  it("an unknown flag is a clear message and a non-zero exit", async () => {
    const { code, stderr } = await run(["s01", "--frobnicate"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Unknown option '--frobnicate'/);
  });

  it("an unusable workspace is a clear message and a non-zero exit", async () => {
    const blocker = path.join(tempDir(), "a-file");
    writeFileSync(blocker, "not a folder"); // even root cannot make a folder inside a file
    const { code, stderr } = await run(["s01", "--workspace", path.join(blocker, "ws")], {
      input: "hi\n",
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot use .* as a workspace/);
  });

  it("a broken state file read by a slash command is one line, and the REPL goes on", async () => {
    const ws = prepareWorkspace(tempDir()); // the harness's own state folder, with its marker
    mkdirSync(path.join(stateDirFor(ws), "tasks"), { recursive: true });
    writeFileSync(path.join(stateDirFor(ws), "tasks", "task_1.json"), "{ not json");
    const { code, stdout } = await run(["s10", "--offline", "--workspace", ws], {
      input: "/tasks\n/help\n",
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/✗ \/tasks: .*task_1\.json/);
    expect(stdout).toContain("/tools"); // /help still answered after the error
  });

  it("refuses the repository itself as a workspace", async () => {
    const { code, stderr } = await run(["s01", "--workspace", REPO_ROOT]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/refusing to use .* as a workspace/);
  });

  it("refuses, in one sentence, a workspace whose state the model of another workspace could write", async () => {
    const nest = prepareWorkspace(path.join(tempDir(), "nest"));
    // What the model in `nest` can do with its write tool or a command: plant sub's permissions.
    mkdirSync(path.join(nest, "sub.harness"));
    writeFileSync(path.join(nest, "sub.harness", "permissions.json"), '{"mode":"auto"}');
    const { code, stdout, stderr } = await run(["s07", "--workspace", path.join(nest, "sub")], {
      input: "\n",
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(
      /^refusing to use .*nest\/sub as a workspace: it is inside the workspace .*nest, whose model could have written here$/,
    );
    expect(stdout).not.toMatch(/bash/);
  });

  it("refuses a folder of the repository and another workspace's state folder, in one sentence", async () => {
    for (const dir of [
      path.join(REPO_ROOT, "chapters", "_shared"),
      `${prepareWorkspace(tempDir())}.harness`,
    ]) {
      const { code, stderr } = await run(["s01", "--workspace", dir], { input: "hi\n" });
      expect(code, dir).toBe(1);
      expect(stderr.trim().split("\n"), dir).toHaveLength(1);
      expect(stderr, dir).toMatch(
        /refusing to use .* as a workspace: it is (inside the repository|a state folder)/,
      );
    }
  });

  it("accepts s1, 01 and the slug, and runs offline with piped input, exiting 0", async () => {
    for (const name of ["s1", "01", "agent-loop"]) {
      const ws = tempDir();
      const { code, stdout } = await run([name, "--workspace", ws], { input: "make hello.js\n" });
      expect(code, stdout).toBe(0);
      expect(stdout).toMatch(/scripted offline model/);
      expect(stdout).toMatch(/Hello from the agent loop!/);
    }
  });

  it("echo … | npm run chapter s02 plays the scenario and exits 0", async () => {
    const { code, stdout } = await run(["s02", "--workspace", tempDir()], { input: "set it up\n" });
    expect(code).toBe(0);
    expect(stdout).toMatch(/you › set it up/);
    expect(stdout).toMatch(/path escapes the workspace/);
  });

  it("sends real SDK requests to ANTHROPIC_BASE_URL with exactly the chapter's tools", async () => {
    api = await startFakeApi([endTurn("hello from the fake API"), endTurn("and again")]);
    const env = {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: api.url,
      MODEL_ID: "test-model",
    };
    const s01 = await run(["s01", "--workspace", tempDir()], { input: "hi\n", env });
    expect(s01.stdout).toMatch(/model: test-model over the Messages API at http:\/\/127\.0\.0\.1/);
    expect(s01.stdout).toMatch(/hello from the fake API/);
    const s02 = await run(["s02", "--workspace", tempDir()], { input: "hi\n", env });
    expect(s02.code).toBe(0);
    const tools = api.requests.map((r) => (r.body.tools as { name: string }[]).map((t) => t.name));
    expect(tools).toEqual([["bash"], ["bash", "read", "write", "edit", "glob"]]);
    expect(api.requests[0].body.model).toBe("test-model");
  });

  it("explains a rejected key in one sentence, without a stack trace", async () => {
    api = await startFakeApi([apiError(401, "authentication_error", "invalid x-api-key")]);
    const { stdout, stderr } = await run(["s01", "--workspace", tempDir()], {
      input: "hi\n",
      env: { ANTHROPIC_API_KEY: "bad", ANTHROPIC_BASE_URL: api.url },
    });
    expect(stdout).toMatch(/The API key was rejected \(401\)/);
    expect(stdout + stderr).not.toMatch(/\n\s+at /);
  });

  it("explains an unknown model and a rate limit", async () => {
    api = await startFakeApi([
      apiError(404, "not_found_error", "model: nope"),
      apiError(429, "rate_limit_error", "slow down"),
    ]);
    const { stdout } = await run(["s01", "--workspace", tempDir()], {
      input: "one\ntwo\n",
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: api.url, MODEL_ID: "nope" },
    });
    expect(stdout).toMatch(/The model "nope" was not found \(404\)/);
    expect(stdout).toMatch(/Rate limited \(429\)/);
    expect(api.requests).toHaveLength(2); // one per prompt: the SDK does not retry behind s01
  });

  it("explains a network failure", async () => {
    const { stdout } = await run(["s01", "--workspace", tempDir()], {
      input: "hi\n",
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(stdout).toMatch(/Could not reach the model API/);
  });
});
