/**
 * s09 · Memory
 *
 * Everything an agent learns in a conversation dies with it. Tell it "I want a JSDoc comment on
 * every export" today, and tomorrow's session has never heard of it. Memory fixes that with two
 * small ideas:
 *   1. a memory is a Markdown file in `.memory/` with YAML frontmatter (name, description, type),
 *      listed one line each in the index `.memory/MEMORY.md`; the model writes them with save_memory;
 *   2. the system prompt is no longer a constant: it is rebuilt from ordered sections before every
 *      model call, and one section is the memory. What is saved in round N is read in round N+1 —
 *      and in every later session on the same workspace.
 */
import { existsSync, renameSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import {
  agentLoop,
  BASE_HANDLERS,
  BASE_TOOLS,
  listFolderInside,
  readInside,
  safePath,
  writeInside,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import type { Agent, AgentEnv, MessageParam, Tool } from "../_shared/types.ts";

// #region memory
/** What kind of thing is remembered. The type tells the model how to use it later. */
export const MEMORY_TYPES = ["user", "feedback", "project", "reference"] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export interface Memory {
  name: string;
  description: string;
  type: MemoryType;
  content: string;
  /** File name inside the memory folder, e.g. `jsdoc-on-exports.md`. */
  file: string;
}

/** The folder the memories live in, and how the model is told about it. Here it is `.memory/` in
 *  the workspace, so the model can open the files with its own tools; a harness that keeps memory
 *  outside the workspace (a2, in its state folder) gets the full path, and no advice to read it. */
export interface MemoryFolder {
  dir: string;
  /** The folder as messages name it: relative to the workspace, or the full path outside it. */
  shown: string;
  /** Whether it is inside the workspace, where the model's file tools can read it. */
  readable: boolean;
}

export function memoryFolder(workspace: string, dir: string): MemoryFolder {
  const relative = path.relative(workspace, dir);
  const inside =
    relative !== "" && relative.split(path.sep)[0] !== ".." && !path.isAbsolute(relative);
  return { dir, shown: inside ? relative : dir, readable: inside };
}

export const INDEX_FILE = "MEMORY.md";
const oneLine = (value: unknown) =>
  String(value ?? "")
    .replace(/\s+/g, " ")
    .trim();
const slugify = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);

/** One line of the index: `- [name](file) — description`. Brackets, parentheses and backslashes
 *  in the name and description are escaped, so neither can close the link or open another: the
 *  only link on a line is the one to its own file, at the start. */
const escapeMarkdown = (text: string) => text.replace(/[\\[\]()]/g, "\\$&");
const indexLine = (name: string, file: string, description: string) =>
  `- [${escapeMarkdown(name)}](${file}) — ${escapeMarkdown(description)}`;
/** The file an index line links to: the link at the start of the line, not any text after it. */
const linkedFile = (line: string) => /^- \[(?:\\.|[^\\\]])*\]\(([^)]*)\)/.exec(line)?.[1];

/** The harness itself reads the memory folder into every system prompt and writes it for
 *  save_memory, and the model can write there too. So both go through s02's jail, rooted at the
 *  folder's parent (the workspace here, the state folder in a2): a MEMORY.md linked to
 *  /proc/self/environ, or a `.memory` linked elsewhere, is refused, never read or written. */
function jailed(dir: string) {
  const root = path.dirname(dir);
  const rel = (file: string) => path.join(path.basename(dir), file);
  return {
    exists: (file: string) => existsSync(safePath(root, rel(file))),
    read: (file: string) => readInside(root, rel(file)),
    list: () => listFolderInside(root, rel(".")).map((entry) => entry.name),
    /** A new file under a temporary name, then renamed over the old one: a crash leaves one or
     *  the other, never half. (The rename can only move what the jail just wrote.) */
    replace(file: string, text: string) {
      const tmp = `.${file}.${process.pid}.tmp`;
      writeInside(root, rel(tmp), text);
      renameSync(safePath(root, rel(tmp)), safePath(root, rel(file)));
    },
  };
}
// #endregion memory

// #region save
/** Writes `<slug>.md` in the memory folder and its line in MEMORY.md. Everything is checked
 *  before anything is written; the same name saved again updates the file and its index line in
 *  place. A slug keeps only letters and digits, so different names can share one ("Use tabs!",
 *  "use tabs?"): a file belongs to the name in its frontmatter, and another name that lands on it
 *  is refused. */
