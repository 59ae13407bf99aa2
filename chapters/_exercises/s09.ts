// s09's exercises: rebuild the system prompt from its sections, before every call; extend it (only
// the index in the prompt, the bodies read on demand). The behaviours are the curriculum's for
// s09, and tests/chapters/s09-memory-system.test.ts runs the same ones against the chapter's code.
import { say, use } from "../_shared/scripted.ts";
import type * as S09 from "../s09-memory-system/agent.ts";
import { expectThat, type Check, type CheckEnv, type Exercise } from "./kit.ts";

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
    await module.createAgent(env).send("hello");
    const system = systemOf(env, 0);
    const at = HEADINGS.map((h) => system.indexOf(h));
    const missing = HEADINGS.filter((_, i) => at[i] < 0);
    expectThat(missing.length === 0, "section-missing", { sections: missing.join(", ") });
    const found = HEADINGS.slice().sort((a, b) => system.indexOf(a) - system.indexOf(b));
    expectThat(found.join() === HEADINGS.join(), "sections-out-of-order", {
      got: found.join(", "),
    });
    expectThat(system.includes(`Workspace: ${env.workspace}`), "environment-missing", {});
  },
};

export const emptySectionsDropped: Check<M> = {
  id: "empty-sections-dropped",
  run(module) {
    const got = module.buildSystemPrompt([
      { title: "A", body: "one\n" },
      { title: "Empty", body: " " },
      { title: "B", body: "two" },
    ]);
    expectThat(got === "# A\n\none\n\n# B\n\ntwo", "sections-joined-wrong", {
      got: JSON.stringify(got),
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
  },
};

export const newSessionLoads: Check<M> = {
  id: "new-session-loads",
  async run(module, kit) {
    const workspace = kit.workspace();
    await module
      .createAgent(kit.env([use("save_memory", TABS), say("saved")], { workspace }))
      .send("I use tabs");
    const next = kit.env([say("hello again")], { workspace });
    await module.createAgent(next).send("hi");
    expectThat(systemOf(next, 0).includes(TABS.content), "memory-not-loaded", {});
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
