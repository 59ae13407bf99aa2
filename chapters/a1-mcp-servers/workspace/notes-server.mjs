// A small, real MCP server, written with the official SDK: a notes store with three tools.
// The harness starts it (see .mcp.json) and talks to it over stdin/stdout; it knows nothing about
// the model. The notes live in a JSON file in the workspace, the one folder the sandbox lets it
// write. Edit it, add a tool, and the next session offers that tool to the model.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const FILE = process.env.NOTES_FILE || "notes.json";

const load = () => (existsSync(FILE) ? JSON.parse(readFileSync(FILE, "utf8")) : {});
const store = (notes) => {
  // Write a copy, then rename: a crash never leaves half a file.
  writeFileSync(`${FILE}.tmp`, `${JSON.stringify(notes, null, 2)}\n`);
  renameSync(`${FILE}.tmp`, FILE);
};
const reply = (text, isError = false) => ({ content: [{ type: "text", text }], isError });

const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "save_note",
  {
    description: "Save a short note under a name (a note of the same name is replaced).",
    inputSchema: { name: z.string().min(1).max(60), text: z.string().max(2000) },
  },
  ({ name, text }) => {
    store({ ...load(), [name]: text });
    return reply(`saved "${name}"`);
  },
);

server.registerTool(
  "list_notes",
  { description: "List every note, one per line: name: text." },
  () => {
    const lines = Object.entries(load()).map(([name, text]) => `${name}: ${text}`);
    return reply(lines.join("\n") || "(no notes)");
  },
);

server.registerTool(
  "delete_note",
  { description: "Delete the note with this name.", inputSchema: { name: z.string() } },
  ({ name }) => {
    const { [name]: gone, ...rest } = load();
    if (gone === undefined) return reply(`no note named "${name}"`, true);
    store(rest);
    return reply(`deleted "${name}"`);
  },
);

await server.connect(new StdioServerTransport());