export function saveMemory(
  folder: MemoryFolder,
  input: Record<string, unknown>,
): { file: string; updated: boolean } {
  const { dir, shown } = folder;
  const name = oneLine(input.name);
  const description = oneLine(input.description);
  const type = input.type as MemoryType;
  const content = String(input.content ?? "").trim();
  if (!MEMORY_TYPES.includes(type))
    throw new Error(`invalid type "${input.type}": use one of ${MEMORY_TYPES.join(", ")}`);
  if (!name || !slugify(name)) throw new Error("a memory needs a name with letters or digits");
  if (!description) throw new Error("a memory needs a one-line description");
  if (!content) throw new Error("a memory needs content");

  const file = `${slugify(name)}.md`;
  if (file.toLowerCase() === INDEX_FILE.toLowerCase()) {
    throw new Error(`"${name}" would overwrite the index: choose another name`);
  }
  const memory = jailed(dir);
  const updated = memory.exists(file);
  if (updated) {
    const owner = ownerOf(folder, file);
    if (oneLine(owner) !== name) {
      throw new Error(
        `the file ${shown}/${file} already holds the memory "${owner}". Save under that ` +
          "exact name to update it, or choose a name that differs in its letters or digits (the first 60 count)",
      );
    }
  }
  memory.replace(file, `---\n${stringifyYaml({ name, description, type })}---\n\n${content}\n`);

  const entry = indexLine(name, file, description);
  const lines = memory.exists(INDEX_FILE)
    ? memory
        .read(INDEX_FILE)
        .split("\n")
        .filter((l) => l.trim())
    : [];
  const at = lines.findIndex((l) => linkedFile(l) === file);
  if (at >= 0)
    lines[at] = entry; // one line per memory, never a duplicate
  else lines.push(entry);
  memory.replace(INDEX_FILE, `${lines.join("\n")}\n`);
  return { file, updated };
}

/** The name in a memory file's frontmatter; a file that is not a valid memory is not overwritten. */
function ownerOf(folder: MemoryFolder, file: string): string {
  try {
    return parseMemory(jailed(folder.dir).read(file), file).name;
  } catch (err) {
    const why = (err as Error).message.split("\n")[0];
    throw new Error(
      `${folder.shown}/${file} exists but is not a valid memory (${why}): ` +
        "choose another name, or ask the user to fix or delete that file",
    );
  }
}
// #endregion save

// #region load
/** Reads every memory file, through the jail. A file that is not a valid memory (or is a link) is
 *  skipped, with the reason. */
export function loadMemories(dir: string): {
  index: string;
  memories: Memory[];
  skipped: string[];
} {
  const memory = jailed(dir);
  const skipped: string[] = [];
  const memories: Memory[] = [];
  const attempt = <T>(what: string, read: () => T): T | undefined => {
    try {
      return read();
    } catch (err) {
      skipped.push(`${what}: ${(err as Error).message.split("\n")[0]}`);
    }
  };
  const files = attempt("", () => memory.list()) ?? [];
  const index = files.includes(INDEX_FILE)
    ? (attempt(INDEX_FILE, () => memory.read(INDEX_FILE).trim()) ?? "")
    : "";
  for (const file of files.filter((f) => f.endsWith(".md") && f !== INDEX_FILE).sort()) {
    const found = attempt(file, () => parseMemory(memory.read(file), file));
    if (found) memories.push(found);
  }
  return { index, memories, skipped };
}

function parseMemory(text: string, file: string): Memory {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error("no frontmatter (the file must start with a --- block)");
  const meta = (parseYaml(match[1]) ?? {}) as Record<string, unknown>;
  if (typeof meta.name !== "string" || !meta.name.trim())
    throw new Error("frontmatter has no name");
  if (typeof meta.description !== "string" || !meta.description.trim())
    throw new Error("frontmatter has no description");
  if (!MEMORY_TYPES.includes(meta.type as MemoryType))
    throw new Error(`unknown type "${meta.type}"`);
  return {
    name: meta.name,
    description: meta.description,
    type: meta.type as MemoryType,
    content: match[2].trim(),
    file,
  };
}
// #endregion load

// #region prompt
export interface PromptSection {
  title: string;
  body: string;
}

/** The system prompt is a list of sections, joined in order; empty ones are left out. */
export function buildSystemPrompt(sections: PromptSection[]): string {
  return sections
    .filter((s) => s.body.trim())
    .map((s) => `# ${s.title}\n\n${s.body.trim()}`)
    .join("\n\n");
}

