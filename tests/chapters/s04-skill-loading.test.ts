import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s04 from "../../chapters/s04-skill-loading/agent.ts";
import { createAgent, parseSkill, scanSkills } from "../../chapters/s04-skill-loading/agent.ts";
import scenario from "../../chapters/s04-skill-loading/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { prepareWorkspace } from "../../chapters/_runner/workspace.ts";
import { scriptedEnv, tempDir, testKit, toolNames } from "../support/helpers.ts";
import {
  bodyReadOnLoad,
  brokenSkillReported,
  indexWithoutBodies,
  loadReturnsBody,
  unknownListsAvailable,
} from "../../chapters/s04-skill-loading/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

type Env = ReturnType<typeof scriptedEnv>;
const TEMPLATE = path.resolve(import.meta.dirname, "../../chapters/s04-skill-loading/workspace");

function addSkill(ws: string, folder: string, text: string): void {
  mkdirSync(path.join(ws, "skills", folder), { recursive: true });
  writeFileSync(path.join(ws, "skills", folder, "SKILL.md"), text);
}
const skill = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

/** A workspace with two small skills whose bodies hold a recognisable secret word. */
function twoSkills(): string {
  const ws = tempDir();
  addSkill(
    ws,
    "deploy",
    skill("deploy", "Ship the app to staging.", "BODY-DEPLOY: run ./ship.sh staging"),
  );
  addSkill(
    ws,
    "review",
    skill("review", "Review a diff for bugs.", "BODY-REVIEW: read every changed line"),
  );
  return ws;
}
const systemOf = (env: Env, n = 0) => String(env.requests[n].body.system);
const results = (env: Pick<Env, "io">) =>
  env.io.trace.flatMap((e) => (e.kind === "tool_result" ? [e] : []));
const notes = (env: Env) => env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));

describe("s04 skill loading", () => {
  it("offers the five base tools plus load_skill", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s04.lead);
  });

  it("the shipped skills are listed without their bodies too", async () => {
    const ws = prepareWorkspace(tempDir(), { template: TEMPLATE });
    const env = scriptedEnv([say("hi")], { workspace: ws });
    await createAgent(env).send("hello");
    const system = systemOf(env);
    for (const name of ["node-test", "changelog"]) {
      const { description, body } = parseSkill(
        readFileSync(path.join(TEMPLATE, "skills", name, "SKILL.md"), "utf8"),
        name,
      );
      expect(system).toContain(`- ${name}: ${description}`);
      expect(system).not.toContain(body.split("\n").find((l) => l.length > 30));
    }
  });

  for (const check of [
    indexWithoutBodies,
    loadReturnsBody,
    unknownListsAvailable,
    brokenSkillReported,
    bodyReadOnLoad,
  ])
    it(`behaviour: ${check.id}`, () => check.run(s04, testKit()));

  it("a malformed SKILL.md is skipped with a note and its load is a clear error; the rest still work", async () => {
    const ws = twoSkills();
    addSkill(ws, "broken", "---\nname: broken\n---\nno description here\n");
    addSkill(ws, "no-front", "just text\n");
    addSkill(ws, "bad-yaml", "---\nname: [unclosed\ndescription: x\n---\nbody\n");
    mkdirSync(path.join(ws, "skills", "empty"));
    const env = scriptedEnv(
      [use("load_skill", { name: "broken" }), use("load_skill", { name: "deploy" }), say("ok")],
      { workspace: ws },
    );
    await createAgent(env).send("go");
    expect(notes(env)).toEqual([
      expect.stringMatching(/skills\/bad-yaml\/SKILL\.md: the frontmatter is not valid YAML/),
      expect.stringMatching(/skills\/broken\/SKILL\.md: the frontmatter has no description/),
      expect.stringMatching(/skills\/empty\/SKILL\.md: the folder has no SKILL\.md/),
      expect.stringMatching(/skills\/no-front\/SKILL\.md: no frontmatter/),
      "skills in the system prompt: deploy, review",
    ]);
    expect(systemOf(env)).not.toMatch(/broken|no-front|bad-yaml/);
    const [broken, ok] = results(env);
    expect(broken).toMatchObject({
      is_error: true,
      output: expect.stringMatching(/skill "broken" cannot be loaded: .*no description/),
    });
    expect(ok.is_error).toBe(false);
  });

  it("a name that does not match its folder is reported, not listed", () => {
    const ws = tempDir();
    addSkill(ws, "alpha", skill("beta", "Mismatched.", "body"));
    expect(scanSkills(ws)).toEqual({
      skills: [],
      problems: [{ folder: "alpha", reason: 'name "beta" does not match its folder "alpha"' }],
    });
  });

  it("rescans at every user turn: a skill added between prompts is listed in the next one", async () => {
    const ws = twoSkills();
    const env = scriptedEnv([say("one"), say("two")], { workspace: ws });
    const agent = createAgent(env);
    await agent.send("first");
    addSkill(ws, "lint", skill("lint", "Run the linter.", "BODY-LINT"));
    await agent.send("second");
    expect(systemOf(env, 0)).not.toContain("lint");
    expect(systemOf(env, 1)).toContain("- lint: Run the linter.");
  });

  it("plays its scenario offline: both skills are loaded, and their instructions show in the files", async () => {
    const ws = prepareWorkspace(tempDir(), { template: TEMPLATE });
    const { env } = await playScenario(s04, scenario, ws);
    const loaded = results(env).filter((r) => r.name === "load_skill");
    expect(loaded.map((r) => [r.is_error, r.output.split("\n")[0]])).toEqual([
      [false, '<skill name="node-test">'],
      [false, '<skill name="changelog">'],
    ]);
    expect(readFileSync(path.join(ws, "CHANGELOG.md"), "utf8")).toMatch(
      /## \[Unreleased\]\n\n### Added\n\n- `clamp/,
    );
    const out = execFileSync(
      "node",
      ["--test", "--test-reporter=spec", path.join(ws, "test/math.test.mjs")],
      { encoding: "utf8" },
    );
    expect(out).toMatch(/ℹ pass 5/);
  });
});
