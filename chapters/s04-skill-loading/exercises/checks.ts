// s04's exercises: rebuild the skill loader (the scan that lists skills, the load that fetches a
// body); extend /skills (each body's size, and what the index saves). The behaviours are the
// curriculum's for s04, and tests/chapters/s04-skill-loading.test.ts runs the same ones against
// the chapter's own code.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { say, use } from "../../_shared/scripted.ts";
import type * as S04 from "../agent.ts";
import {
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckEnv,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S04;

const skill = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

function addSkill(ws: string, folder: string, text: string): void {
  mkdirSync(path.join(ws, "skills", folder), { recursive: true });
  writeFileSync(path.join(ws, "skills", folder, "SKILL.md"), text);
}

/** A workspace with two small skills whose bodies hold a recognisable word. */
function twoSkills(ws: string): string {
  addSkill(ws, "deploy", skill("deploy", "Ship the app to staging.", "BODY-DEPLOY: run ./ship.sh"));
  addSkill(ws, "review", skill("review", "Review a diff for bugs.", "BODY-REVIEW: read each line"));
  return ws;
}

/** One user turn; the learner's code throwing is a failure the check names, not a crash. */
async function play(module: M, env: CheckEnv, prompt = "go"): Promise<void> {
  try {
    await module.createAgent(env).send(prompt);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith(NOT_STARTED)) throw err;
    if (err instanceof CheckFailure) throw err;
    throw new CheckFailure("turn-crashed", {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

const results = (env: CheckEnv) =>
  env.io.trace.flatMap((e) => (e.kind === "tool_result" ? [e] : []));
const systemOf = (env: CheckEnv) => String(env.requests[0]?.body.system ?? "");

// ---- The loader's rule, tried on generated skill folders (property checks) ----

type Kind = "good" | "no-description" | "no-front-matter" | "empty";
const NAMES = ["deploy", "review", "lint", "test-plan", "docs", "a11y"];
/** A skills/ folder (its skills made in any order, some broken) and a name to load: one of
 *  them, or one nobody installed. */
const folderArb = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom(...NAMES),
      kind: fc.constantFrom<Kind>(
        "good",
        "good",
        "good",
        "no-description",
        "no-front-matter",
        "empty",
      ),
    }),
    { maxLength: 5, selector: (s) => s.name },
  )
  .chain((skills) =>
    fc.record({
      skills: fc.constant(skills),
      load: fc.constantFrom(...skills.map((s) => s.name), "deploy-prod", "missing"),
    }),
  );
const bodyOf = (name: string) => `BODY-${name.toUpperCase()}: do the ${name} steps`;
const describeFolder = (skills: { name: string; kind: Kind }[]) =>
  skills.map((s) => (s.kind === "good" ? s.name : `${s.name} (${s.kind})`)).join(", ") || "empty";

/** Makes the folder in a new workspace, plays load_skill(load) on it; what the model was told. */
async function playFolder(
  module: M,
  kit: CheckKit,
  skills: { name: string; kind: Kind }[],
  load: string,
) {
  const ws = kit.workspace();
  mkdirSync(path.join(ws, "skills"));
  for (const { name, kind } of skills) {
    if (kind === "empty") mkdirSync(path.join(ws, "skills", name));
    else if (kind === "no-front-matter") addSkill(ws, name, `${bodyOf(name)}\n`);
    else if (kind === "no-description")
      addSkill(ws, name, `---\nname: ${name}\n---\n${bodyOf(name)}\n`);
    else addSkill(ws, name, skill(name, `How to ${name}.`, bodyOf(name)));
  }
  const env = kit.env([use("load_skill", { name: load }), say("ok")], { workspace: ws });
  await play(module, env);
  return { system: systemOf(env), result: results(env)[0] };
}

async function indexRule(module: M, kit: CheckKit) {
  await forAll(
    folderArb,
    async ({ skills, load }) => {
      const { system } = await playFolder(module, kit, skills, load);
      const folder = describeFolder(skills);
      const good = skills
        .filter((s) => s.kind === "good")
        .map((s) => s.name)
        .sort();
      for (const s of skills) {
        const listed = system.includes(`- ${s.name}:`);
        if (s.kind === "good")
          expectThat(system.includes(`- ${s.name}: How to ${s.name}.`), "rule-not-listed", {
            folder,
            name: s.name,
          });
        else expectThat(!listed, "rule-broken-listed", { folder, name: s.name, kind: s.kind });
      }
      const order = good.map((n) => system.indexOf(`- ${n}:`));
      expectThat(
        order.every((at, i) => i === 0 || at > order[i - 1]),
        "rule-index-order",
        {
          folder,
          expected: good.join(", "),
        },
      );
      expectThat(!system.includes("BODY-"), "body-in-prompt", {});
    },
    { runs: 15 },
  );
}

async function loadRule(module: M, kit: CheckKit) {
  await forAll(
    folderArb,
    async ({ skills, load }) => {
      const { result } = await playFolder(module, kit, skills, load);
      const folder = describeFolder(skills);
      const target = skills.find((s) => s.name === load);
      const good = skills
        .filter((s) => s.kind === "good")
        .map((s) => s.name)
        .sort();
      const got = result?.output ?? "no result";
      if (target?.kind === "good") {
        const expected = `<skill name="${load}">\n${bodyOf(load)}\n</skill>`;
        expectThat(result && !result.is_error && result.output === expected, "rule-wrong-body", {
          folder,
          name: load,
          got,
          expected,
        });
      } else if (target) {
        expectThat(result?.is_error === true && got.includes(load), "rule-broken-unclear", {
          folder,
          name: load,
          got,
        });
      } else {
        // The list names the skills that can be loaded, and no folder that cannot.
        const rest = got.split(load).join("");
        const unloadable = skills.filter((s) => s.kind !== "good" && rest.includes(s.name));
        expectThat(
          result?.is_error === true &&
            got.includes(load) &&
            (good.length === 0 || got.includes(good.join(", "))) &&
            unloadable.length === 0,
          "rule-unknown-no-list",
          { folder, name: load, expected: good.join(", ") || "-", got },
        );
      }
    },
    { runs: 15 },
  );
}

export const indexWithoutBodies: Check<M> = {
  id: "index-without-bodies",
  async run(module, kit) {
    const env = kit.env([say("hi")], { workspace: twoSkills(kit.workspace()) });
    await play(module, env);
    const system = systemOf(env);
    for (const line of ["- deploy: Ship the app to staging.", "- review: Review a diff for bugs."])
      expectThat(system.includes(line), "skill-not-listed", { line });
    expectThat(!system.includes("BODY-"), "body-in-prompt", {});
    // A plain file beside the folders (a README) is neither a skill nor a broken one.
    const ws = twoSkills(kit.workspace());
    writeFileSync(path.join(ws, "skills", "README.md"), "# our skills\n");
    const scanned = module.scanSkills(ws);
    const got = JSON.stringify({
      skills: scanned.skills.map((s) => s.name),
      problems: scanned.problems.map((p) => p.folder),
    });
    expectThat(
      got === JSON.stringify({ skills: ["deploy", "review"], problems: [] }),
      "file-as-folder",
      {
        got,
      },
    );
    await indexRule(module, kit);
  },
};

export const loadReturnsBody: Check<M> = {
  id: "load-returns-body",
  async run(module, kit) {
    const env = kit.env([use("load_skill", { name: "deploy" }), say("ok")], {
      workspace: twoSkills(kit.workspace()),
    });
    await play(module, env);
    const [result] = results(env);
    const expected = '<skill name="deploy">\nBODY-DEPLOY: run ./ship.sh\n</skill>';
    expectThat(result && !result.is_error && result.output === expected, "wrong-body", {
      got: result?.output ?? "no result",
      expected,
    });
  },
};

export const unknownListsAvailable: Check<M> = {
  id: "unknown-lists-available",
  async run(module, kit) {
    const env = kit.env(
      [
        use("load_skill", { name: "deploy-prod" }),
        use("load_skill", { name: "review" }),
        say("ok"),
      ],
      { workspace: twoSkills(kit.workspace()) },
    );
    await play(module, env);
    const [unknown, next] = results(env);
    expectThat(unknown?.is_error === true, "unknown-not-error", {
      got: unknown?.output ?? "no result",
    });
    expectThat(
      /deploy-prod/.test(unknown.output) && /deploy, review/.test(unknown.output),
      "unknown-no-list",
      {
        got: unknown.output,
      },
    );
    expectThat(next && !next.is_error && next.output.includes("BODY-REVIEW"), "loop-stopped", {
      got: next?.output ?? "no result",
    });
    await loadRule(module, kit);
  },
};

export const brokenSkillReported: Check<M> = {
  id: "broken-skill-reported",
  async run(module, kit) {
    const ws = twoSkills(kit.workspace());
    addSkill(ws, "broken", "---\nname: broken\n---\nno description here\n");
    addSkill(ws, "no-front", "just text\n");
    mkdirSync(path.join(ws, "skills", "empty"));
    const env = kit.env(
      [use("load_skill", { name: "broken" }), use("load_skill", { name: "deploy" }), say("ok")],
      { workspace: ws },
    );
    await play(module, env);
    const system = systemOf(env);
    for (const name of ["broken", "no-front", "empty"])
      expectThat(!system.includes(`- ${name}`), "broken-listed", { name });
    expectThat(system.includes("- deploy:") && system.includes("- review:"), "good-skill-lost", {});
    const [broken, ok] = results(env);
    expectThat(
      broken?.is_error === true &&
        /broken/.test(broken.output) &&
        /description/.test(broken.output),
      "broken-load-unclear",
      { got: broken?.output ?? "no result" },
    );
    expectThat(ok && !ok.is_error, "loop-stopped", { got: ok?.output ?? "no result" });
  },
};

export const bodyReadOnLoad: Check<M> = {
  id: "body-read-on-load",
  async run(module, kit) {
    const env = kit.env(
      [
        use("load_skill", { name: "deploy" }),
        use("write", {
          path: "skills/deploy/SKILL.md",
          content: skill("deploy", "Ship the app to staging.", "BODY-EDITED: ship to prod now"),
        }),
        use("load_skill", { name: "deploy" }),
        say("ok"),
      ],
      { workspace: twoSkills(kit.workspace()) },
    );
    await play(module, env);
    const loads = results(env).filter((r) => r.name === "load_skill");
    expectThat(loads[1]?.output.includes("BODY-EDITED"), "body-not-reread", {
      got: loads[1]?.output ?? "no result",
    });
  },
};

/** The numbers in a line of text. */
const numbers = (line: string) =>
  (line.match(/\d[\d,]*/g) ?? []).map((n) => Number(n.replace(/,/g, "")));

export const sizesShown: Check<M> = {
  id: "sizes-shown",
  async run(module, kit) {
    const ws = kit.workspace();
    const bodies = { small: "s".repeat(400), large: "L".repeat(6000) };
    for (const [name, body] of Object.entries(bodies))
      addSkill(ws, name, skill(name, `The ${name} one.`, body));
    const agent = module.createAgent(kit.env([], { workspace: ws }));
    const command = agent.commands?.["/skills"];
    expectThat(command, "no-skills-command", {});
    let out: string;
    try {
      out = await command.run("");
    } catch (err) {
      throw new CheckFailure("turn-crashed", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    const lines = out.split("\n");
    for (const [name, body] of Object.entries(bodies)) {
      const line = lines.find((l) => l.includes(name)) ?? "";
      const tokens = body.length / 4;
      const ok = numbers(line).some((n) => n === body.length || Math.abs(n - tokens) <= 1);
      expectThat(ok, "size-missing", {
        name,
        line: line || "(no line)",
        tokens,
        chars: body.length,
      });
    }
    const saving = lines.find((l) => /sav/i.test(l) && numbers(l).length > 0);
    expectThat(saving, "saving-missing", { got: out });
  },
};

export const exercises: Exercise<M>[] = [
  {
    id: "s04",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "scanSkills",
        contract: [
          "Receives the workspace root. Return { skills, problems }: one Skill (name, description,",
          "file) for each folder of skills/ that holds a SKILL.md parseSkill accepts, in name order;",
          "each other folder goes into problems with the reason, and the scan goes on.",
          "List through the jail (listFolderInside, readInside). Keep no body: the prompt lists",
          "names and descriptions only.",
        ].join("\n"),
      },
      {
        name: "loadSkill",
        contract: [
          "Called when the model calls load_skill(name). Return the skill's body, read from its",
          'file only now, wrapped as <skill name="…">\\n…\\n</skill>. Throw an Error for a name',
          "the index does not list: for a skill in problems say why it cannot be loaded, else list",
          'the available skills ("Available skills: a, b"), so the model can pick again.',
        ].join("\n"),
      },
    ],
    checks: [
      indexWithoutBodies,
      loadReturnsBody,
      unknownListsAvailable,
      brokenSkillReported,
      bodyReadOnLoad,
    ],
  },
  {
    id: "s04.2",
    kind: "extend",
    file: "agent.ts",
    solution: {
      agent: (reference) =>
        reference.replace(
          / {8}run: \(\) => \{\n {10}const \{ skills, problems \} = scanSkills\(env\.workspace\);\n[\s\S]*?\n {8}\},\n/,
          `        run: () => {
          const { skills, problems } = scanSkills(env.workspace);
          // About four characters per token (s05 estimates the same way).
          const tokens = (text: string) => Math.ceil(text.length / 4);
          let bodies = 0;
          const lines = skills.map((s) => {
            const { body } = parseSkill(readInside(env.workspace, s.file), s.name);
            bodies += tokens(body);
            return \`\${s.name}: \${s.description} (body ~\${tokens(body)} tokens)\`;
          });
          const index = tokens(skills.map((s) => \`- \${s.name}: \${s.description}\`).join("\\n"));
          if (skills.length)
            lines.push(
              \`the index costs ~\${index} tokens; every body up front would cost ~\${bodies}: ~\${bodies - index} saved per request\`,
            );
          lines.push(...problems.map((p) => \`(skipped) \${p.folder}: \${p.reason}\`));
          return lines.join("\\n") || \`(no skills in \${SKILLS_DIR}/)\`;
        },
`,
        ),
    },
    checks: [sizesShown, indexWithoutBodies],
  },
];
