// `--record FILE`: the run written down as it happens (chapters/_runner/recording.ts), as a learner
// starts it. The site reads these files (site/lib/recording.ts); here: what the writer promises.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname, userInfo } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findChapter, loadChapter, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { codeSpotter } from "../../chapters/_runner/code-spots.ts";
import { runTool } from "../../chapters/s02-tool-use/agent.ts";
import { sandboxFor } from "../../chapters/_shared/shell.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { createIO } from "../../chapters/_runner/printer.ts";
import { machineSecrets } from "../../chapters/_runner/recording.ts";
import { scrubber } from "../../chapters/_trace/scrub.ts";
import { normalizeTrace } from "../../site/lib/trace-normalize.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import {
  RECORDING_FORMAT,
  TRACE_VERSION,
  type RecordingHeader,
  type TraceEvent,
} from "../../chapters/_trace/contract.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { endTurn, startFakeApi, toolUse, type FakeApi } from "../support/fake-api.ts";
import { killAfterTest, tempDir, waitFor } from "../support/helpers.ts";
import { CLI, runCli } from "../support/run-cli.ts";
import { budget } from "../support/budgets.ts";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const linesOf = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);
const stepsOf = (file: string) =>
  linesOf(file)
    .slice(1)
    .map((l) => JSON.parse(l) as TraceEvent);

