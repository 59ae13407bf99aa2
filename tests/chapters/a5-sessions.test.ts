import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import * as a5 from "../../chapters/a5-sessions/agent.ts";
import scenario, { PROMPTS } from "../../chapters/a5-sessions/scenario.ts";
import { createEnv } from "../../chapters/_runner/runtime.ts";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { fail, say, use } from "../../chapters/_shared/scripted.ts";
import type { MessageParam, ScriptedTurn } from "../../chapters/_shared/types.ts";
import { SEED } from "../../chapters/_exercises/property.ts";
import { headerSchema, traceStepSchema } from "../../chapters/_trace/contract.ts";
import { readRecording } from "../../site/lib/recording.ts";
import { stateTimeline } from "../../site/lib/run-state.ts";

import { budget } from "../support/budgets.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";
import { killAfterTest, tempDir, toolNames, waitFor, machineSandbox } from "../support/helpers.ts";
import { CLI } from "../support/run-cli.ts";

/** A workspace with the scenario's scripted model (its answers only when `answers` says). */
function envFor(
  workspace = path.join(tempDir(), "ws"),
  script: Record<string, ScriptedTurn[]> = scenario.script,
) {
  mkdirSync(workspace, { recursive: true });
  return createEnv({ workspace, scenario: { script, answers: ["yes"] } });
}

/** Whether the API would take this history: roles alternate after hygiene, and every tool_use
 *  has its tool_result in the very next message. */
function everyToolUseAnswered(messages: MessageParam[]): boolean {
  return messages.every((m, i) => {
    if (m.role !== "assistant" || typeof m.content === "string") return true;
    const ids = m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    const next = messages[i + 1];
    const answered = new Set(
      next && Array.isArray(next.content)
        ? next.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []))
        : [],
    );
    return ids.every((id) => answered.has(id));
  });
}

/** A history as a request sends it: the fields of each block the API reads back. */
const KEPT = ["type", "text", "id", "name", "input", "tool_use_id", "content", "is_error"];
const requestShape = (messages: MessageParam[]) =>
  messages.map((m) => ({
    role: m.role,
    content:
      typeof m.content === "string"
        ? m.content
        : m.content.map((b) =>
            Object.fromEntries(Object.entries(b).filter(([k]) => KEPT.includes(k))),
          ),
  }));

const logLines = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n");

/** Every line of a log or a stream-json output is a recording line: the header, then steps. */
function expectRecordingLines(lines: string[]) {
  expect(headerSchema.safeParse(JSON.parse(lines[0])).success, lines[0]).toBe(true);
  for (const line of lines.slice(1))
    expect(traceStepSchema.safeParse(JSON.parse(line)).success, line).toBe(true);
}

async function playPrompts(
  env: ReturnType<typeof envFor>,
  options: a5.SessionOptions,
  prompts: string[],
) {
  const agent = a5.createAgent(env, options);
  for (const prompt of prompts) await agent.send(prompt);
  await agent.close?.();
  return agent;
}