const IDENTITY = `You are a coding agent working in a scratch workspace. Act, don't explain what you would
do. When the task is done, say so briefly.`;

const RULES = `Use your tools to inspect and change files: read before you edit, prefer edit over
rewriting whole files. Paths are relative to the workspace.
When the user tells you something that should still hold in a later session — who they are, how
they want you to work, a fact about the project, where to find something — save it with
save_memory. Do not save what the code or git history already says, or what only matters today.
Follow the memories below: they were saved in earlier turns and sessions.`;

const MAX_MEMORY_CHARS = 12_000; // memory must not crowd out the conversation

function memoryBody(folder: MemoryFolder, index: string, memories: Memory[]): string {
  if (memories.length === 0) return "(no memories yet)";
  const { shown } = folder;
  const body = [
    `Index (${shown}/${INDEX_FILE}):\n${index || "(missing: save_memory rebuilds it)"}`,
    ...memories.map((m) => `## ${m.name} (${m.type}, ${shown}/${m.file})\n${m.content}`),
  ].join("\n\n");
  const more = folder.readable
    ? `more in ${shown}/: read the files`
    : `the rest did not fit; it is in ${shown}/, outside the workspace`;
  return body.length > MAX_MEMORY_CHARS ? `${body.slice(0, MAX_MEMORY_CHARS)}\n… (${more})` : body;
}

/** Most stable first, most changeable last: identity and rules never change, memory changes
 *  now and then, the environment (today's date) every day. A stable beginning is also what a
 *  prompt cache can reuse. */
export function systemSections(
  env: AgentEnv,
  folder: MemoryFolder,
  index: string,
  memories: Memory[],
): PromptSection[] {
  return [
    { title: "Identity", body: IDENTITY },
    { title: "Tools and rules", body: RULES },
    { title: "Memory", body: memoryBody(folder, index, memories) },
    {
      title: "Environment",
      body: `Date: ${new Date().toISOString().slice(0, 10)}\nWorkspace: ${env.workspace}\nPlatform: ${process.platform}`,
    },
  ];
}
// #endregion prompt

// #region tools
export const MEMORY_TOOLS: Tool[] = [
  {
    name: "save_memory",
    description:
      "Remember something for later turns and sessions. type: user (who the user is, their " +
      "preferences), feedback (how they want you to work), project (facts about the work not in the code), " +
      "reference (where to find things). Saving an existing name updates it.",
    input_schema: {
      type: "object",
      properties: {
        name: { type: "string", description: "A short title; it also names the file" },
        description: { type: "string", description: "One line: what this memory is about" },
        type: { type: "string", enum: [...MEMORY_TYPES] },
        content: { type: "string", description: "The memory itself, in Markdown" },
      },
      required: ["name", "description", "type", "content"],
    },
  },
];
export const TOOLS: Tool[] = [...BASE_TOOLS, ...MEMORY_TOOLS];

export function memoryHandlers(folder: MemoryFolder): Record<string, ToolHandler> {
  return {
    save_memory(input) {
      const { file, updated } = saveMemory(folder, input);
      const { shown } = folder;
      return `${updated ? "Updated" : "Saved"} memory ${shown}/${file} and its line in ${shown}/${INDEX_FILE}`;
    },
  };
}
// #endregion tools

// #region agent
export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  const memory = memoryFolder(env.workspace, path.join(env.workspace, ".memory"));
  const handlers = { ...BASE_HANDLERS, ...memoryHandlers(memory) };
  const noted = new Set<string>(); // say each thing once per session, not before every call
  const noteOnce = (text: string) => {
    if (!noted.has(text)) env.io.note(text);
    noted.add(text);
  };

  // Read from disk every time: the files are the memory, not a copy we loaded at start.
  const systemPrompt = () => {
    const { index, memories, skipped } = loadMemories(memory.dir);
    for (const problem of skipped) noteOnce(`memory file skipped: ${memory.shown}/${problem}`);
    noteOnce(
      `memory in the system prompt: ${memories.map((m) => m.name).join(", ") || "(none yet)"}`,
    );
    return buildSystemPrompt(systemSections(env, memory, index, memories));
  };

  return {
    messages,
    commands: {
      "/memory": {
        help: "show the memory index",
        run: () => loadMemories(memory.dir).index || "(no memories yet)",
      },
    },
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      // s02's loop, with the system prompt rebuilt for every request.
      await agentLoop(env, messages, { system: systemPrompt, tools: TOOLS, handlers });
    },
  };
}
// #endregion agent
