// Recordings made by hand for the tests (and the bench): the header line `--record` writes
// (chapters/_runner/recording.ts), with fields a test may change, and a tool result's line.
import { TRACE_VERSION, type RecordingHeader } from "../../chapters/_trace/contract.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { RECORDING_FORMAT } from "../../site/lib/recording.ts";
import { readFileSync } from "node:fs";
import path from "node:path";
import { apiError, endTurn, startFakeApi, streamed, type FakeApi } from "./fake-api.ts";
import { tempDir, waitFor } from "./helpers.ts";
import { runCliInTerminal } from "./terminal.ts";

/** A header line: s01, the scripted model, unless `fields` say otherwise (they may also carry
 *  what no header should, to test the reader). */
export const recordingHeader = (fields: Partial<RecordingHeader> | Record<string, unknown> = {}) =>
  JSON.stringify({
    format: RECORDING_FORMAT,
    version: TRACE_VERSION,
    chapter: "s01",
    name: "s01-agent-loop",
    title: "The agent loop",
    model: "scripted",
    started: "2026-01-01T00:00:00.000Z",
    ...fields,
  });

/** One `tool_result` step's line, of bash, with `output`. */
export const toolResultLine = (output: string) =>
  JSON.stringify({
    kind: "tool_result",
    agent: "lead",
    id: "1",
    name: "bash",
    output,
    is_error: false,
  });

/** A long team run of about `bytes` (the browser test and the bench open 50 MB): s13's steps
 *  again and again, each tool result padded to some 3 KB. Its text and its number of steps. */
export function longTeamRecording(bytes: number): { text: string; steps: number } {
  const s13 = readTrace("s13");
  if (!s13) throw new Error("site/traces has no s13 trace: run npm run traces first.");
  const lines = [recordingHeader({ chapter: s13.chapter, name: s13.name, title: s13.name })];
  let size = lines[0].length;
  for (let round = 0; size < bytes; round++)
    for (const step of s13.steps) {
      const padded =
        step.kind === "tool_result"
          ? { ...step, output: `${step.output}\n${`round ${round} `.repeat(300)}` }
          : step;
      const line = JSON.stringify(padded);
      lines.push(line);
      size += line.length + 1;
    }
  return { text: lines.join("\n") + "\n", steps: lines.length - 1 };
}

/** Runs s01 against the fake API with --record: a prompt whose call fails, then one whose answer
 *  is interrupted mid-stream. Returns the recording's path and the fake API, for the caller to close. */
export async function recordFailureAndInterrupt(): Promise<{ file: string; api: FakeApi }> {
  const api = await startFakeApi([
    apiError(529, "overloaded_error", "Overloaded"),
    // The answer's first words, then nothing: Ctrl-C stops it.
    streamed(endTurn("Half of an answer that never ends"), { pieces: 4, hangAfter: 3 }),
  ]);
  const file = path.join(tempDir(), "run.jsonl");
  const run = runCliInTerminal(["s01", "--workspace", tempDir(), "--record", file], {
    ANTHROPIC_API_KEY: "sk-test",
    ANTHROPIC_BASE_URL: api.url,
    MODEL_ID: "m",
  });
  await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("you ›")), "the prompt");
  run.type("first\r");
  await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("✗ ")), "the error");
  run.type("second\r");
  await run.waitForScreen(
    (s) => s.lines.some((l) => l.startsWith("assistant › Half")),
    "the answer's first words",
  );
  run.type("\x03");
  await run.waitForScreen((s) => s.lines.some((l) => l.startsWith("⏹ interrupted")), "Ctrl-C");
  await waitFor(() => readFileSync(file, "utf8").includes('"interrupted"'), "the step written");
  run.type("q\r");
  await run.exited;
  return { file, api };
}
