/**
 * s04 · Skills on demand
 *
 * Teaching an agent a procedure — how this project writes tests, how it keeps its changelog —
 * by pasting it into the system prompt works for one procedure, not for twenty: every request
 * would carry every manual, needed or not. Skills split the two halves. The system prompt holds
 * only each skill's name and one-line description; the model calls `load_skill` to fetch a body
 * when the task needs it. A skill is a plain file, `skills/<name>/SKILL.md`, that anyone can edit.
 * Tools: the five base tools of s02 plus `load_skill`.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import {
  agentLoop,
  BASE_HANDLERS,
  BASE_TOOLS,
  readInside,
  listFolderInside,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import type { Agent, AgentEnv, MessageParam, Tool } from "../_shared/types.ts";

const BASE_SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files: read before you edit, prefer edit over rewriting whole files. Paths are relative to
the workspace. When the task is done, say so briefly.`;

// #region skills
export const SKILLS_DIR = "skills";

export interface Skill {
  name: string;
  description: string;
  /** Workspace-relative path of its SKILL.md, read again when the skill is loaded. */
  file: string;
}
/** What a scan found: the usable skills, and the folders that could not be used, with why. */
export interface SkillIndex {
  skills: Skill[];
  problems: { folder: string; reason: string }[];
}

/** Splits a SKILL.md into its frontmatter (name, description) and body. Throws a reason a
 *  person can act on: a malformed skill is reported, never fatal. */
export function parseSkill(
  text: string,
  folder: string,
): { name: string; description: string; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match)
    throw new Error(
      "no frontmatter: the file must start with a --- block holding name and description",
    );
  let meta: unknown;
  try {
    meta = parseYaml(match[1]);
  } catch (err) {
    throw new Error(`the frontmatter is not valid YAML (${(err as Error).message.split("\n")[0]})`);
  }
  const { name = folder, description } = (meta ?? {}) as Record<string, unknown>;
  if (typeof description !== "string" || !description.trim())
    throw new Error("the frontmatter has no description");
  // The folder is the skill's address; a different name would list a skill load_skill cannot find.
  if (name !== folder)
    throw new Error(`name "${String(name)}" does not match its folder "${folder}"`);
  return { name, description: description.trim(), body: match[2].trim() };
}

/** Reads every skills/<name>/SKILL.md in the workspace. Only name and description are kept. */
export function scanSkills(root: string): SkillIndex {
  const index: SkillIndex = { skills: [], problems: [] };
  let folders: string[];
  try {
    // Listed through the jail: a `skills` link out of the workspace is not even listed, however
    // it is swapped while we look.
    folders = listFolderInside(root, SKILLS_DIR)
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch (err) {
    index.problems.push({ folder: SKILLS_DIR, reason: (err as Error).message });
    return index;
  }
  for (const folder of folders) {
    const file = `${SKILLS_DIR}/${folder}/SKILL.md`;
    try {
      // Read race-free through the jail: a skill folder that is (or links to) anything outside
      // the workspace is refused.
      if (!existsSync(path.join(root, file))) throw new Error("the folder has no SKILL.md");
      const { name, description } = parseSkill(readInside(root, file), folder);
      index.skills.push({ name, description, file });
    } catch (err) {
      index.problems.push({ folder, reason: (err as Error).message });
    }
  }
  return index;
}
// #endregion skills

// #region prompt
/** Names and descriptions only: the index costs one line per skill, however long the bodies are. */
export function systemPrompt(index: SkillIndex): string {
  if (index.skills.length === 0) return `${BASE_SYSTEM}\n\nNo skills are installed.`;
  const lines = index.skills.map((s) => `- ${s.name}: ${s.description}`);
  return `${BASE_SYSTEM}\n\nSkills (call load_skill with the name before doing work that matches one):\n${lines.join("\n")}`;
}
// #endregion prompt

// #region load
export const LOAD_SKILL_TOOL: Tool = {
  name: "load_skill",
  description: "Load the full instructions of a skill listed in the system prompt, by name.",
  input_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};
export const TOOLS: Tool[] = [...BASE_TOOLS, LOAD_SKILL_TOOL];

/** The body is read from disk only now, when the model asks for it. */
export function loadSkill(root: string, index: SkillIndex, name: unknown): string {
  const skill = index.skills.find((s) => s.name === name);
  if (!skill) {
    const broken = index.problems.find((p) => p.folder === name);
    if (broken) throw new Error(`skill "${broken.folder}" cannot be loaded: ${broken.reason}`);
    const available = index.skills.map((s) => s.name).join(", ") || "(none installed)";
    throw new Error(`unknown skill "${String(name)}". Available skills: ${available}`);
  }
  const { body } = parseSkill(readInside(root, skill.file), skill.name);
  return `<skill name="${skill.name}">\n${body}\n</skill>`;
}
// #endregion load

// #region handlers
/** A turn's handler map: the base tools, and load_skill bound to the index this turn's prompt
 *  was built from. The loop that runs them is s02's. */
export const skillHandlers = (index: SkillIndex): Record<string, ToolHandler> => ({
  ...BASE_HANDLERS,
  load_skill: ({ name }, { root }) => loadSkill(root, index, name),
});
// #endregion handlers

// #region agent
export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  /** Rescanned at the start of every user turn, not once at start-up: a skill you add or edit
   *  between two prompts is picked up without a restart, while within one turn the system prompt
   *  stays the same, so the model never sees its list of skills change under it. */
  const scan = (): SkillIndex => {
    const index = scanSkills(env.workspace);
    for (const p of index.problems)
      env.io.note(`skill skipped: ${SKILLS_DIR}/${p.folder}/SKILL.md: ${p.reason}`);
    env.io.note(
      `skills in the system prompt: ${index.skills.map((s) => s.name).join(", ") || "none"}`,
    );
    return index;
  };
  return {
    messages,
    commands: {
      "/skills": {
        help: "list the skills found in the workspace",
        run: () => {
          const { skills, problems } = scanSkills(env.workspace);
          const lines = [
            ...skills.map((s) => `${s.name}: ${s.description}`),
            ...problems.map((p) => `(skipped) ${p.folder}: ${p.reason}`),
          ];
          return lines.join("\n") || `(no skills in ${SKILLS_DIR}/)`;
        },
      },
    },
    async send(prompt) {
      const index = scan();
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, {
        system: systemPrompt(index),
        tools: TOOLS,
        handlers: skillHandlers(index),
      });
    },
  };
}
// #endregion agent
