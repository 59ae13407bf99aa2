import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s02 from "../../chapters/s02-tool-use/agent.ts";
import {
  agentLoop,
  BASE_HANDLERS,
  BASE_TOOLS,
  createAgent,
  normalizeMessages,
  runTool,
} from "../../chapters/s02-tool-use/agent.ts";
import scenario from "../../chapters/s02-tool-use/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { MessageParam, ToolUseBlock } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, testKit, toolNames, toolAt } from "../support/helpers.ts";
import {
  dispatchByName,
  inputChecked,
  jailAllowsInside,
  jailRefuses,
  unknownToolIsAResult,
} from "../../chapters/s02-tool-use/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}`, name, input }) as ToolUseBlock;

describe("s02 tool use", () => {
  it("offers exactly the five base tools", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s02.lead);
  });

  it("the loop takes its parts: a system prompt built per request, and how a call runs", async () => {
    const env = scriptedEnv([
      use("read", { path: "a.txt" }),
      use("glob", { pattern: "*" }),
      say("done"),
    ]);
    let built = 0;
    const ran: string[] = [];
    const messages: MessageParam[] = [{ role: "user", content: "go" }];
    await agentLoop(env, messages, {
      system: () => `prompt ${++built}`,
      tools: BASE_TOOLS,
      runCall: async (block) => {
        ran.push(block.name);
        return { output: `ran ${block.name}`, isError: false };
      },
    });
    expect(env.requests.map((r) => (r.body as { system?: unknown }).system)).toEqual([
      "prompt 1",
      "prompt 2",
      "prompt 3",
    ]);
    expect(ran).toEqual(["read", "glob"]);
    expect(JSON.stringify(messages.at(-2))).toContain("ran glob");
  });

  it("refuses every path-escape form and writes nothing outside", async () => {
    const base = tempDir();
    const ws = path.join(base, "ws");
    const outside = path.join(base, "outside");
    mkdirSync(ws);
    mkdirSync(outside);
    symlinkSync(outside, path.join(ws, "link-dir"));
    symlinkSync(path.join(outside, "nothing-here"), path.join(ws, "dangling"));
    symlinkSync("/etc/hostname", path.join(ws, "host"));
    const hostile = [
      "../escape.txt",
      "../outside/x.txt",
      "a/../../escape.txt",
      `${outside}/abs.txt`,
      "/tmp/abs.txt",
      "~/x.txt",
      "link-dir/x.txt",
      "link-dir/deeper/x.txt",
      "dangling",
      "host",
      "bad\0name",
      "x".repeat(300),
      "",
    ];
    for (const p of hostile) {
      for (const [name, input] of [
        ["write", { path: p, content: "pwned" }],
        ["read", { path: p }],
        ["edit", { path: p, old_text: "a", new_text: "b" }],
      ] as const) {
        const r = await runTool(BASE_HANDLERS, call(name, input), toolAt(ws));
        expect(r.isError, `${name} ${JSON.stringify(p)}`).toBe(true);
      }
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(base).sort()).toEqual(["outside", "ws"]);
  });

  for (const check of [
    unknownToolIsAResult,
    dispatchByName,
    inputChecked,
    jailRefuses,
    jailAllowsInside,
  ])
    it(`behaviour: ${check.id}`, () => check.run(s02, testKit()));

  it("edit replaces the first match only, and errors when the text is absent", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "f.txt"), "cat cat cat");
    const ok = await runTool(
      BASE_HANDLERS,
      call("edit", { path: "f.txt", old_text: "cat", new_text: "dog" }),
      toolAt(ws),
    );
    expect(ok.isError).toBe(false);
    expect(readFileSync(path.join(ws, "f.txt"), "utf8")).toBe("dog cat cat");
    const missing = await runTool(
      BASE_HANDLERS,
      call("edit", { path: "f.txt", old_text: "bird", new_text: "x" }),
      toolAt(ws),
    );
    expect(missing).toEqual({ output: expect.stringMatching(/not found/), isError: true });
    expect(readFileSync(path.join(ws, "f.txt"), "utf8")).toBe("dog cat cat");
  });

  it("glob lists matching files and refuses patterns that leave the workspace", async () => {
    const ws = tempDir();
    mkdirSync(path.join(ws, "src"));
    writeFileSync(path.join(ws, "src/a.ts"), "");
    writeFileSync(path.join(ws, "b.md"), "");
    expect(
      (await runTool(BASE_HANDLERS, call("glob", { pattern: "**/*.ts" }), toolAt(ws))).output,
    ).toBe("src/a.ts");
    expect(
      (await runTool(BASE_HANDLERS, call("glob", { pattern: "../*" }), toolAt(ws))).isError,
    ).toBe(true);
  });

  it("message hygiene: a missing tool_result becomes (cancelled), same-role turns merge", () => {
    const history: MessageParam[] = [
      { role: "user", content: "first" },
      { role: "user", content: "second" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "bash", input: {} },
          { type: "tool_use", id: "t2", name: "bash", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "ok" }] },
      { role: "user", content: "and then" },
    ];
    const clean = normalizeMessages(history);
    expect(clean.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const results = clean[2].content as { type: string; tool_use_id?: string; content?: unknown }[];
    expect(results.slice(0, 2)).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "(cancelled)" },
      { type: "tool_result", tool_use_id: "t2", content: "ok" },
    ]);
    expect(results[2]).toEqual({ type: "text", text: "and then" });
    expect(history).toHaveLength(5); // the stored history is left as it was
  });

  it("an assistant turn that ends the history gets cancelled results appended", () => {
    const clean = normalizeMessages([
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "t9", name: "read", input: {} }] },
    ]);
    expect(clean.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t9", content: "(cancelled)" }],
    });
  });

  it("the loop keeps going after an error result", async () => {
    const env = scriptedEnv([
      use("read", { path: "../nope" }),
      use("bash", { command: "echo after" }),
      say("done"),
    ]);
    await createAgent(env).send("go");
    const outputs = env.io.trace.flatMap((e) =>
      e.kind === "tool_result" ? [[e.is_error, e.output]] : [],
    );
    expect(outputs).toEqual([
      [true, expect.stringMatching(/escapes/)],
      [false, "after"],
    ]);
  });

  it("plays its scenario offline: the module is written and fixed, the escape refused", async () => {
    const ws = tempDir();
    await playScenario(s02, scenario, ws);
    expect(readFileSync(path.join(ws, "src/greet.js"), "utf8")).toContain("`Hello, ${name}!`");
  });
});