// Each test starts the runner up to four times (one per place it must refuse to record to).
describe("npm run chapter sNN -- --record FILE", { timeout: budget({ cli: 4 }) }, () => {
  it("writes a header, then every step of the run, with the workspace's path left out", async () => {
    const dir = tempDir();
    const workspace = path.join(dir, "ws");
    const file = path.join(dir, "run.jsonl");
    const { code, stdout } = await runCli([
      "s09",
      "--demo",
      "--workspace",
      workspace,
      "--record",
      file,
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain(`recording to ${file}`);
    const header = JSON.parse(linesOf(file)[0]) as RecordingHeader;
    expect(header).toMatchObject({
      format: RECORDING_FORMAT,
      version: TRACE_VERSION,
      chapter: "s09",
      name: "s09-memory-system",
      model: "scripted",
    });
    expect(Number.isNaN(Date.parse(header.started))).toBe(false);

    // The same steps, in the same order, as the scenario played in-process.
    const info = findChapter("s09")!;
    const { module, scenario } = await loadChapter(info);
    const played = await playScenario(module, scenario, tempDir());
    const steps = stepsOf(file);
    expect(steps.map((s) => `${s.kind}:${s.agent}`)).toEqual(
      played.env.io.trace.map((s) => `${s.kind}:${s.agent}`),
    );
    const text = readFileSync(file, "utf8");
    expect(text).toContain("<workspace>");
    expect(text).not.toContain(workspace);
    expect(text).not.toContain(realpathSync(workspace));
    // The scripted model's token counts are made up: a recording of it carries none.
    expect(steps.some((s) => s.kind === "response" && s.usage)).toBe(false);
    // Each step the chapter's code took says where (code-spots.ts), as the committed trace does:
    // the site shows that code beside the step.
    const spotted = await playScenario(
      module,
      scenario,
      tempDir(),
      createIO({ where: codeSpotter("s09-memory-system") }),
    );
    expect(steps.map((s) => s.at ?? null)).toEqual(spotted.env.io.trace.map((s) => s.at ?? null));
    expect(played.env.io.trace.some((s) => s.at)).toBe(false); // asked for only when recording
    expect(steps.filter((s) => s.at).length).toBeGreaterThan(steps.length / 2);
  });

  it("a spot that cannot be found costs the step its `at`, never the run", () => {
    const io = createIO({
      where: () => {
        throw new Error("the parser's surprise");
      },
    });
    io.note("still kept");
    io.event("todos", { items: [] });
    expect(io.trace).toEqual([
      { kind: "note", agent: "lead", text: "still kept" },
      { kind: "event", agent: "lead", type: "todos", data: { items: [] } },
    ]);
  });

  it("a step kept by code outside the lessons (this test, a learner's copy) has no spot", () => {
    const where = codeSpotter("s02-tool-use");
    expect(where({ kind: "note", agent: "lead", text: "from a test" })).toBeUndefined();
    expect(
      where({ kind: "event", agent: "lead", type: "todos", data: { items: [] } }),
    ).toBeUndefined();
    // A learner's handler called by s02's dispatch: the step is the learner's, not s02's line
    // that called it (the stack stops at the first code that is neither a lesson nor the harness).
    let fromHandler: unknown = "not asked";
    void runTool(
      { mine: () => ((fromHandler = where({ kind: "note", agent: "lead", text: "mine" })), "") },
      { type: "tool_use", id: "t", name: "mine", input: {} } as ToolUseBlock,
      { root: tempDir(), sandbox: sandboxFor(tempDir(), { disabled: true }) },
      [],
    );
    expect(fromHandler).toBeUndefined();
    // a tool's handler is the chapter's own code, found by its name, whoever asks
    expect(
      where({ kind: "tool_call", agent: "lead", id: "t", name: "bash", input: {} }),
    ).toMatchObject({
      file: "chapters/s02-tool-use/agent.ts",
    });
  });

  it("keeps every step it wrote when the harness is killed in the middle of a run", async () => {
    const dir = tempDir();
    const file = path.join(dir, "killed.jsonl");
    // s13's team run is long enough to be killed half-way.
    const child = killAfterTest(
      spawn(
        process.execPath,
        [CLI, "s13", "--demo", "--workspace", path.join(dir, "ws"), "--record", file],
        {
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" },
          stdio: "ignore",
        },
      ),
    );
    const exited = new Promise((r) => child.on("exit", r));
    await waitFor(
      () => existsSync(file) && linesOf(file).length > 20,
      "20 steps recorded",
      budget("cli"),
    );
    child.kill("SIGKILL");
    await exited;
    const lines = readFileSync(file, "utf8").split("\n");
    // Each line was written whole by one write: every line parses, the last one ends with a newline.
    expect(lines.at(-1)).toBe("");
    const steps = lines.slice(1, -1).map((l) => JSON.parse(l) as TraceEvent);
    expect(steps.length).toBeGreaterThanOrEqual(20);
    expect(steps[0]).toMatchObject({ kind: "user", agent: "lead" });
  });

  it("says why it cannot record, before anything runs", async () => {
    const dir = tempDir();
    const missing = await runCli(["s01", "--demo", "--record", path.join(dir, "no/such/x.jsonl")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot record to .*x\.jsonl: its folder does not exist\./);
    mkdirSync(path.join(dir, "folder"));
    const folder = await runCli(["s01", "--demo", "--record", path.join(dir, "folder")]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/: it is a folder\./);
  });

  // The model writes the workspace: a recording file there could be a link it planted (to
  // ~/.bashrc, say) by the time the harness opens it. Nothing is written through a link, nor
  // anywhere the model can write.
  it("never writes through a link, nor into the workspace or its state folder", async () => {
    const dir = tempDir();
    const target = path.join(dir, "precious.txt");
    writeFileSync(target, "keep me");
    const link = path.join(dir, "run.jsonl");
    symlinkSync(target, link);
    const linked = await runCli([
      "s01",
      "--demo",
      "--workspace",
      path.join(dir, "ws"),
      "--record",
      link,
    ]);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toMatch(/Cannot record to .*run\.jsonl: it is a symbolic link\./);
    expect(readFileSync(target, "utf8")).toBe("keep me");

    const ws = path.join(dir, "ws");
    for (const inside of [path.join(ws, "run.jsonl"), path.join(stateDirFor(ws), "run.jsonl")]) {
      const refused = await runCli(["s01", "--demo", "--workspace", ws, "--record", inside]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/it is inside the workspace or its state folder/);
      expect(existsSync(inside)).toBe(false);
    }
    // A folder on the way that is a link into the workspace counts as the workspace.
    symlinkSync(ws, path.join(dir, "into-ws"));
    const through = await runCli([
      "s01",
      "--demo",
      "--workspace",
      ws,
      "--record",
      path.join(dir, "into-ws", "run.jsonl"),
    ]);
    expect(through.code).toBe(2);
    expect(existsSync(path.join(ws, "run.jsonl"))).toBe(false);
  });

  it("keeps a real model's token counts, call by call", async () => {
    const usage = [
      { input_tokens: 900, output_tokens: 40, cache_read_input_tokens: 0 },
      { input_tokens: 1200, output_tokens: 12, cache_read_input_tokens: 800 },
    ];
    const replies = [toolUse("bash", { command: "echo hi" }), endTurn("done")].map((r, i) => ({
      ...r,
      body: { ...(r.body as object), usage: usage[i] },
    }));
    api = await startFakeApi(replies);
    const dir = tempDir();
    const file = path.join(dir, "real.jsonl");
    const { code } = await runCli(
      ["s01", "--workspace", path.join(dir, "ws"), "--no-sandbox", "--record", file],
      {
        input: "say hi\n",
        env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url, MODEL_ID: "test-model" },
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(linesOf(file)[0])).toMatchObject({ model: "test-model" });
    const counted = stepsOf(file).flatMap((s) => (s.kind === "response" ? [s.usage] : []));
    // A count of 0 is left out, as the API's own `usage` does not make it a cost.
    expect(counted).toEqual([
      { input_tokens: 900, output_tokens: 40 },
      { input_tokens: 1200, output_tokens: 12, cache_read_input_tokens: 800 },
    ]);
  });
});

// F5 of issue 32: a recording is made to be shared, and `echo $PATH`, /proc/self/mountinfo or the
// model's own words can name the home folder, the repository, the user and the machine.
describe("a recording names nobody", () => {
  it("the home folder, the repository's path, the user and the host become placeholders, in values and keys", async () => {
    const dir = tempDir();
    const home = path.join(dir, "home-of-zed"); // planted: HOME is what os.homedir() reads
    mkdirSync(home);
    const { username: user } = userInfo();
    const host = hostname();
    const said = `${home}/.nvm/bin:${REPO_ROOT}/node_modules/.bin ${user}@${host}`;
    api = await startFakeApi([
      toolUse("bash", { command: `echo ${home} ${REPO_ROOT}; echo ${user}@${host}` }, said),
      // A key is the model's to choose too (refused: bash takes no such field, but recorded).
      toolUse("bash", { command: "true", [`${home}/.ssh`]: { [REPO_ROOT]: `${user} on ${host}` } }),
      endTurn(`done on ${host}, ${user}`),
    ]);
    const file = path.join(dir, "shared.jsonl");
    const { code, stderr } = await runCli(
      ["s02", "--workspace", path.join(dir, "ws"), "--no-sandbox", "--record", file],
      {
        input: "go\n",
        env: { HOME: home, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: api.url },
      },
    );
    expect(code, stderr).toBe(0);
    const text = readFileSync(file, "utf8");
    const keys = JSON.stringify(stepsOf(file).filter((s) => s.kind === "tool_call")[1]);
    expect(keys).toContain('"<home>/.ssh":{"<repo>":"<user> on <host>"}');
    for (const placeholder of ["<home>", "<repo>", "<user>", "<host>"])
      expect(text).toContain(placeholder);
    expect(text).not.toContain(home);
    expect(text).not.toContain(REPO_ROOT);
    // A name counts where it stands alone (it is no secret inside "nvm" or "root-commit").
    const alone = (name: string) => new RegExp(`(?<![\\w.-])${name}(?![\\w-])`);
    expect(text).not.toMatch(alone(user));
    expect(text).not.toMatch(alone(host));
  });

  it("is one scrubber for recordings and committed traces: keys too, longest path first, names whole", () => {
    const scrub = scrubber(
      machineSecrets(["/h/zed/code/app/.workspace/s02"], {
        repo: "/h/zed/code/app",
        home: "/h/zed",
        user: "zed",
        host: "box7",
      }),
    );
    expect(
      scrub({
        "/h/zed/.ssh": "/h/zed/code/app/.workspace/s02/a.txt in /h/zed/code/app, zed@box7",
        other: "/h/zedd /h/zed/code/apple zedd box7.lan nozed zed-commit",
      }),
    ).toEqual({
      "<home>/.ssh": "<workspace>/a.txt in <repo>, <user>@<host>",
      other: "/h/zedd <home>/code/apple zedd box7.lan nozed zed-commit",
    });
    // normalizeTrace (the site's committed traces) scrubs keys as the recording does.
    const [step] = normalizeTrace(
      [{ kind: "tool_call", agent: "lead", id: "t", name: "x", input: { "/ws/k": "/ws/v" } }],
      ["/ws"],
    );
    expect(step).toMatchObject({ input: { "<workspace>/k": "<workspace>/v" } });
  });
});

describe("tools that exist only at run time", () => {
  it("a1: once its MCP server has started, one line gives the full list", async () => {
    // The notes server imports the MCP SDK: from a workspace inside the repository, as by default.
    const base = path.join(REPO_ROOT, ".workspace");
    mkdirSync(base, { recursive: true });
    const { code, stdout } = await runCli([
      "a1",
      "--demo",
      "--workspace",
      tempDir("test-a1-", base),
    ]);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/tools \(5\): bash, read, write, edit, glob/);
    const now = stdout.split("\n").filter((l) => l.startsWith("tools now"));
    expect(now).toEqual([
      "tools now (8): bash, read, write, edit, glob, mcp__notes__save_note, mcp__notes__list_notes, mcp__notes__delete_note",
    ]);
    // Said after the server is running, before the model's first answer.
    const at = (text: string) => stdout.indexOf(text);
    expect(at('MCP server "notes" is running')).toBeLessThan(at("tools now"));
    expect(at("tools now")).toBeLessThan(at("assistant ›"));
  });
});
