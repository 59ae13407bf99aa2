import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s05 from "../../chapters/s05-context-compact/agent.ts";
import {
  createAgent,
  microCompact,
  TRANSCRIPTS_DIR,
} from "../../chapters/s05-context-compact/agent.ts";
import scenario from "../../chapters/s05-context-compact/scenario.ts";
import { playScenario } from "../../chapters/_runner/runtime.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { MessageParam } from "../../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, testKit, toolNames } from "../support/helpers.ts";
import {
  clearsOldLong,
  history,
  inTheHistory,
  keepsRecent,
  keepsShort,
  neverRead,
} from "../../chapters/s05-context-compact/exercises/checks.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";

const long = (n: number) => "y".repeat(n);
/** A command whose output is exactly n characters long. */
const loud = (n: number) => use("bash", { command: `printf '${long(n)}'` });

const resultTexts = (messages: MessageParam[]) =>
  messages.flatMap((m) =>
    typeof m.content === "string"
      ? []
      : m.content.flatMap((b) => (b.type === "tool_result" ? [b.content] : [])),
  );
const transcripts = (ws: string) =>
  existsSync(path.join(ws, TRANSCRIPTS_DIR)) ? readdirSync(path.join(ws, TRANSCRIPTS_DIR)) : [];
const text = (m: MessageParam) =>
  typeof m.content === "string" ? m.content : JSON.stringify(m.content);

describe("s05 context compaction", () => {
  it("offers the five base tools plus compact", async () => {
    const env = scriptedEnv([say("hi")]);
    await createAgent(env).send("hello");
    expect(toolNames(env)).toEqual(CURRICULUM_TOOLS.s05.lead);
  });

  for (const check of [clearsOldLong, keepsRecent, neverRead, keepsShort, inTheHistory])
    it(`behaviour: ${check.id}`, () => check.run(s05, testKit()));

  it("one round later the oldest of the last three is old too; a marker is never cleared again", () => {
    const messages = history([
      ["bash", long(150)],
      ["bash", long(101)],
      ["bash", long(400)],
      ["write", long(400)],
    ]);
    expect(microCompact(messages)).toEqual([{ tool: "bash", chars: 150 }]);
    messages.push(
      { role: "assistant", content: [{ type: "tool_use", id: "t9", name: "bash", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t9", content: "ok" }] },
    );
    expect(microCompact(messages)).toEqual([{ tool: "bash", chars: 101 }]);
    expect(microCompact(messages)).toEqual([]); // markers are never cleared again
    expect(resultTexts(messages).slice(0, 2)).toEqual([
      "[earlier tool result cleared: bash, 150 chars]",
      "[earlier tool result cleared: bash, 101 chars]",
    ]);
  });

  it("the loop micro-compacts before each call: the model sees markers, read output stays", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "notes.txt"), long(300));
    const env = scriptedEnv(
      [loud(200), use("read", { path: "notes.txt" }), loud(200), loud(200), loud(200), say("done")],
      { workspace: ws },
    );
    await createAgent(env).send("work");
    const sent = resultTexts(env.requests.at(-1)!.body.messages);
    expect(sent).toEqual([
      "[earlier tool result cleared: bash, 200 chars]",
      long(300),
      long(200),
      long(200),
      long(200),
    ]);
    expect(
      env.io.trace.some(
        (e) => e.kind === "note" && /micro-compaction: cleared bash \(200 chars\)/.test(e.text),
      ),
    ).toBe(true);
  });

  it("over the threshold: the transcript is saved and the history becomes one summary message", async () => {
    const ws = tempDir();
    const env = scriptedEnv([loud(1000), say("SUMMARY: printed a thousand y's"), say("done")], {
      workspace: ws,
    });
    const agent = createAgent(env, { tokenThreshold: 100 });
    await agent.send("print a lot");

    const [file] = transcripts(ws);
    expect(file).toMatch(/^transcript_\d+\.jsonl$/);
    const saved = readFileSync(path.join(ws, TRANSCRIPTS_DIR, file), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(saved.map((m: MessageParam) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(saved[2])).toContain(long(1000)); // the full result, on disk

    const [, summaryCall, next] = env.requests.map((r) => r.body);
    expect(summaryCall.tools ?? []).toEqual([]); // a separate call without tools
    expect(text(summaryCall.messages[0])).toContain(long(1000));
    expect(next.messages).toHaveLength(1);
    expect(next.messages[0].role).toBe("user");
    expect(text(next.messages[0])).toContain(`${TRANSCRIPTS_DIR}/${file}`);
    expect(text(next.messages[0])).toContain("SUMMARY: printed a thousand y's");
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("under the threshold nothing is summarised or saved", async () => {
    const ws = tempDir();
    const env = scriptedEnv([loud(1000), say("done")], { workspace: ws });
    await createAgent(env).send("print a lot");
    expect(env.requests).toHaveLength(2);
    expect(transcripts(ws)).toEqual([]);
  });

  it("manual compact saves the transcript, leaves one summary message, and ends the turn", async () => {
    const ws = tempDir();
    const env = scriptedEnv(
      [
        use("compact", { focus: "the open bug" }),
        say("SUMMARY: nothing done yet"),
        say("picking up from the summary"),
      ],
      { workspace: ws },
    );
    const agent = createAgent(env);
    await agent.send("start");

    expect(env.requests).toHaveLength(2); // the turn's call and the summary call, nothing after
    expect(text(env.requests[1].body.messages[0])).toContain(
      "Pay special attention to: the open bug",
    );
    expect(agent.messages).toHaveLength(1);
    expect(text(agent.messages[0])).toContain("SUMMARY: nothing done yet");
    const [file] = transcripts(ws);
    expect(readFileSync(path.join(ws, TRANSCRIPTS_DIR, file), "utf8")).toContain(
      '"name":"compact"',
    );

    await agent.send("go on");
    const next = env.requests[2].body.messages;
    expect(next).toHaveLength(1); // summary and new prompt, merged into one user turn
    expect(text(next[0])).toMatch(/SUMMARY: nothing done yet[\s\S]*go on/);
  });

  it("plays its scenario offline: old output cleared, transcript written, second answer from the summary", async () => {
    const ws = tempDir();
    const { env, agent } = await playScenario(s05, scenario, ws);
    const notes = env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));
    expect(notes.filter((n) => n.startsWith("micro-compaction"))).toHaveLength(2);
    const [file] = transcripts(ws);
    const saved = readFileSync(path.join(ws, TRANSCRIPTS_DIR, file), "utf8");
    expect(saved).toContain("[earlier tool result cleared: bash,");
    expect(readFileSync(path.join(ws, "report.md"), "utf8")).toMatch(
      /^# Error report for logs\/app\.log/,
    );
    expect(text(agent.messages[0])).toMatch(/compacted[\s\S]*db timeout 11/);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  });
});
