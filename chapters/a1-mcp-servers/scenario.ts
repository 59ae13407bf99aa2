// The offline demo for appendix A. The workspace's .mcp.json names one server, notes-server.mjs
// (a real MCP server, started in the sandbox). The scripted model lists the notes, saves one
// (allowed by the rule mcp__notes__*), tries to delete one (denied by the rule
// mcp__notes__delete_note: deny beats allow) and reads the file the server keeps.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario } from "../_shared/types.ts";

export default {
  summary:
    "a real MCP server's tools, offered as mcp__notes__*, run through s07's gate: a save is allowed, a delete is denied",
  prompts: ["Note how to run the tests in the notes server, and remove the old standup note."],
  script: {
    lead: [
      use("mcp__notes__list_notes", {}, "Let me see what the notes server holds."),
      use(
        "mcp__notes__save_note",
        { name: "tests", text: "Run the tests with: node --test" },
        "Saving the test command.",
      ),
      use("mcp__notes__delete_note", { name: "standup" }, "Now the old standup note."),
      use(
        "read",
        { path: "notes.json" },
        "Deleting notes is denied here. Let me look at the file the server keeps its notes in.",
      ),
      ({ lastResult }) => {
        const names = Object.keys(JSON.parse(lastResult()) as object);
        return say(
          `The notes server now holds ${names.length} notes (${names.join(", ")}). ` +
            'I could not remove "standup": a rule denies mcp__notes__delete_note, so that is yours to do.',
        );
      },
    ],
  },
  answers: ["yes"], // start the servers of this .mcp.json
} satisfies Scenario;
