// The offline model: it plays scripted turns, reads real results, and refuses tools the agent lacks.
import { describe, expect, it } from "vitest";
import {
  ScenarioError,
  ScriptedModel,
  SCRIPT_OVER,
} from "../../chapters/_runner/scripted-model.ts";
import { say, use, fail } from "../../chapters/_shared/scripted.ts";
import type { CreateParams } from "../../chapters/_shared/types.ts";

const body = (
  tools: string[],
  messages: CreateParams["messages"] = [{ role: "user", content: "hi" }],
): CreateParams => ({
  model: "m",
  max_tokens: 10,
  messages,
  tools: tools.map((name) => ({ name, input_schema: { type: "object" as const, properties: {} } })),
});

describe("scripted model", () => {
  it("refuses a turn that calls a tool the agent does not have", async () => {
    const model = new ScriptedModel({ lead: [use("teleport", {})] }).for("lead");
    await expect(model.messages.create(body(["bash"]))).rejects.toBeInstanceOf(ScenarioError);
  });

  it("lets a turn read the last real tool result", async () => {
    const model = new ScriptedModel({ lead: [({ lastResult }) => say(`saw ${lastResult()}`)] }).for(
      "lead",
    );
    const reply = await model.messages.create(
      body(
        [],
        [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "req_42" }] }],
      ),
    );
    expect(reply.content).toEqual([{ type: "text", text: "saw req_42", citations: null }]);
  });

  it("walks each agent's turns separately and says when the script is over", async () => {
    const scripted = new ScriptedModel({ lead: [say("lead 1")], alice: [say("alice 1")] });
    const first = await scripted.for("alice").messages.create(body([]));
    const lead = await scripted.for("lead").messages.create(body([]));
    const over = await scripted.for("lead").messages.create(body([]));
    expect([first, lead, over].map((m) => (m.content[0] as { text: string }).text)).toEqual([
      "alice 1",
      "lead 1",
      SCRIPT_OVER,
    ]);
    expect(scripted.requests.map((r) => r.agent)).toEqual(["alice", "lead", "lead"]);
  });

  it("fails like the real API when a turn says so", async () => {
    const model = new ScriptedModel({ lead: [fail(529, "overloaded_error", "Overloaded")] }).for(
      "lead",
    );
    await expect(model.messages.create(body([]))).rejects.toMatchObject({ status: 529 });
  });
});
