import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import * as s09 from "../../chapters/s09-memory-system/agent.ts";
import { createAgent, loadMemories } from "../../chapters/s09-memory-system/agent.ts";
import scenario from "../../chapters/s09-memory-system/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use, useAll } from "../../chapters/_shared/scripted.ts";
import { scriptedEnv, tempDir, testKit, toolNames, type Env, toolAt } from "../support/helpers.ts";
import {
  emptySectionsDropped,
  newSessionLoads,
  savedMemoryNextRound,
  sectionsInOrder,
} from "../../chapters/s09-memory-system/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

const TABS = {
  name: "Tabs please",
  description: "The user indents with tabs",
  type: "user",
  content: "Indent code with tabs, never spaces.",
};
const systemOf = (env: Env & { requests: { body: { system?: unknown } }[] }, i: number) =>
  String(env.requests[i].body.system);
const results = (env: Env) =>
  env.io.trace.flatMap((e) =>
    e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
  );

describe("s09 memory system", () => {
  // The curriculum's prompt behaviours, defined once with the exercises (exercises/checks.ts beside the chapter)
  // and run here against the chapter's own code.
  for (const check of [
    sectionsInOrder,
    emptySectionsDropped,
    savedMemoryNextRound,
    newSessionLoads,
  ])
    it(`behaviour: ${check.id}`, () => check.run(s09, testKit()));

  it("offers the five base tools plus save_memory", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s09.lead);
  });

  it("save writes the memory file with frontmatter and one index line", async () => {
    const env = scriptedEnv([use("save_memory", TABS), say("saved")]);
    await createAgent(env).send("I use tabs");
    const dir = path.join(env.workspace, ".memory");
    expect(readdirSync(dir).sort()).toEqual(["MEMORY.md", "tabs-please.md"]);
    const [, front, body] = readFileSync(path.join(dir, "tabs-please.md"), "utf8").split("---\n");
    expect(parseYaml(front)).toEqual({
      name: "Tabs please",
      description: "The user indents with tabs",
      type: "user",
    });
    expect(body.trim()).toBe("Indent code with tabs, never spaces.");
    expect(readFileSync(path.join(dir, "MEMORY.md"), "utf8")).toBe(
      "- [Tabs please](tabs-please.md) — The user indents with tabs\n",
    );
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
      "- [Tabs please](tabs-please.md) — Tabs, width 4\n- [Second](second.md) — another one\n",
    );
    expect(readFileSync(path.join(dir, "tabs-please.md"), "utf8")).toContain("Tabs, shown 4 wide.");
  });

  it("two different names never share a file: a name whose file is taken is refused with a sentence", async () => {
    const long = "Formatting rules for the generated API client code in this repository: ";
    const env = scriptedEnv([
      use("save_memory", { ...TABS, name: "Use tabs!", content: "Tabs." }),
      use("save_memory", { ...TABS, name: "use tabs?", content: "Spaces, actually." }),
      use("save_memory", { ...TABS, name: `${long}tabs`, content: "Long one." }),
      use("save_memory", { ...TABS, name: `${long}spaces`, content: "Long two." }),
      use("save_memory", { ...TABS, name: "Use tabs!", content: "Tabs, width 4." }), // the same name updates
      say("ok"),
    ]);
    await createAgent(env).send("remember");
    const [first, clash, long1, longClash, update] = results(env);
    expect([first.isError, long1.isError, update.isError]).toEqual([false, false, false]);
    expect(clash).toEqual({
      isError: true,
      output: expect.stringMatching(/already holds the memory "Use tabs!"/),
    });
    expect(longClash).toEqual({
      isError: true,
      output: expect.stringContaining(`already holds the memory "${long}tabs"`),
    });
    const { memories } = loadMemories(path.join(env.workspace, ".memory"));
    expect(memories.map((m) => `${m.name}: ${m.content}`).sort()).toEqual([
      `${long}tabs: Long one.`,
      "Use tabs!: Tabs, width 4.",
    ]);
    expect(
      readFileSync(path.join(env.workspace, ".memory/MEMORY.md"), "utf8").trim().split("\n"),
    ).toHaveLength(2);
  });

  it("never overwrites the index or a memory file it cannot read, whatever the name", async () => {
    const ws = tempDir();
    mkdirSync(path.join(ws, ".memory"));
    writeFileSync(path.join(ws, ".memory/hand-written.md"), "notes without frontmatter");
    const env = scriptedEnv(
      [
        use("save_memory", { ...TABS, name: "Memory" }),
        use("save_memory", { ...TABS, name: "Hand written" }),
        say("ok"),
      ],
      { workspace: ws },
    );
    await createAgent(env).send("remember");
    const [index, broken] = results(env);
    expect(index).toEqual({
      isError: true,
      output: expect.stringMatching(/would overwrite the index/),
    });
    expect(broken).toEqual({
      isError: true,
      output: expect.stringMatching(/hand-written\.md exists but is not a valid memory/),
    });
    expect(readFileSync(path.join(ws, ".memory/hand-written.md"), "utf8")).toBe(
      "notes without frontmatter",
    );
    expect(readdirSync(path.join(ws, ".memory")).sort()).toEqual(["hand-written.md"]);
  });

  it("a name or description with Markdown link syntax can never break the index", async () => {
    const env = scriptedEnv([
      use("save_memory", { ...TABS, name: "Alpha", description: "see ](beta.md) and [x](y.md)" }),
      use("save_memory", { ...TABS, name: "Beta", description: "second" }),
      use("save_memory", {
        ...TABS,
        name: "Gamma](alpha.md) [evil",
        description: "third\n- [Fake](fake.md) — injected",
      }),
      use("save_memory", { ...TABS, name: "Beta", description: "second, updated" }),
      say("ok"),
    ]);
    await createAgent(env).send("remember");
    expect(results(env).every((r) => !r.isError)).toBe(true);
    const lines = readFileSync(path.join(env.workspace, ".memory/MEMORY.md"), "utf8")
      .trim()
      .split("\n");
    expect(lines).toHaveLength(3); // one line per memory: nothing replaced, nothing injected
    // Each line links to its own file, and that is the only link a Markdown reader finds in it.
    const links = lines.map((l) =>
      [...l.matchAll(/(?<!\\)\[((?:\\.|[^\\\]])*)\]\(([^)]*)\)/g)].map((m) => m[2]),
    );
    expect(links).toEqual([
      ["alpha.md"],
      ["beta.md"],
      [expect.stringMatching(/^gamma-alpha-md-evil\.md$/)],
    ]);
    expect(lines[1]).toMatch(/second, updated$/);
    expect(lines[0]).toContain("Alpha");
  });

  it("names the memory where it is: every path its messages give opens with the model's read tool", async () => {
    const big = { ...TABS, name: "Big", description: "a long one", content: "x".repeat(13_000) };
    const env = scriptedEnv([
      use("save_memory", TABS),
      use("save_memory", big),
      ({ results, request }) => {
        const said = `${results().join("\n")}\n${String(request.system)}`;
        const paths = [...new Set(said.match(/\.memory\/[\w.-]+/g))];
        return useAll(paths.map((p) => ({ name: "read", input: { path: p } })));
      },
      say("ok"),
    ]);
    await createAgent(env).send("remember");
    const [saved, savedBig, ...reads] = results(env);
    expect(saved.output).toBe(
      "Saved memory .memory/tabs-please.md and its line in .memory/MEMORY.md",
    );
    expect(savedBig.isError).toBe(false);
    const system = systemOf(env, 2);
    expect(system.includes("Index (.memory/MEMORY.md)")).toBe(true);
    expect(system.includes("## Big (user, .memory/big.md)")).toBe(true); // files in name order
    expect(system.includes("\n… (more in .memory/: read the files)")).toBe(true);
    expect(reads.map((r) => r.isError)).toEqual([false, false, false]); // MEMORY.md and both files
  });

  it("a memory folder outside the workspace is named by its full path, and the model is not told to read it", () => {
    const ws = tempDir();
    const outside = path.join(tempDir(), "memory");
    const folder = s09.memoryFolder(ws, outside);
    expect(folder).toEqual({ dir: outside, shown: outside, readable: false });
    expect(s09.memoryFolder(ws, path.join(ws, ".memory"))).toMatchObject({
      shown: ".memory",
      readable: true,
    });
    expect(s09.memoryFolder(ws, path.join(ws, "..", "x"))).toMatchObject({ readable: false });
    expect(s09.memoryHandlers(folder).save_memory(TABS, toolAt(ws))).toBe(
      `Saved memory ${outside}/tabs-please.md and its line in ${outside}/MEMORY.md`,
    );
    const { index, memories } = loadMemories(outside);
    const big = [{ ...memories[0], content: "x".repeat(13_000) }];
    const [, , memory] = s09.systemSections(scriptedEnv([]), folder, index, big);
    expect(memory.body).toContain(`## Tabs please (user, ${outside}/tabs-please.md)`);
    expect(memory.body).toMatch(
      `… (the rest did not fit; it is in ${outside}/, outside the workspace)`,
    );
    expect(memory.body).not.toMatch(/read the files|\.memory\//);
  });

  it("rejects a bad type and writes nothing", async () => {
    const env = scriptedEnv([use("save_memory", { ...TABS, type: "secret" }), say("sorry")]);
    await createAgent(env).send("remember");
    expect(results(env)).toEqual([
      { output: expect.stringMatching(/invalid type "secret"/), isError: true },
    ]);
    expect(existsSync(path.join(env.workspace, ".memory"))).toBe(false);
  });

  it("a new session on the same workspace starts with the memory", async () => {
    const ws = tempDir();
    await createAgent(
      scriptedEnv([use("save_memory", TABS), say("saved")], { workspace: ws }),
    ).send("I use tabs");
    const next = scriptedEnv([say("hello again")], { workspace: ws });
    await createAgent(next).send("hi");
    expect(systemOf(next, 0)).toContain("Indent code with tabs, never spaces.");
    expect(next.io.trace).toContainEqual(
      expect.objectContaining({ kind: "note", text: expect.stringContaining("Tabs please") }),
    );
  });

  it("skips a malformed memory file with a note and keeps the good ones", async () => {
    const ws = tempDir();
    const dir = path.join(ws, ".memory");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "no-front.md"), "just text");
    writeFileSync(
      path.join(dir, "bad-type.md"),
      "---\nname: x\ndescription: y\ntype: gossip\n---\nbody",
    );
    writeFileSync(
      path.join(dir, "good.md"),
      "---\nname: Good\ndescription: fine\ntype: project\n---\nThe API lives in api/.",
    );
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
    expect(readdirSync(path.join(ws, ".memory")).sort()).toEqual([
      "MEMORY.md",
      "jsdoc-on-exports.md",
    ]);

    const second = await playScenario(s09, scenario, ws);
    expect(String(second.env.scripted!.requests[0].body.system)).toContain("## JSDoc on exports");
    expect(
      readFileSync(path.join(ws, ".memory/MEMORY.md"), "utf8").trim().split("\n"),
    ).toHaveLength(1);
  });
});
