// s09's exercises: rebuild the system prompt from its sections, before every call; extend it (only
// the index in the prompt, the bodies read on demand). The behaviours are the curriculum's for
// s09, and tests/chapters/s09-memory-system.test.ts runs the same ones against the chapter's code.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { say, use, useAll } from "../../_shared/scripted.ts";
import type * as S09 from "../agent.ts";
import { expectThat, type Check, type CheckEnv, type Exercise } from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S09;

const TABS = {
  name: "Tabs please",
  description: "The user indents with tabs",
  type: "user",
  content: "Indent code with tabs, never spaces.",
};
const INDEX_LINE = "- [Tabs please](tabs-please.md) — The user indents with tabs";
const systemOf = (env: CheckEnv, i: number) => String(env.requests[i]?.body.system ?? "");
const HEADINGS = ["# Identity", "# Tools and rules", "# Memory", "# Environment"];

export const sectionsInOrder: Check<M> = {
  id: "sections-in-order",
  async run(module, kit) {
    const env = kit.env([say("hi")]);
    const days = [new Date().toISOString().slice(0, 10)];
    await module.createAgent(env).send("hello");
    days.push(new Date().toISOString().slice(0, 10)); // the call may cross midnight (UTC)
    const system = systemOf(env, 0);
    const at = HEADINGS.map((h) => system.indexOf(h));
    const missing = HEADINGS.filter((_, i) => at[i] < 0);
    expectThat(missing.length === 0, "section-missing", { sections: missing.join(", ") });
    const found = HEADINGS.slice().sort((a, b) => system.indexOf(a) - system.indexOf(b));
    expectThat(found.join() === HEADINGS.join(), "sections-out-of-order", {
      got: found.join(", "),
    });
    expectThat(system.includes(`Workspace: ${env.workspace}`), "environment-missing", {});
    expectThat(
      // The line says the day and nothing more (YYYY-MM-DD, not a timestamp).
      days.some((day) => system.split("\n").includes(`Date: ${day}`)) &&
        system.includes(`Platform: ${process.platform}`),
      "environment-incomplete",
      { date: days[1], platform: process.platform },
    );
  },
};

/** A section as a caller might hand it over: a title, and a body with or without text, padded
 *  with spaces and newlines on either side, one line or several. */
const sectionArb = fc.record({
  title: fc.constantFrom("Identity", "Rules", "Memory", "Environment", "A", "Notes 2"),
  body: fc.oneof(
    fc.constantFrom("", " ", "\n", " \n\t "),
    fc
      .tuple(
        fc.constantFrom("", " ", "\n", "\n\n"),
        fc.constantFrom("one", "two lines\nof text", "- a\n- b", "  indented inside"),
        fc.constantFrom("", " ", "\n", " \n"),
      )
      .map(([before, text, after]) => before + text + after),
  ),
});

export const emptySectionsDropped: Check<M> = {
  id: "empty-sections-dropped",
  run(module) {
    return forAll(fc.array(sectionArb, { maxLength: 5 }), (sections) => {
      const got = module.buildSystemPrompt(sections.map((s) => ({ ...s })));
      const expected = sections
        .filter((s) => s.body.trim())
        .map((s) => `# ${s.title}\n\n${s.body.trim()}`)
        .join("\n\n");
      expectThat(got === expected, "sections-joined-wrong", {
        sections: JSON.stringify(sections),
        got: JSON.stringify(got),
        expected: JSON.stringify(expected),
      });
    });
  },
};

export const savedMemoryNextRound: Check<M> = {
  id: "saved-memory-next-round",
  async run(module, kit) {
    const env = kit.env([use("save_memory", TABS), say("saved")]);
    await module.createAgent(env).send("I use tabs");
    expectThat(!systemOf(env, 0).includes(TABS.content), "memory-too-early", {});
    const next = systemOf(env, 1);
    expectThat(next.includes(TABS.content) && next.includes(INDEX_LINE), "memory-not-in-next", {
      round: 2,
    });
    // The rule on generated sessions: rounds that save some memories (or none), over one or two
    // turns; every request's prompt holds exactly the memories saved before it.
    await forAll(
      fc.array(fc.array(fc.nat(5), { maxLength: 2 }), { minLength: 1, maxLength: 5 }),
      async (rounds) => {
        let n = 0;
        const saves = rounds.map((r) => r.map(() => ++n));
        const memory = (i: number) => ({
          name: `Rule ${i}`,
          description: `rule number ${i}`,
          type: "feedback",
          content: `Always do thing-${i}-x.`,
        });
        const turn = saves.map((ids) =>
          ids.length
            ? useAll(ids.map((i) => ({ name: "save_memory", input: memory(i) })))
            : use("read", { path: "missing.txt" }),
        );
        const env = kit.env([...turn, say("done"), say("again")]);
        const agent = module.createAgent(env);
        await agent.send("remember");
        await agent.send("and now?");
        const savedBefore = (request: number) => saves.slice(0, request).flat();
        env.requests.forEach((r, request) => {
          const system = String(r.body.system ?? "");
          const before = new Set(savedBefore(request));
          for (let i = 1; i <= n; i++) {
            const there = system.includes(memory(i).content);
            if (there === before.has(i)) continue;
            const story = saves
              .map(
                (ids, k) =>
                  `${k + 1}: ${ids.length ? `save ${ids.map((x) => `"Rule ${x}"`).join(", ")}` : "work"}`,
              )
              .join(" · ");
            expectThat(false, there ? "rule-memory-too-early" : "rule-memory-missing", {
              story,
              request: request + 1,
              memory: `Rule ${i}`,
            });
          }
        });
      },
      { runs: 15 },
    );
  },
};

