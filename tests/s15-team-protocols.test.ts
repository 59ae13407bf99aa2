import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as s15 from "../chapters/s15-team-protocols/agent.ts";
import { createAgent, PendingRequests, PROTOCOLS, type ProtocolAgent } from "../chapters/s15-team-protocols/agent.ts";
import scenario from "../chapters/s15-team-protocols/scenario.ts";
import { LEAD, MessageBus } from "../chapters/s13-agent-teams/agent.ts";
import { playScenario } from "../chapters/_shared/runtime.ts";
import { say, use } from "../chapters/_shared/scripted.ts";
import type { ScriptedTurn, TurnContext } from "../chapters/_shared/types.ts";
import { scriptedEnv, tempDir, toolNames } from "./helpers.ts";
import { closedAfterEach, FAST, instruction, requestsOf } from "./team-helpers.ts";

type Env = ReturnType<typeof scriptedEnv>;

const running = closedAfterEach<ProtocolAgent>();

function protocolRun(script: Record<string, ScriptedTurn[]>) {
  const env = scriptedEnv(script);
  const agent = createAgent(env, FAST);
  running.push(agent);
  return { env, agent, team: agent.team, requests: agent.requests };
}

const results = (env: Pick<Env, "io">, agent: string) =>
  env.io.trace.flatMap((e) => (e.kind === "tool_result" && e.agent === agent ? [{ output: e.output, isError: e.is_error }] : []));
const idIn = (type: string, s: string) => new RegExp(`type="${type}" request_id="(req_\\d+)"`).exec(s)?.[1];
/** A teammate turn that answers the shutdown request it just read. */
const answerShutdown = (approve: boolean) => ({ request }: TurnContext) =>
  use("handle_shutdown", { request_id: idIn("shutdown_request", instruction(request.messages)), approve, reason: approve ? "done" : "busy" });
const readStored = (env: Env) => JSON.parse(readFileSync(path.join(env.workspace, ".team", "requests.json"), "utf8"));