// Issue 22, item 9: dispatch checks a call against the schema the model was offered.
describe("s02 dispatch checks the input against the tool's schema", () => {
  it("refuses a field the schema does not declare, a missing field and a wrong type, before the handler runs", async () => {
    const ws = tempDir();
    const cases: [string, unknown, RegExp][] = [
      [
        "write",
        { path: "a.txt", content: "x", mode: "0777" },
        /write does not take the field "mode" \(it takes: path, content\)/,
      ],
      [
        "bash",
        { path: "notes.txt", command: "touch ran.txt" },
        /bash does not take the field "path"/,
      ],
      ["bash", { command: ["touch ran.txt"] }, /bash needs "command" to be text, not a list/],
      [
        "write",
        { path: { name: "a.txt" }, content: "x" },
        /write needs "path" to be text, not an object/,
      ],
      ["write", { path: "a.txt" }, /write needs "content"/],
      [
        "read",
        { path: "a.txt", limit: "all" },
        /read needs "limit" to be a whole number, not text/,
      ],
      ["bash", "touch ran.txt", /bash takes an object of fields, not text/],
    ];
    for (const [name, input, why] of cases) {
      const r = await runTool(BASE_HANDLERS, { ...call(name, {}), input }, toolAt(ws));
      expect(r, name).toEqual({ output: expect.stringMatching(why), isError: true });
      expect(r.output.split("\n"), name).toHaveLength(1);
    }
    expect(readdirSync(ws)).toEqual([]);
  });

  it("checks a chapter's own tools against the list it passes, and leaves a well-formed call alone", async () => {
    const ws = tempDir();
    const handlers = {
      ...BASE_HANDLERS,
      shout: ({ text }: Record<string, unknown>) => String(text),
    };
    const shout = {
      name: "shout",
      input_schema: { type: "object" as const, properties: { text: { type: "string" } } },
    };
    const tools = [...s02.BASE_TOOLS, shout];
    expect(await runTool(handlers, call("shout", { text: "hi" }), toolAt(ws), tools)).toEqual({
      output: "hi",
      isError: false,
    });
    expect(
      (await runTool(handlers, call("shout", { text: "hi", path: "x" }), toolAt(ws), tools)).output,
    ).toMatch(/shout does not take the field "path"/);
    expect(
      await runTool(BASE_HANDLERS, call("write", { path: "a.txt", content: "x" }), toolAt(ws)),
    ).toEqual({
      output: "Wrote 1 bytes to a.txt",
      isError: false,
    });
  });
});