export const newSessionLoads: Check<M> = {
  id: "new-session-loads",
  async run(module, kit) {
    const workspace = kit.workspace();
    await module
      .createAgent(kit.env([use("save_memory", TABS), say("saved")], { workspace }))
      .send("I use tabs");
    // A file in the memory folder that is no memory: skipped, and the person told once.
    writeFileSync(path.join(workspace, ".memory", "broken.md"), "just text, no frontmatter\n");
    const next = kit.env([use("read", { path: "missing.txt" }), say("hello again")], {
      workspace,
    });
    await module.createAgent(next).send("hi");
    expectThat(systemOf(next, 0).includes(TABS.content), "memory-not-loaded", {});
    const notes = next.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
    const told = (what: string) => notes.filter((n) => n.includes(what)).length;
    expectThat(told("broken.md") === 1, "skipped-not-noted-once", {
      file: ".memory/broken.md",
      times: told("broken.md"),
    });
    expectThat(told(TABS.name) === 1, "loaded-not-noted-once", {
      memory: TABS.name,
      times: told(TABS.name),
    });
  },
};

export const indexOnly: Check<M> = {
  id: "index-only",
  async run(module, kit) {
    const env = kit.env([use("save_memory", TABS), say("saved")]);
    await module.createAgent(env).send("I use tabs");
    const next = systemOf(env, 1);
    expectThat(next.includes(INDEX_LINE), "index-missing", {});
    expectThat(!next.includes(TABS.content), "body-in-prompt", { body: TABS.content });
  },
};

export const bodiesOnRead: Check<M> = {
  id: "bodies-on-read",
  async run(module, kit) {
    const env = kit.env([
      use("save_memory", TABS),
      use("read", { path: ".memory/tabs-please.md" }),
      say("ok"),
    ]);
    await module.createAgent(env).send("I use tabs");
    expectThat(systemOf(env, 1).includes(".memory/tabs-please.md"), "body-path-missing", {
      path: ".memory/tabs-please.md",
    });
    expectThat(
      JSON.stringify(env.requests[2]?.body.messages).includes(TABS.content),
      "body-unread",
      {},
    );
  },
};

/** s09.2's answer: the memory section lists the memories and their files, not their bodies. */
const indexOnlySolution = (reference: string) =>
  reference
    .replace(
      "Follow the memories below: they were saved in earlier turns and sessions.",
      "Below is only the index of the memories saved in earlier turns and sessions: before you rely\n" +
        "on one, read its file with the read tool, and follow it.",
    )
    .replace(
      "    ...memories.map((m) => `## ${m.name} (${m.type}, ${shown}/${m.file})\\n${m.content}`),",
      '    `Files (read one to see what it says):\\n${memories.map((m) => `- ${m.name} (${m.type}): ${shown}/${m.file}`).join("\\n")}`,',
    );

export const exercises: Exercise<M>[] = [
  {
    id: "s09",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "buildSystemPrompt",
        contract: [
          "Receives the sections in order; returns the system prompt: each section as",
          '"# <title>", a blank line and its trimmed body; sections joined by a blank line;',
          "a section whose body is empty (or only spaces) left out.",
        ].join("\n"),
      },
      {
        name: "systemSections",
        contract: [
          "Returns the prompt's sections, the most stable first, the most changeable last:",
          'Identity (IDENTITY), "Tools and rules" (RULES), Memory (memoryBody(folder, index,',
          "memories)), Environment (Date: YYYY-MM-DD, Workspace: env.workspace, Platform).",
        ].join("\n"),
      },
      {
        name: "systemPrompt",
        contract: [
          "The loop calls it before EVERY model call, so a memory saved in round N is in round",
          "N+1's prompt. Read the memory folder afresh (loadMemories(memory.dir)), noteOnce each",
          'skipped file ("memory file skipped: …") and which memories are in the prompt, and return',
          "buildSystemPrompt(systemSections(env, memory, index, memories)).",
        ].join("\n"),
      },
    ],
    checks: [sectionsInOrder, emptySectionsDropped, savedMemoryNextRound, newSessionLoads],
  },
  {
    id: "s09.2",
    kind: "extend",
    file: "agent.ts",
    solution: { prompt: indexOnlySolution },
    checks: [indexOnly, bodiesOnRead, sectionsInOrder],
  },
];
