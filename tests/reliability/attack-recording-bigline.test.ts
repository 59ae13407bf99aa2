// Attack (independent tester): one enormous line. RecordingReader.push used to join the text it
// held back with every new chunk and search all of it for "\n" again, so a line of n bytes read in
// chunks cost O(n²) (24 MB as one line: 3.5 s, against 0.06 s in many lines). Now only the new
// chunk is searched. How long it takes is a figure for `npm run bench` ("read a 24 MB recording");
// here: a line far longer than a chunk, and lines cut at every place a chunk can cut them, read
// back exactly.
import { describe, expect, it } from "vitest";
import { RecordingReader } from "../../site/lib/recording.ts";
import { recordingHeader, toolResultLine } from "../support/recordings.ts";

const header = recordingHeader();
const result = toolResultLine;

function readInChunks(text: string, size: number) {
  const reader = new RecordingReader();
  for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
  return reader.finish();
}

describe("attack: a recording that is one enormous line", () => {
  it("a line of 4 MB read in 64 KiB chunks comes back whole", () => {
    const output = "x".repeat(4 * 1024 * 1024 - 7) + "\u00e9\u2028end";
    const { trace } = readInChunks(`${header}\n${result(output)}\n`, 65_536);
    expect(trace.steps).toHaveLength(1);
    expect(trace.steps[0]).toMatchObject({ kind: "tool_result", output });
  });

  it("lines cut anywhere by a chunk read the same as the file read whole", () => {
    const outputs = ["a", "", "bb\\n", "ccc", "d".repeat(40)];
    const text = `${header}\n${outputs.map(result).join("\n")}\n`;
    const whole = readInChunks(text, text.length).trace.steps;
    expect(whole.map((s) => (s.kind === "tool_result" ? s.output : ""))).toEqual(outputs);
    for (const size of [1, 2, 3, 7, 64])
      expect(readInChunks(text, size).trace.steps).toEqual(whole);
  });
});
