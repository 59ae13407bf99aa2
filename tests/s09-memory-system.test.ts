import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import * as s09 from "../chapters/s09-memory-system/agent.ts";
import { buildSystemPrompt, createAgent, loadMemories } from "../chapters/s09-memory-system/agent.ts";
import scenario from "../chapters/s09-memory-system/scenario.ts";
import { playScenario } from "../chapters/_shared/runtime.ts";
import { say, use } from "../chapters/_shared/scripted.ts";
import { scriptedEnv, tempDir, toolNames, type Env } from "./helpers.ts";

const TABS = { name: "Tabs please", description: "The user indents with tabs", type: "user", content: "Indent code with tabs, never spaces." };
const systemOf = (env: Env & { requests: { body: { system?: unknown } }[] }, i: number) => String(env.requests[i].body.system);
const results = (env: Env) =>
  env.io.trace.flatMap((e) => (e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : []));

describe("s09 memory system", () => {
  it("offers the five base tools plus save_memory", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(["bash", "read", "write", "edit", "glob", "save_memory"]);
  });

  it("save writes the memory file with frontmatter and one index line", async () => {
    const env = scriptedEnv([use("save_memory", TABS), say("saved")]);
    await createAgent(env).send("I use tabs");
    const dir = path.join(env.workspace, ".memory");
    expect(readdirSync(dir).sort()).toEqual(["MEMORY.md", "tabs-please.md"]);
    const [, front, body] = readFileSync(path.join(dir, "tabs-please.md"), "utf8").split("---\n");
    expect(parseYaml(front)).toEqual({ name: "Tabs please", description: "The user indents with tabs", type: "user" });
    expect(body.trim()).toBe("Indent code with tabs, never spaces.");
    expect(readFileSync(path.join(dir, "MEMORY.md"), "utf8")).toBe("- [Tabs please](tabs-please.md) — The user indents with tabs\n");
  });

  it("saving the same name again updates the file and its index line without a duplicate", async () => {
    const env = scriptedEnv([
      use("save_memory", TABS),
      use("save_memory", { ...TABS, name: "Second", description: "another one" }),
      use("save_memory", { ...TABS, description: "Tabs, width 4", content: "Tabs, shown 4 wide." }),
      say("ok"),
    ]);
    await createAgent(env).send("remember");
    expect(results(env).map((r) => r.output.split(" ")[0])).toEqual(["Saved", "Saved", "Updated"]);
    const dir = path.join(env.workspace, ".memory");
    expect(readFileSync(path.join(dir, "MEMORY.md"), "utf8")).toBe(
      "- [Tabs please](tabs-please.md) — Tabs, width 4\n- [Second](second.md) — another one\n");
    expect(readFileSync(path.join(dir, "tabs-please.md"), "utf8")).toContain("Tabs, shown 4 wide.");
  });

  it("rejects a bad type and writes nothing", async () => {
    const env = scriptedEnv([use("save_memory", { ...TABS, type: "secret" }), say("sorry")]);
    await createAgent(env).send("remember");
    expect(results(env)).toEqual([{ output: expect.stringMatching(/invalid type "secret"/), isError: true }]);
    expect(existsSync(path.join(env.workspace, ".memory"))).toBe(false);
  });

  it("a memory saved in round N is in the system prompt of round N+1", async () => {
    const env = scriptedEnv([use("save_memory", TABS), say("saved")]);
    await createAgent(env).send("I use tabs");
    expect(systemOf(env, 0)).not.toContain("Indent code with tabs");
    expect(systemOf(env, 1)).toContain("Indent code with tabs");
    expect(systemOf(env, 1)).toContain("- [Tabs please](tabs-please.md) — The user indents with tabs");
  });

  it("a new session on the same workspace starts with the memory", async () => {
    const ws = tempDir();
    await createAgent(scriptedEnv([use("save_memory", TABS), say("saved")], { workspace: ws })).send("I use tabs");
    const next = scriptedEnv([say("hello again")], { workspace: ws });
    await createAgent(next).send("hi");
    expect(systemOf(next, 0)).toContain("Indent code with tabs, never spaces.");
    expect(next.io.trace).toContainEqual(expect.objectContaining({ kind: "note", text: expect.stringContaining("Tabs please") }));
  });

  it("builds the system prompt from ordered sections: identity, rules, memory, environment", async () => {
    expect(buildSystemPrompt([{ title: "A", body: "one" }, { title: "Empty", body: " " }, { title: "B", body: "two" }]))
      .toBe("# A\n\none\n\n# B\n\ntwo");
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    const system = systemOf(env, 0);
    const at = ["# Identity", "# Tools and rules", "# Memory", "# Environment"].map((h) => system.indexOf(h));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(system).toContain(`Workspace: ${env.workspace}`);
  });

  it("skips a malformed memory file with a note and keeps the good ones", async () => {
    const ws = tempDir();
    const dir = path.join(ws, ".memory");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "no-front.md"), "just text");
    writeFileSync(path.join(dir, "bad-type.md"), "---\nname: x\ndescription: y\ntype: gossip\n---\nbody");
    writeFileSync(path.join(dir, "good.md"), "---\nname: Good\ndescription: fine\ntype: project\n---\nThe API lives in api/.");
    expect(loadMemories(dir).memories.map((m) => m.file)).toEqual(["good.md"]);
    const env = scriptedEnv([say("hi"), say("again")], { workspace: ws });
    const agent = createAgent(env);
    await agent.send("hello");
    await agent.send("hello again");
    const notes = env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
    expect(notes.filter((n) => n.includes("skipped"))).toEqual([
      expect.stringMatching(/bad-type\.md: unknown type "gossip"/),
      expect.stringMatching(/no-front\.md: no frontmatter/),
    ]); // once per session, not before every call
    expect(systemOf(env, 0)).toContain("The API lives in api/.");
    expect(systemOf(env, 0)).not.toContain("gossip");
  });

  it("plays its scenario offline, and a second run starts with the first run's memory", async () => {
    const ws = tempDir();
    const first = await playScenario(s09, scenario, ws);
    expect(first.env.scripted!.finished).toBe(true);
    expect(readFileSync(path.join(ws, "src/slugify.js"), "utf8")).toContain("@param {string} text");
    expect(readdirSync(path.join(ws, ".memory")).sort()).toEqual(["MEMORY.md", "jsdoc-on-exports.md"]);

    const second = await playScenario(s09, scenario, ws);
    expect(String(second.env.scripted!.requests[0].body.system)).toContain("## JSDoc on exports");
    expect(readFileSync(path.join(ws, ".memory/MEMORY.md"), "utf8").trim().split("\n")).toHaveLength(1);
  });
});
