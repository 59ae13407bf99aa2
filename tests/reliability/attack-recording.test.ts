// Attack (independent tester): reading a recording (site/lib/recording.ts).
import { describe, expect, it } from "vitest";
import { recordingHeader } from "../support/recordings.ts";
import { readRecording, RecordingError } from "../../site/lib/recording.ts";
import { stateTimeline } from "../../site/lib/run-state.ts";
import { sequenceFromTrace } from "../../site/lib/trace-sequence.ts";

const header = recordingHeader({ chapter: "s13", name: "s13-agent-teams" });
const file = (...lines: string[]) => [header, ...lines].join("\n") + "\n";

describe("attack: a `__proto__` key in a tool's input", () => {
  // JSON.parse makes "__proto__" an own key; inOrderOf copies it with `out[key] = …`, which is
  // the prototype setter: the input the player shows (JSON.stringify: "{}") is not the input
  // the panels and the diagram read (through the prototype).
  const line = JSON.stringify({
    kind: "tool_call",
    agent: "lead",
    id: "t1",
    name: "spawn",
    input: JSON.parse('{"__proto__": {"name": "mallory"}}'),
  }).replace('"input":{}', '"input":{"__proto__":{"name":"mallory"}}');

  it("keeps it a key: the step's input has no prototype of the recording's making", () => {
    expect(line).toContain('"__proto__":{"name":"mallory"}');
    const step = readRecording(file(line)).trace.steps[0] as { input: object };
    // Seen: the prototype is {name: "mallory"}; JSON.stringify(input) is "{}".
    expect(Object.getPrototypeOf(step.input)).toBe(Object.prototype);
  });

  it("the diagram shows no agent the shown step does not name", () => {
    const { trace } = readRecording(file(line));
    expect(JSON.stringify(trace.steps[0])).not.toContain("mallory"); // what the reader sees
    // Seen: "lead-)mallory: spawn", an arrow to an agent no step shows.
    expect(sequenceFromTrace(trace)).not.toContain("mallory");
  });

  it("the todo panel shows no item the shown step does not hold", () => {
    const hidden = JSON.stringify({
      kind: "tool_call",
      agent: "lead",
      id: "t1",
      name: "todo",
      input: {},
    }).replace(
      '"input":{}',
      '"input":{"__proto__":{"items":[{"status":"completed","text":"hidden item"}]}}',
    );
    const { trace } = readRecording(file(hidden));
    expect(JSON.stringify(trace.steps[0])).not.toContain("hidden item");
    // Seen: {"todos":[["[x]","hidden item"]]}.
    expect(JSON.stringify(stateTimeline(trace).at(-1))).not.toContain("hidden item");
  });
});

describe("attack: deeply nested JSON in a step", () => {
  it("is refused as a step in a sentence (RecordingError), not with a stack overflow", () => {
    const n = 10_000;
    const deep = `{"kind":"tool_call","agent":"lead","id":"1","name":"bash","input":${"[".repeat(n)}${"]".repeat(n)}}`;
    // JSON.parse reads it; inOrderOf recurses once per level. Seen: RangeError "Maximum call
    // stack size exceeded", which the page shows raw ("could not be read: Maximum call stack…").
    let thrown: unknown;
    try {
      readRecording(file(deep, '{"kind":"note","agent":"lead","text":"after"}'));
    } catch (err) {
      thrown = err;
    }
    expect(thrown === undefined || thrown instanceof RecordingError).toBe(true);
  });
});

describe("attack: an agent named like a sequence diagram's keyword", () => {
  it("becomes a participant of its own name, not the keyword (end, Note, loop…)", () => {
    const spawn = (name: string, i: number) =>
      JSON.stringify({
        kind: "tool_call",
        agent: "lead",
        id: `t${i}`,
        name: "spawn",
        input: { name },
      });
    const names = ["end", "Note", "LOOP", "box"];
    // Each teammate then acts (a step of its own), as a spawned one does.
    const acts = (name: string) => JSON.stringify({ kind: "note", agent: name, text: "hi" });
    const { trace } = readRecording(file(...names.map(spawn), ...names.map(acts)));
    const code = sequenceFromTrace(trace);
    for (const name of names) {
      expect(code).toContain(`participant _${name} as ${name}`);
      expect(code).toContain(`lead-)_${name}: spawn`);
    }
  });
});