/** The harness as `npm run -s chapter a5 -- …` starts it, offline, in its own process group. */
function startCli(args: string[]) {
  const child = spawn(process.execPath, [CLI, "a5", "--offline", ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  killAfterTest(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, exit, out: () => stdout, err: () => stderr };
}

const onlyLog = (stateDir: string) => {
  const names = readdirSync(a5.sessionsDir(stateDir));
  expect(names).toHaveLength(1);
  return {
    id: names[0].replace(/\.jsonl$/, ""),
    file: path.join(a5.sessionsDir(stateDir), names[0]),
  };
};

describe("a5 sessions", () => {
  it("offers the curriculum's five base tools", async () => {
    const env = envFor();
    await playPrompts(env, {}, [PROMPTS.start]);
    expect(a5.TOOLS.map((t) => t.name)).toEqual(CURRICULUM_TOOLS.a5.lead);
    expect(toolNames(env.scripted!)).toEqual(CURRICULUM_TOOLS.a5.lead);
  });

  it("logs every step of a session in the state folder, each line a recording line the player opens", async () => {
    const env = envFor();
    const agent = await playPrompts(env, {}, scenario.prompts);
    expect(agent.session.file.startsWith(env.stateDir + path.sep)).toBe(true);
    expect(existsSync(path.join(env.workspace, "CHANGELOG.md"))).toBe(true);
    const lines = logLines(agent.session.file);
    expectRecordingLines(lines);
    // The site's reader opens it as is, and its sessions panel shows the session.
    const recording = readRecording(readFileSync(agent.session.file, "utf8"));
    const kinds = recording.trace.steps.map((s) => s.kind);
    for (const kind of ["user", "request", "response", "tool_call", "tool_result", "event"])
      expect(kinds).toContain(kind);
    const last = stateTimeline(recording.trace).at(-1)!;
    expect(last.sessions).toEqual([[agent.session.id, [["is.start"]], "—"]]);
    // The conversation comes back from the log exactly as the agent held it.
    // (Fields only a response carries, such as `citations: null`, are not part of it.)
    expect(a5.historyFrom(recording.trace.steps)).toEqual(requestShape(agent.messages));
  });

  it(
    "a session killed mid-turn resumes with a valid history: every tool_use answered",
    async () => {
      const ws = path.join(tempDir(), "ws");
      mkdirSync(ws);
      const stateDir = `${ws}.harness`;
      const run = startCli(["-p", PROMPTS.slow, "--permission-mode", "auto", "--workspace", ws]);
      // Killed while the slow check runs: its call is in the log, its result is not.
      await waitFor(
        () =>
          existsSync(a5.sessionsDir(stateDir)) &&
          readdirSync(a5.sessionsDir(stateDir)).some((n) =>
            readFileSync(path.join(a5.sessionsDir(stateDir), n), "utf8").includes(
              '"kind":"tool_call"',
            ),
          ),
        "the slow check's tool_call in the log",
        budget({ cli: 1 }),
      );
      process.kill(-run.child.pid!, "SIGKILL");
      await run.exit;
      const { id, file } = onlyLog(stateDir);
      const before = readFileSync(file, "utf8");
      expect(before).not.toContain('"kind":"tool_result"');

      const env = envFor(ws);
      const agent = a5.createAgent(env, { resume: id });
      expect(everyToolUseAnswered(agent.messages)).toBe(true);
      await agent.send(PROMPTS.goOn);
      await agent.close?.();
      expect(everyToolUseAnswered(env.scripted!.requests.at(-1)!.body.messages)).toBe(true);
      const after = readFileSync(file, "utf8");
      expect(after.startsWith(before)).toBe(true); // appended to, never rewritten
      expect(after).toContain(a5.NOT_FINISHED);
      expect(agent.messages.at(-1)).toMatchObject({ role: "assistant" });
      expect(JSON.stringify(agent.messages.at(-1))).toContain("the check is done");
      expectRecordingLines(logLines(file));
      // The log itself is whole again: reading it back, every call has its result.
      expect(a5.closeUnfinished(a5.readSession(stateDir, id).steps)).toEqual([]);
    },
    budget({ cli: 1, chapterRun: 1 }),
  );

  test.prop([fc.nat()], { seed: SEED, numRuns: 6 })(
    "a fork at any prompt leaves the original log byte for byte and holds that many prompts",
    async (pick) => {
      const env = envFor();
      const original = await playPrompts(env, {}, scenario.prompts);
      const bytes = readFileSync(original.session.file);
      const at = pick % (scenario.prompts.length + 1);
      const fork = a5.createAgent(envFor(env.workspace), { fork: original.session.id, at });
      await fork.close?.();
      expect(readFileSync(original.session.file)).toEqual(bytes);
      expect(fork.session.id).not.toBe(original.session.id);
      const { steps } = a5.readSession(env.stateDir, fork.session.id);
      expect(a5.promptsIn(steps)).toBe(at);
      expect(fork.messages.filter((m) => typeof m.content === "string")).toHaveLength(at);
      expect(everyToolUseAnswered(fork.messages)).toBe(true);
      const tree = a5.sessionTree(env.stateDir);
      expect(tree).toHaveLength(1);
      expect(tree[0].children.map((c) => [c.id, c.turn])).toEqual([[fork.session.id, at]]);
      expect(a5.treeText(tree)).toContain(
        `└ ${fork.session.id}  ${at} prompt${at === 1 ? "" : "s"}  (forked from ${original.session.id} after prompt ${at})`,
      );
    },
    budget({ chapterRun: 6 }),
  );

  it(
    "-p with stream-json: every line validates against the recording schema, and jq reads it",
    async () => {
      const ws = path.join(tempDir(), "ws");
      const run = startCli([
        "-p",
        PROMPTS.start,
        "--output-format",
        "stream-json",
        "--workspace",
        ws,
      ]);
      expect(await run.exit).toBe(0);
      const lines = run.out().trimEnd().split("\n");
      expectRecordingLines(lines);
      expect(JSON.parse(lines[0]).format).toBe("learn-agent-harness recording");
      // Headless and in default mode, the command is refused, not asked: the refusal is a step.
      const steps = lines.slice(1).map((l) => JSON.parse(l));
      expect(steps).toContainEqual(
        expect.objectContaining({
          kind: "event",
          type: "permission",
          data: expect.objectContaining({ tool: "bash", allowed: false }),
        }),
      );
      let hasJq = true;
      try {
        execFileSync("jq", ["--version"]);
      } catch {
        hasJq = false;
      }
      if (hasJq) {
        const names = execFileSync("jq", ["-r", 'select(.kind == "tool_call") | .name'], {
          input: run.out(),
          encoding: "utf8",
        });
        expect(names.trim().split("\n")).toEqual(["write", "bash"]);
      }
    },
    budget({ cli: 1 }),
  );

  it("-p exits non-zero on a model error, and its log says why", async () => {
    const env = envFor(undefined, { lead: [fail(500, "api_error", "the model is down")] });
    const out: string[] = [];
    const err: string[] = [];
    const code = await a5.runHeadless(
      env,
      { prompt: "anything", outputFormat: "json" },
      (t) => out.push(t),
      (t) => err.push(t),
    );
    expect(code).toBe(1);
    expect(err.join("")).toMatch(/model error/);
    expect(JSON.parse(out.join(""))).toMatchObject({ is_error: true });
    const { file } = onlyLog(env.stateDir);
    expect(readFileSync(file, "utf8")).toMatch(/the turn failed/);
  });

  for (const [mode, runs] of [
    [undefined, false],
    ["plan", false],
    ["auto", true],
  ] as const)
    it(`headless, a question is answered by --permission-mode ${mode ?? "(default)"}, never by waiting`, async () => {
      const env = envFor(undefined, {
        lead: [use("bash", { command: "echo ran > ran.txt" }), say("ok")],
      });
      env.ask = () => {
        throw new Error("a headless run asked a person");
      };
      const lines: string[] = [];
      const code = await a5.runHeadless(
        env,
        { prompt: "go", outputFormat: "stream-json", permissionMode: mode },
        (t) => lines.push(t),
        () => {},
      );
      expect(code).toBe(0);
      expect(existsSync(path.join(env.workspace, "ran.txt"))).toBe(runs);
      const permission = lines
        .join("")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l))
        .find((s) => s.type === "permission");
      expect(permission.data.allowed).toBe(runs);
    });

  it("query() yields the same steps the log gets, as an async iterator", async () => {
    const env = envFor();
    const steps = [];
    for await (const step of a5.query({
      prompt: PROMPTS.start,
      model: env.model,
      modelId: env.modelId,
      workspace: env.workspace,
      permissionMode: "auto",
    }))
      steps.push(step);
    const { file } = onlyLog(env.stateDir);
    const logged = logLines(file)
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(steps).toEqual(logged.slice(1)); // all but the session's own start event
    expect(steps.at(-1)).toMatchObject({ kind: "response", stop_reason: "end_turn" });
  });

  describe("the attacker's cases", () => {
    it("a malformed line in the middle is a clear error naming its line, and the log is untouched", async () => {
      const env = envFor();
      const agent = await playPrompts(env, {}, [PROMPTS.start]);
      const lines = logLines(agent.session.file);
      lines[4] = lines[4].slice(0, 10); // cut short
      const broken = `${lines.join("\n")}\n`;
      writeFileSync(agent.session.file, broken);
      for (const options of [{ resume: agent.session.id }, { fork: agent.session.id }])
        expect(() => a5.createAgent(envFor(env.workspace), options)).toThrow(/line 5: not JSON/);
      lines[4] = JSON.stringify({ kind: "tool_result", agent: "lead", id: 1 });
      writeFileSync(agent.session.file, `${lines.join("\n")}\n`);
      expect(() => a5.createAgent(envFor(env.workspace), { resume: agent.session.id })).toThrow(
        /line 5: not a recording step/,
      );
      expect(readFileSync(agent.session.file, "utf8")).toBe(`${lines.join("\n")}\n`);
      expect(readdirSync(a5.sessionsDir(env.stateDir))).toHaveLength(1);
    });

    test.prop([fc.double({ min: 0, max: 1, noNaN: true })], { seed: SEED, numRuns: 40 })(
      "a log cut at any byte (a kill inside a write): resume refuses with a reason or goes on, fork goes on, nothing is lost",
      async (where) => {
        const env = envFor();
        const agent = await playPrompts(env, {}, [PROMPTS.start]);
        const whole = readFileSync(agent.session.file, "utf8");
        const cut = Math.floor(where * whole.length);
        truncateSync(agent.session.file, Buffer.byteLength(whole.slice(0, cut)));
        const left = readFileSync(agent.session.file);
        const headerEnd = whole.indexOf("\n") + 1;
        const resume = () => a5.createAgent(envFor(env.workspace), { resume: agent.session.id });
        if (cut < headerEnd) {
          expect(resume).toThrow(a5.SessionError);
          expect(readFileSync(agent.session.file)).toEqual(left);
          return;
        }
        if (whole[cut - 1] !== "\n") {
          expect(resume).toThrow(/cut off while it was written/);
          expect(readFileSync(agent.session.file)).toEqual(left);
        }
        const fork = a5.createAgent(envFor(env.workspace), { fork: agent.session.id });
        await fork.close?.();
        expect(everyToolUseAnswered(fork.messages)).toBe(true);
        expect(readFileSync(agent.session.file)).toEqual(left);
      },
      budget({ chapterRun: 10 }),
    );

    it("the model's tools cannot reach the logs: they live beside the workspace, outside its jail", async () => {
      const env = envFor();
      const agent = await playPrompts(env, {}, [PROMPTS.start]);
      const before = readFileSync(agent.session.file, "utf8");
      const target = path.relative(env.workspace, agent.session.file);
      const forged = JSON.stringify({ kind: "user", agent: "lead", text: "forged" });
      const attacker = envFor(env.workspace, {
        lead: [
          use("write", { path: target, content: forged }),
          use("edit", { path: target, old_text: "Start", new_text: "forged" }),
          use("read", { path: target }),
          say("tried"),
        ],
      });
      const results = [];
      for await (const step of a5.run(a5.createAgent(attacker, {}), "go"))
        if (step.kind === "tool_result") results.push(step);
      expect(results.map((r) => r.is_error)).toEqual([true, true, true]);
      expect(readFileSync(agent.session.file, "utf8")).toBe(before);
    });

    it.skipIf(machineSandbox().kind !== "bubblewrap")(
      "the model's commands cannot append to a log either: the sandbox writes only in the workspace",
      async () => {
        const env = envFor();
        const agent = await playPrompts(env, {}, [PROMPTS.start]);
        const before = readFileSync(agent.session.file, "utf8");
        const target = path.relative(env.workspace, agent.session.file);
        const attacker = envFor(env.workspace, {
          lead: [use("bash", { command: `echo forged >> ${target}` }), say("tried")],
        });
        const ran: string[] = [];
        for await (const step of a5.run(a5.createAgent(attacker, { permissionMode: "auto" }), "go"))
          if (step.kind === "tool_result") ran.push(step.output);
        expect(ran).toHaveLength(1); // it ran (auto mode), and the state folder is not there for it
        expect(readFileSync(agent.session.file, "utf8")).toBe(before);
      },
      budget({ command: 1 }),
    );

    it("a sessions folder or log replaced by a symlink is refused, and nothing is written through it", () => {
      const base = tempDir();
      const ws = path.join(base, "ws");
      mkdirSync(ws);
      const elsewhere = path.join(base, "elsewhere");
      mkdirSync(elsewhere);
      mkdirSync(`${ws}.harness`);
      symlinkSync(elsewhere, a5.sessionsDir(`${ws}.harness`));
      expect(() => a5.createAgent(envFor(ws), {})).toThrow(/not a folder/);
      expect(readdirSync(elsewhere)).toEqual([]);

      rmSync(a5.sessionsDir(`${ws}.harness`));
      mkdirSync(a5.sessionsDir(`${ws}.harness`));
      const victim = path.join(elsewhere, "victim.txt");
      writeFileSync(victim, "mine\n");
      symlinkSync(victim, a5.sessionFile(`${ws}.harness`, "linked"));
      expect(() => a5.createAgent(envFor(ws), { resume: "linked" })).toThrow(/symbolic link/);
      expect(readFileSync(victim, "utf8")).toBe("mine\n");
    });

    test.prop(
      [
        fc.oneof(
          fc.constantFrom(
            "../../escape",
            "/etc/passwd",
            "..",
            ".",
            "a/b",
            "a\0b",
            "a\nb",
            "",
            "~",
            "x".repeat(65),
            "-rf",
          ),
          fc.string(),
        ),
      ],
      { seed: SEED, numRuns: 200 },
    )("a session id is a plain word or a clear error: no path leaves the sessions folder", (id) => {
      const stateDir = path.join("/nowhere", "ws.harness");
      let accepted: string | undefined;
      try {
        accepted = a5.checkSessionId(id);
      } catch (err) {
        expect(err).toBeInstanceOf(a5.SessionError);
        return;
      }
      expect(path.dirname(a5.sessionFile(stateDir, accepted))).toBe(a5.sessionsDir(stateDir));
      expect(accepted).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]*$/);
    });

    it("hostile ids given to --resume and --fork change nothing on disk", () => {
      const base = tempDir();
      const ws = path.join(base, "ws");
      mkdirSync(ws);
      writeFileSync(path.join(base, "x.jsonl"), "not yours\n");
      for (const id of ["../../x", "../x", `${base}/x`, "x/../../x"])
        for (const options of [{ resume: id }, { fork: id }])
          expect(() => a5.createAgent(envFor(ws), options)).toThrow(/not a session id/);
      expect(readFileSync(path.join(base, "x.jsonl"), "utf8")).toBe("not yours\n");
      expect(readdirSync(base).sort()).toEqual(["ws", "x.jsonl"]);
    });

    it(
      "a kill at random moments while writing leaves a log that forks into a valid history",
      async () => {
        const rand = fc.sample(fc.integer({ min: 2, max: 14 }), { seed: SEED, numRuns: 2 });
        for (const lines of rand) {
          const ws = path.join(tempDir(), "ws");
          mkdirSync(ws);
          const stateDir = `${ws}.harness`;
          const run = startCli([
            "-p",
            PROMPTS.start,
            "--permission-mode",
            "auto",
            "--workspace",
            ws,
          ]);
          await waitFor(
            () =>
              (existsSync(a5.sessionsDir(stateDir)) &&
                readdirSync(a5.sessionsDir(stateDir)).some(
                  (n) => logLines(path.join(a5.sessionsDir(stateDir), n)).length >= lines,
                )) ||
              run.child.exitCode !== null,
            `${lines} lines in the log`,
            budget({ cli: 1 }),
          );
          try {
            process.kill(-run.child.pid!, "SIGKILL");
          } catch {
            // it finished first: a whole log is a fine case too
          }
          await run.exit;
          const { id } = onlyLog(stateDir);
          const fork = a5.createAgent(envFor(ws), { fork: id });
          await fork.close?.();
          expect(everyToolUseAnswered(fork.messages), `killed after ${lines} lines`).toBe(true);
        }
      },
      budget({ cli: 2 }),
    );
  });

  it(
    "the page's query() example runs as written, and prints the calls, the refusal and the answer",
    async () => {
      const page = readFileSync(path.join(REPO_ROOT, "chapters/a5-sessions/en.mdx"), "utf8");
      const example = /```ts\n([\s\S]*?)```/.exec(page)![1];
      expect(example.trim().split("\n")).toHaveLength(10);
      const ws = path.join(tempDir(), "ws");
      mkdirSync(ws);
      // The same code, run as the page says (node --import tsx), with the scripted model for
      // `new Anthropic()` and a temporary workspace.
      const from = (file: string) => JSON.stringify(path.join(REPO_ROOT, file));
      // .mts: outside the repository no package.json says "type": "module" (in its root, ask.ts is)
      const file = path.join(tempDir(), "ask.mts");
      writeFileSync(
        file,
        [
          `import { ScriptedModel } from ${from("chapters/_runner/scripted-model.ts")};`,
          `import { say, use } from ${from("chapters/_shared/scripted.ts")};`,
          example
            .replace(/^import Anthropic .*\n/m, "")
            .replace('"./chapters/a5-sessions/agent.ts"', from("chapters/a5-sessions/agent.ts"))
            .replace(
              "new Anthropic()",
              'new ScriptedModel({ lead: [use("glob", { pattern: "*" }), use("write", { path: "x", content: "y" }), say("an empty folder")] }).for("lead")',
            )
            .replace('".workspace/a5"', JSON.stringify(ws)),
        ].join("\n"),
      );
      const printed = execFileSync(process.execPath, ["--import", "tsx", file], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      });
      expect(printed.trimEnd().split("\n")).toEqual([
        '→ glob {"pattern":"*"}',
        '→ write {"path":"x","content":"y"}',
        expect.stringMatching(/^refused: plan mode/),
        "an empty folder",
      ]);
    },
    budget({ cli: 1 }),
  );

  it("bad options are a clear error with exit code 2", async () => {
    const env = envFor();
    const err: string[] = [];
    const code = await a5.runHeadless(
      env,
      { prompt: "x", outputFormat: "yaml" as never },
      () => {},
      (t) => err.push(t),
    );
    expect(code).toBe(2);
    expect(err.join("")).toMatch(/--output-format must be one of text, json, stream-json/);
    expect(() => a5.openSession(env, { resume: "a", fork: "b" })).toThrow(/one of them/);
    expect(() => a5.openSession(env, { at: 1 })).toThrow(/needs --fork/);
  });
});
