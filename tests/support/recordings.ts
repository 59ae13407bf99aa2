// Recordings made by hand for the tests (and the bench): the header line `--record` writes
// (chapters/_runner/recording.ts), with fields a test may change, and a tool result's line.
import type { RecordingHeader } from "../../chapters/_runner/recording.ts";
import { TRACE_VERSION } from "../../chapters/_runner/trace.ts";
import { RECORDING_FORMAT } from "../../site/lib/recording.ts";

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