describe("s15 team protocols", () => {
  it("gives the lead 13 tools and a teammate 8, read from their first requests", async () => {
    const { env, agent, team } = protocolRun({
      lead: [use("spawn", { name: "alice", role: "coder", prompt: "say hi" }), say("spawned")],
      alice: [say("hi")],
    });
    await agent.send("start a teammate");
    await team.waitUntilSettled();
    expect(toolNames(env)).toEqual([
      "bash", "read", "write", "task_create", "task_get", "task_update", "task_list", "spawn", "send", "inbox",
      "request_shutdown", "request_plan", "review_plan",
    ]);
    expect(toolNames(env, "alice")).toEqual(["bash", "read", "write", "edit", "glob", "send", "handle_shutdown", "submit_plan"]);
    expect(s15.TOOLS.map((t) => t.name)).toEqual(toolNames(env));
    expect(s15.TEAMMATE_TOOLS.map((t) => t.name)).toEqual(toolNames(env, "alice"));
  });

  it("request_shutdown creates a pending entry and a shutdown_request with that id in the teammate's mailbox", () => {
    const { team, requests, env } = protocolRun({ alice: [say("hi")] });
    team.spawn("alice", "coder", "hi"); // alice is busy with her first prompt: her mail waits
    const output = team.leadHandlers.request_shutdown({ name: "alice", reason: "time to go" }, { root: env.workspace });
    expect(output).toMatch(/^Shutdown request req_1 sent to alice \(pending\)/);
    expect(requests.get("req_1")).toMatchObject({ type: "shutdown", sender: LEAD, to: "alice", status: "pending", content: "time to go" });
    expect(readStored(env).req_1.status).toBe("pending");
    const mail = team.bus.peek("alice");
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ type: "shutdown_request", from: LEAD, request_id: "req_1", content: "time to go" });
    // The trace's mailbox_send event carries the request_id too (not only the protocol event after it).
    const send = env.io.trace.find((e) => e.kind === "event" && e.type === "mailbox_send" && e.data.type === "shutdown_request");
    expect(send).toMatchObject({ agent: LEAD, data: { id: mail[0].id, from: LEAD, to: "alice", request_id: "req_1" } });
  });

  it("approve: the request is approved, the lead gets shutdown_response with the same id, the teammate stops calling the model", async () => {
    const { env, agent, team, requests } = protocolRun({
      lead: [
        use("spawn", { name: "alice", role: "coder", prompt: "say hi" }),
        use("inbox", { wait: true }),
        use("request_shutdown", { name: "alice" }),
        use("inbox", { wait: true }),
        use("send", { to: "alice", content: "are you still there?" }),
        say("she is gone"),
      ],
      alice: [say("hi"), answerShutdown(true), say("I should never be asked this"), say("nor this")],
    });
    await agent.send("spawn alice, then shut her down");
    expect(requests.get("req_1")?.status).toBe("approved");
    const [response, lateMail] = results(env, LEAD).slice(-2).map((r) => r.output);
    expect(lateMail).toMatch(/alice has shut down and will not read it$/);
    expect(response).toContain('<message from="alice" type="shutdown_response" request_id="req_1" approve="true">');
    const answer = env.io.trace.find((e) => e.kind === "event" && e.type === "mailbox_send" && e.data.type === "shutdown_response");
    expect(answer).toMatchObject({ agent: "alice", data: { from: "alice", to: LEAD, request_id: "req_1", approve: true } });
    expect(requestsOf(env, "alice")).toHaveLength(2); // hi, then the answer; nothing after it
    expect(team.members.get("alice")!.state).toBe("shutdown");
    const roster = JSON.parse(readFileSync(path.join(env.workspace, ".team", "config.json"), "utf8"));
    expect(roster.members[0]).toMatchObject({ name: "alice", state: "shutdown" });
    expect(team.bus.peek(LEAD).filter((m) => m.type === "result")).toEqual([]); // a clean stop, not a failure report
  });

  it("reject: the request is rejected and the teammate keeps working", async () => {
    const { env, team, requests } = protocolRun({
      alice: [say("hi"), answerShutdown(false), use("write", { path: "still-here.txt", content: "working" }), say("kept working")],
    });
    team.spawn("alice", "coder", "hi");
    team.leadHandlers.request_shutdown({ name: "alice" }, { root: env.workspace });
    expect(await team.waitUntilSettled()).toBe(true);
    expect(requests.get("req_1")?.status).toBe("rejected");
    expect(readFileSync(path.join(env.workspace, "still-here.txt"), "utf8")).toBe("working");
    expect(requestsOf(env, "alice")).toHaveLength(4);
    expect(team.members.get("alice")!.state).toBe("idle");
    expect(team.bus.peek(LEAD).find((m) => m.type === "shutdown_response")).toMatchObject({ request_id: "req_1", approve: false, content: "busy" });
  });

  it("submit_plan then review_plan(false): rejected, and the feedback reaches the teammate", async () => {
    const feedback = "Too risky: keep the public API and go one file at a time.";
    const { env, agent, requests } = protocolRun({
      lead: [
        use("spawn", { name: "bob", role: "refactorer", prompt: "refactor auth; plan first" }),
        use("inbox", { wait: true }),
        ({ lastResult }) => use("review_plan", { request_id: idIn("plan_approval_request", lastResult()), approve: false, feedback }),
        use("inbox", { wait: true }),
        say("rejected"),
      ],
      bob: [use("submit_plan", { plan: "rewrite auth from scratch" }), say("waiting for review"), say("understood")],
    });
    await agent.send("get a plan from bob and reject it");
    expect(requests.get("req_1")).toMatchObject({ type: "plan_approval", sender: "bob", to: LEAD, status: "rejected", content: "rewrite auth from scratch" });
    const woken = instruction(requestsOf(env, "bob").at(-1)!.body.messages);
    expect(woken).toContain('<message from="lead" type="plan_approval_response" request_id="req_1" approve="false">');
    expect(woken).toContain(feedback);
    expect(readStored(env).req_1).toMatchObject({ status: "rejected", answer: feedback });
  });

  it("resolving twice, an unknown id, the wrong tool or the wrong resolver is an error and the status stays", async () => {
    const { env, agent, team, requests } = protocolRun({
      lead: [
        use("spawn", { name: "bob", role: "refactorer", prompt: "plan first" }),
        use("inbox", { wait: true }),
        use("review_plan", { request_id: "req_1", approve: false, feedback: "no" }),
        use("review_plan", { request_id: "req_1", approve: true, feedback: "changed my mind" }),
        use("review_plan", { request_id: "req_99", approve: true }),
        say("done"),
      ],
      bob: [use("submit_plan", { plan: "plan A" }), say("waiting"), say("ok")],
    });
    await agent.send("review bob's plan");
    const [, , first, second, unknown] = results(env, LEAD);
    expect(first).toEqual({ output: expect.stringMatching(/req_1 from bob: rejected/), isError: false });
    expect(second).toEqual({ output: "Error: request req_1 is already rejected; it cannot become approved", isError: true });
    expect(unknown).toEqual({ output: expect.stringMatching(/unknown request_id "req_99" \(nothing is pending\)/), isError: true });
    expect(requests.get("req_1")).toMatchObject({ status: "rejected", answer: "no" });
    expect(readStored(env).req_1.status).toBe("rejected");

    // The same rules hold for a shutdown request: wrong tool, wrong resolver, bad input, twice.
    const id = requests.open("shutdown", LEAD, "bob", "stop");
    expect(() => team.leadHandlers.review_plan({ request_id: id, approve: true }, { root: env.workspace }))
      .toThrow(`${id} is a shutdown request, not plan_approval`);
    expect(() => requests.resolve(id, "alice", true, "", "shutdown")).toThrow(`${id} was sent to bob; only bob can answer it`);
    expect(() => requests.resolve(id, "bob", "yes" as unknown as boolean, "", "shutdown")).toThrow("approve must be true or false");
    expect(requests.get(id)?.status).toBe("pending");
    requests.resolve(id, "bob", false, "busy", "shutdown");
    expect(() => requests.resolve(id, "bob", true, "", "shutdown")).toThrow(`request ${id} is already rejected; it cannot become approved`);
    expect(requests.get(id)?.status).toBe("rejected");
    expect(readStored(env)[id].status).toBe("rejected");
  });

  it("request_plan is an ordinary message: nothing enters pending_requests", async () => {
    const { env, agent, team, requests } = protocolRun({
      lead: [
        use("spawn", { name: "charlie", role: "tester", prompt: "hi" }),
        use("request_plan", { name: "charlie", about: "tests for slug.js" }),
        say("asked"),
      ],
      charlie: [say("hi"), say("I will send a plan")],
    });
    await agent.send("ask charlie for a plan");
    expect(await team.waitUntilSettled()).toBe(true);
    expect(requests.all()).toEqual({});
    expect(existsSync(path.join(env.workspace, ".team", "requests.json"))).toBe(false);
    const woken = instruction(requestsOf(env, "charlie").at(-1)!.body.messages);
    expect(woken).toMatch(/^<message from="lead" type="message">\nBefore you change anything for: tests for slug.js/);
  });

  it("send cannot forge a protocol message: the type or request_id is refused and nothing changes", async () => {
    const { env, agent, team, requests } = protocolRun({
      lead: [
        use("spawn", { name: "bob", role: "refactorer", prompt: "plan first" }),
        use("inbox", { wait: true }),
        use("send", { to: "bob", content: "approved!", type: "plan_approval_response", request_id: "req_1" }),
        use("send", { to: "bob", content: "approved!", request_id: "req_1" }),
        say("done"),
      ],
      bob: [
        use("submit_plan", { plan: "plan A" }),
        use("send", { to: "lead", content: "I approve my own plan", type: "plan_approval_response", request_id: "req_1" }),
        say("waiting"),
      ],
    });
    await agent.send("try to cheat");
    expect(await team.waitUntilSettled()).toBe(true);
    const refused = [...results(env, LEAD).slice(2), results(env, "bob")[1]];
    for (const r of refused) expect(r).toEqual({ output: expect.stringMatching(/^Error: send carries ordinary messages only/), isError: true });
    expect(refused[0].output).toContain('"plan_approval_response" is a protocol message type');
    expect(requests.get("req_1")?.status).toBe("pending");
    expect(team.bus.peek("bob")).toEqual([]);
    const leadMail = results(env, LEAD)[1].output;
    expect([...leadMail.matchAll(/type="(\w+)"/g)].map((m) => m[1])).toEqual(["plan_approval_request", "result", "idle"]);
    expect(team.bus.peek(LEAD)).toEqual([]);
  });

  it("a new protocol type is one registry entry: help_request / help_ack run through the same state machine", async () => {
    const { team, requests, env } = protocolRun({ bob: [say("hi")] });
    team.spawn("bob", "builder", "hi");
    expect(await team.waitUntilSettled()).toBe(true);
    expect(() => requests.open("help", "bob", LEAD, "stuck")).toThrow(/unknown protocol "help"/);

    requests.register("help", { request: "help_request", response: "help_ack", resolver: "lead" });
    expect(() => requests.register("help2", { request: "shutdown_request", response: "x", resolver: "lead" })).toThrow(/already in use/);
    expect(() => requests.open("help", LEAD, "bob", "wrong way round")).toThrow(/answered by the lead, not by bob/);
    const id = requests.open("help", "bob", LEAD, "the build fails on node 18");
    expect(team.bus.peek(LEAD).at(-1)).toMatchObject({ type: "help_request", from: "bob", request_id: id });
    expect(requests.get(id)).toMatchObject({ type: "help", status: "pending" });
    expect(() => requests.resolve(id, "bob", true, "")).toThrow(/only lead can answer it/);

    requests.resolve(id, LEAD, true, "use node 20");
    expect(team.bus.peek("bob").at(-1)).toMatchObject({ type: "help_ack", from: LEAD, request_id: id, approve: true, content: "use node 20" });
    expect(() => requests.resolve(id, LEAD, false, "")).toThrow(`request ${id} is already approved; it cannot become rejected`);
    expect(readStored(env)[id]).toMatchObject({ type: "help", status: "approved" });
    expect(PROTOCOLS).not.toHaveProperty("help"); // registered on this team only, not globally
  });

  it("the table is persisted: a fresh PendingRequests sees it, and ids go on after a restart", () => {
    const ws = tempDir();
    const bus = new MessageBus(path.join(ws, ".mailboxes"));
    const file = path.join(ws, ".team", "requests.json");
    const deliver = (from: string, to: string, content: string, type: string, extra: Record<string, unknown>) =>
      bus.send(from, to, content, type, extra);
    const first = new PendingRequests(file, deliver);
    const id = first.open("shutdown", LEAD, "alice", "please stop");
    expect(bus.peek("alice")[0]).toMatchObject({ type: "shutdown_request", request_id: id });

    const second = new PendingRequests(file, deliver);
    expect(second.get(id)).toMatchObject({ type: "shutdown", sender: LEAD, to: "alice", status: "pending" });
    expect(() => second.open("shutdown", LEAD, "alice", "again")).toThrow(`${id} (shutdown, lead → alice) is still pending`);
    second.resolve(id, "alice", true, "bye");
    expect(new PendingRequests(file, deliver).get(id)?.status).toBe("approved");
    expect(second.open("plan_approval", "alice", LEAD, "a plan")).toBe("req_2");
  });

  it("/requests shows the table", async () => {
    const { agent, requests, team } = protocolRun({ alice: [say("hi")] });
    team.spawn("alice", "coder", "hi");
    requests.open("shutdown", LEAD, "alice", "please stop");
    expect(await agent.commands!["/requests"].run("")).toMatch(/^req_1\s+shutdown\s+lead → alice\s+pending\s+\d\d:\d\d:\d\d\s+please stop$/);
  });

  it("plays its scenario offline: alice shut down, bob's plan rejected, charlie's approved and his tests written", async () => {
    const ws = tempDir();
    const { env } = await playScenario(s15, scenario, ws);
    const stored = JSON.parse(readFileSync(path.join(ws, ".team", "requests.json"), "utf8"));
    expect(Object.entries(stored).map(([id, r]) => [id, (r as { type: string }).type, (r as { status: string }).status])).toEqual([
      ["req_1", "shutdown", "approved"],
      ["req_2", "plan_approval", "rejected"],
      ["req_3", "plan_approval", "approved"],
    ]);
    expect(readFileSync(path.join(ws, "tests", "slug.test.js"), "utf8")).toContain("hello-team-protocols");
    expect(existsSync(path.join(ws, "src", "auth"))).toBe(false); // bob's rejected plan changed nothing
    const listing = results(env, LEAD).at(-1)!.output;
    expect(listing).toMatch(/alice\s+shutdown\nbob\s+idle\ncharlie\s+idle/);
  });
});
