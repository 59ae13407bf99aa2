// Attack (independent tester): one enormous line. RecordingReader.push joins the text it holds
// back (`#rest`) with every new chunk and searches the whole of it for "\n" again, so a line of
// n bytes read in fixed chunks costs O(n²): 4 MB 0.14 s, 8 MB 0.4 s, 16 MB 1.7 s, 32 MB ~7 s
// on this machine — in the worker the tab stays responsive, but a hostile 100 MB one-line file
// keeps the page "reading" for minutes. The same bytes in many lines read in linear time.
import { describe, expect, it } from "vitest";
import { TRACE_VERSION } from "../../chapters/_runner/trace.ts";
import { RECORDING_FORMAT, RecordingReader } from "../../site/lib/recording.ts";

const header = JSON.stringify({
  format: RECORDING_FORMAT,
  version: TRACE_VERSION,
  chapter: "s01",
  name: "s01-agent-loop",
  title: "t",
  model: "m",
  started: "2026-01-01T00:00:00.000Z",
});
const result = (output: string) =>
  JSON.stringify({
    kind: "tool_result",
    agent: "lead",
    id: "1",
    name: "bash",
    output,
    is_error: false,
  });

/** ms to read `text` in 64 KiB chunks, as the browser's file stream gives it. */
function timeToRead(text: string): number {
  const reader = new RecordingReader();
  const start = performance.now();
  for (let i = 0; i < text.length; i += 65_536) reader.push(text.slice(i, i + 65_536));
  reader.finish();
  return performance.now() - start;
}

describe("attack: a recording that is one enormous line", () => {
  it("reads in about the time the same bytes take in many lines", () => {
    const size = 24 * 1024 * 1024;
    const oneLine = `${header}\n${result("x".repeat(size))}\n`;
    const manyLines = `${header}\n${Array.from({ length: 384 }, () => result("x".repeat(size / 384))).join("\n")}\n`;
    const many = timeToRead(manyLines);
    const one = timeToRead(oneLine);
    // Seen: one line 3.5 s, many lines 0.06 s (about 60×), for 24 MB.
    expect(one, `one line ${Math.round(one)} ms, many lines ${Math.round(many)} ms`).toBeLessThan(
      Math.max(5 * many, 1000),
    );
  }, 120_000);
});
