// Every tool's input is checked in every chapter (issue 32): the model may send any JSON, and a
// field no schema declares, or a list where text goes, must be refused before a handler acts on
// it. Not a list of tools written here: each chapter's lead (and, in the team chapters, a
// teammate) calls every tool its first request really offered, malformed, and every call must
// come back as an error that names the field, with nothing done.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allRunnable, loadChapter } from "../../chapters/_runner/chapters.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { ScriptedTurn, Tool } from "../../chapters/_shared/types.ts";
import { CURRICULUM_TOOLS } from "../support/curriculum.ts";
import { scriptedEnv, tempDir, type Env } from "../support/helpers.ts";
import { FAST } from "../support/team-helpers.ts";

const BAD = "zz_undeclared";
/** One call of each tool, every field it declares given a list (`subject: ["a", "list"]`) and one
 *  field it does not declare: the call that made task #1 "a,list" in s13. Built from the schemas
 *  the request really offered. */
const malformedCalls = (tools: readonly string[]): ScriptedTurn[] => [
  ...tools.map((name): ScriptedTurn => ({ request }) => {
    const tool = request.tools?.find((t) => "name" in t && t.name === name) as Tool | undefined;
    const declared = Object.keys(
      (tool?.input_schema as { properties?: object } | undefined)?.properties ?? {},
    );
    const input = Object.fromEntries(declared.map((key) => [key, ["a", "list"]]));
    return use(name, { ...input, [BAD]: ["a", "list"] });
  }),
  say("done"),
];

type Running = { send(p: string): Promise<unknown>; close?(): Promise<void> };
const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close?.()));
});

const resultsOf = (env: Env, agent: string) =>
  env.io.trace.flatMap((e) => (e.kind === "tool_result" && e.agent === agent ? [e] : []));

describe("a malformed call of every tool of every chapter is refused before it runs", () => {
  for (const info of allRunnable()) {
    const lists = CURRICULUM_TOOLS[info.id as keyof typeof CURRICULUM_TOOLS] as
      { lead: readonly string[]; teammate?: readonly string[] } | undefined;
    if (!lists) continue;
    it(`${info.id}: the lead's ${lists.lead.length} tools${lists.teammate ? " and a teammate's" : ""}`, async () => {
      const { module } = await loadChapter(info);
      const ws = tempDir("lah-ws-");
      const script: Record<string, ScriptedTurn[]> = { lead: malformedCalls(lists.lead) };
      if (lists.teammate) {
        // The lead spawns alice first (well-formed), then calls everything malformed; alice does too.
        script.lead.unshift(use("spawn", { name: "alice", role: "tester", prompt: "go" }));
        script.alice = malformedCalls(lists.teammate);
      }
      const env = scriptedEnv(script, { workspace: ws, answers: Array(40).fill("yes") });
      const agent = (module.createAgent as (e: Env, o: object) => Running)(env, {
        ...FAST,
        trusted: true,
      });
      running.push(agent);
      await agent.send("call every tool");
      const team = (agent as { team?: { waitUntilSettled(): Promise<void> } }).team;
      await team?.waitUntilSettled();

      for (const [who, tools] of [
        ["lead", lists.lead],
        ["alice", lists.teammate ?? []],
      ] as const) {
        const all = resultsOf(env, who);
        // The lead's first call is the well-formed spawn.
        const results = who === "lead" && lists.teammate ? all.slice(1) : all;
        expect(results.map((r) => r.name)).toEqual(tools);
        for (const r of results) {
          expect(r.is_error, `${info.id} ${who} ${r.name}: ${r.output}`).toBe(true);
          // s01 comes before schemas (s02): its one tool checks the one field it reads.
          if (info.id === "s01") expect(r.output).toMatch(/needs a command/);
          else expect(r.output, `${info.id} ${who} ${r.name}`).toContain(`"${BAD}"`);
        }
      }
      // Nothing was made: no task on the board, no lane, no file but what the chapter brought.
      const tasks = path.join(stateDirFor(ws), "tasks");
      expect(
        existsSync(tasks) ? readdirSync(tasks).filter((f) => f.endsWith(".json")) : [],
      ).toEqual([]);
    });
  }
});
