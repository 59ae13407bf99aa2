// a5's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("a5", {
  a5: {
    "drops a response's tool calls": {
      history: swap('if (answer?.role === "assistant")', 'if (answer?.role === "user")'),
    },
    "drops the prompts": {
      history: swap(
        'if (step.kind === "user") messages.push({ role: "user", content: step.text });',
        'if (step.kind === "user") continue;',
      ),
    },
    "answers the finished calls too": {
      history: swap('if (step.kind === "tool_result") waiting.delete(step.id);', ""),
    },
    "keeps the empty answer a kill left before its calls": {
      history: swap(
        "return normalizeMessages(messages.filter((m) => m.content.length > 0));",
        "return normalizeMessages(messages);",
      ),
    },
    "the closing note is written as the harness's, not the lead's": {
      history: swap(
        '      kind: "note",\n      agent: "lead",',
        '      kind: "note",\n      agent: "harness",',
      ),
    },
    "answers an unfinished call as a success": {
      history: swap(
        "output: NOT_FINISHED,\n      is_error: true,",
        "output: NOT_FINISHED,\n      is_error: false,",
      ),
    },
    "takes every agent's steps into the lead's history": {
      history: swap(
        'if (step.agent !== "lead") continue;\n    if (step.kind === "user")',
        'if (step.kind === "user")',
      ),
    },
    "replays the harness's notes as prompts": {
      history: swap(
        'if (step.kind === "user") messages.push',
        'if (step.kind === "user" || step.kind === "note") messages.push',
      ),
    },
    "leaves out s02's hygiene": {
      history: swap(
        "return normalizeMessages(messages.filter((m) => m.content.length > 0));",
        "return messages.filter((m) => m.content.length > 0);",
      ),
    },
    "closes only the last open call": {
      history: swap("...open.map((call): TraceEvent", "...open.slice(-1).map((call): TraceEvent"),
    },
    "closes another agent's calls too": {
      history: swap(
        'if (step.agent !== "lead") continue;\n    if (step.kind === "tool_call")',
        'if (step.kind === "tool_call")',
      ),
    },
    "counts a call answered when any result has its id": {
      history: swap(
        "const open = [...waiting.values()];",
        'const answered = new Set(steps.flatMap((s) => (s.kind === "tool_result" && s.agent === "lead" ? [s.id] : [])));\n  const open = [...waiting.values()].filter((c) => !answered.has(c.id));',
      ),
    },
    "adds no note": {
      history: swap(
        "if (!open.length) return [];",
        'if (!open.length) return [];\n  if (open.length) return open.map((call): TraceEvent => ({ kind: "tool_result", agent: "lead", id: call.id, name: call.name, output: NOT_FINISHED, is_error: true }));',
      ),
    },
    "counts every call in the log in its note": {
      history: swap(
        "resumed after a stop mid-turn: ${open.length}",
        'resumed after a stop mid-turn: ${steps.filter((s) => s.kind === "tool_call").length}',
      ),
    },
  },
  "a5.1": {
    "continues the session that started first": {
      open: swap("a.at.localeCompare(b.at)", "b.at.localeCompare(a.at)"),
    },
    "continues the session written last": {
      open: swap(
        "at: readSession(stateDir, id).header.started",
        "at: lstatSync(sessionFile(stateDir, id)).mtimeMs.toFixed(6)",
      ),
    },
    "continues the session whose name the folder lists last": {
      open: swap(
        "    .sort((a, b) => a.at.localeCompare(b.at));",
        '    .map((session) => ({ ...session, at: "" }));',
      ),
    },
    "opens a new session when there is none to continue": {
      open: swap(
        'if (!latest) throw new SessionError("there is no session to continue in this workspace");\n  return latest.id;',
        "return latest?.id as string;",
      ),
    },
  },
});
