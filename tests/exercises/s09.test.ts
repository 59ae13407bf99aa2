// s09's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s09", {
  s09: {
    "builds the prompt once per prompt, not before every call": {
      agent: swap("system: systemPrompt,", "system: systemPrompt(),"),
    },
    "puts the memory after the environment": {
      prompt: (region) =>
        swap(
          "Platform: ${process.platform}`,\n    },\n  ];",
          "Platform: ${process.platform}`,\n    },\n    MEMORY,\n  ];",
        )(region)
          .replace('    { title: "Memory", body: memoryBody(folder, index, memories) },\n', "")
          .replace(
            "  return [\n",
            '  const MEMORY = { title: "Memory", body: memoryBody(folder, index, memories) };\n  return [\n',
          ),
    },
    "keeps the empty sections": {
      prompt: swap("    .filter((s) => s.body.trim())\n", ""),
    },
    "trims only the end of a body (a body that starts with a newline keeps it)": {
      prompt: swap("${s.body.trim()}`)", "${s.body.trimEnd()}`)"),
    },
    "joins the sections without a blank line": {
      prompt: swap('    .join("\\n\\n");', '    .join("\\n");'),
    },
    "reads the memory folder once, when the agent is made": {
      agent: swap(
        "  const systemPrompt = () => {\n    const { index, memories, skipped } = loadMemories(memory.dir);",
        "  const loaded = loadMemories(memory.dir);\n  const systemPrompt = () => {\n    const { index, memories, skipped } = loaded;",
      ),
    },
    "the environment without today's date": {
      prompt: swap("Date: ${new Date().toISOString().slice(0, 10)}\\n", ""),
    },
    "the environment with a timestamp for a date": {
      prompt: swap(
        "Date: ${new Date().toISOString().slice(0, 10)}",
        "Date: ${new Date().toISOString()}",
      ),
    },
    "the environment without the platform": {
      prompt: swap("\\nPlatform: ${process.platform}", ""),
    },
    "notes a skipped memory file before every call": {
      agent: swap(
        "for (const problem of skipped) noteOnce(",
        "for (const problem of skipped) env.io.note(",
      ),
    },
    "never says a memory file was skipped": {
      agent: swap(
        "    for (const problem of skipped) noteOnce(`memory file skipped: ${memory.shown}/${problem}`);\n",
        "",
      ),
    },
    "never says which memories are in the prompt": {
      agent: swap(
        'memories.map((m) => m.name).join(", ") || "(none yet)"',
        'memories.length || "(none yet)"',
      ),
    },
  },
  "s09.2": {
    "still puts the bodies in the prompt": {
      prompt: swap(
        "`Files (read one to see what it says):",
        "...memories.map((m) => m.content),\n    `Files (read one to see what it says):",
      ),
    },
    "lists the names but not their files": {
      prompt: swap(": ${shown}/${m.file}`", "`"),
    },
  },
});
