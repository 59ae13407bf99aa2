// a1's exercises: rebuild the namespacing of MCP tools (mcp__<server>__<tool>, read back, and a
// call routed to its server). The checks hand namespace() stand-in connections whose client
// answers in-process, so they need no server process. tests/chapters/a1-mcp-servers.test.ts runs
// the same behaviours against the appendix's own code.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sandboxFor } from "../../_shared/shell.ts";
import { say, use } from "../../_shared/scripted.ts";
import type * as A1 from "../agent.ts";
import {
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof A1;

interface Sent {
  server: string;
  tool: string;
  input: unknown;
}

/** A connection to a server `name` offering `tools`, whose client answers every call with
 *  "<server>:<tool> <input>" and records it in `sent`. */
function standIn(name: string, tools: string[], sent: Sent[]): A1.Connection {
  const client = {
    callTool: async (params: { name: string; arguments?: unknown }) => {
      sent.push({ server: name, tool: params.name, input: params.arguments });
      return {
        content: [
          { type: "text", text: `${name}:${params.name} ${JSON.stringify(params.arguments)}` },
        ],
      };
    },
  };
  return {
    name,
    client: client as unknown as A1.Connection["client"],
    tools: tools.map((tool) => ({
      name: tool,
      description: `the ${tool} tool`,
      inputSchema: { type: "object" as const },
    })),
    lastWords: () => "",
    stop: async () => {},
  };
}

const offered = (module: M, servers: A1.Connection[], notes: string[] = []) =>
  module.namespace(servers, (text) => notes.push(text), 1000);

export const namespacedNames: Check<M> = {
  id: "namespaced-names",
  run(module) {
    const one = module.mcpToolName("notes", "save_note");
    expectThat(one === "mcp__notes__save_note", "name-wrong", { got: one });
    const { tools, handlers } = offered(module, [
      standIn("a", ["search"], []),
      standIn("b", ["search"], []),
    ]);
    const names = tools.map((t) => t.name);
    // Every tool offered can be called: the base tools keep their handlers beside the servers'.
    const unhandled = names.filter((name) => typeof handlers[name] !== "function");
    expectThat(unhandled.length === 0, "offered-not-handled", { got: unhandled.join(", ") });
    const expected = [...module.TOOLS.map((t) => t.name), "mcp__a__search", "mcp__b__search"];
    expectThat(names.join() === expected.join(), "tools-offered", {
      got: names.join(", "),
      expected: expected.join(", "),
    });
  },
};

export const namesReadBack: Check<M> = {
  id: "names-read-back",
  run(module) {
    for (const [server, tool] of [
      ["notes", "save_note"],
      ["notes", "list__all"],
      ["my_files", "read"],
      ["x-1", "a-b"],
    ]) {
      const name = module.mcpToolName(server, tool);
      const back = module.parseMcpToolName(name);
      expectThat(back?.server === server && back.tool === tool, "read-back-wrong", {
        name,
        got: JSON.stringify(back ?? null),
        server,
        tool,
      });
    }
    // A name of no server, though "mcp__…__…" appears inside it: only a name that begins so is one.
    for (const name of ["bash", "mcp__notes", "mcp_notes_save", "my_mcp__notes__save"]) {
      const back = module.parseMcpToolName(name);
      expectThat(back === undefined, "no-server-wrong", { name, got: JSON.stringify(back) });
    }
  },
};

export const routesToItsServer: Check<M> = {
  id: "routes-to-its-server",
  async run(module) {
    const sent: Sent[] = [];
    const { handlers } = offered(module, [
      standIn("a", ["search", "save"], sent),
      standIn("b", ["search"], sent),
    ]);
    for (const [name, server, tool] of [
      ["mcp__b__search", "b", "search"],
      ["mcp__a__search", "a", "search"],
      ["mcp__a__save", "a", "save"],
    ]) {
      const handler = handlers[name];
      expectThat(handler, "no-handler", { name });
      sent.length = 0;
      const output = await handler({ q: "x" }, { root: ".", sandbox: sandboxFor(".") });
      const got = sent.map((s) => `${s.server}:${s.tool}`).join(", ") || "nothing";
      expectThat(
        sent.length === 1 && sent[0].server === server && sent[0].tool === tool,
        "routed-wrong",
        { name, got, expected: `${server}:${tool}` },
      );
      expectThat(JSON.stringify(sent[0].input) === '{"q":"x"}', "input-lost", {
        got: JSON.stringify(sent[0].input),
      });
      expectThat(output === `${server}:${tool} {"q":"x"}`, "output-lost", { got: output });
    }
  },
};

export const badNamesLeftOut: Check<M> = {
  id: "bad-names-left-out",
  run(module) {
    const long = "t".repeat(60);
    const notes: string[] = [];
    const { tools, handlers } = offered(
      module,
      [standIn("a", ["echo", "echo", "bad.name", long], [])],
      notes,
    );
    const mcp = tools.map((t) => t.name).filter((n) => n.startsWith("mcp__"));
    expectThat(mcp.join() === "mcp__a__echo", "bad-name-offered", { got: mcp.join(", ") });
    expectThat(
      Object.keys(handlers).filter((n) => n.startsWith("mcp__")).length === 1,
      "bad-name-handled",
      {},
    );
    for (const tool of ["echo", "bad.name", long])
      expectThat(
        notes.some((n) => n.includes(`"${tool}"`) && n.includes("left out")),
        "left-out-unsaid",
        { tool },
      );
  },
};

// ---- Namespacing, tried on generated servers (a property check) ----

/** How a generated server answers a call: with text, with an error result, or by failing. */
type Outcome = "ok" | "error-result" | "throws";

interface GenTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const schemaArb = fc.oneof(
  fc.constant({ type: "object" }),
  fc
    .record({
      type: fc.constant("object"),
      properties: fc.dictionary(
        fc.constantFrom("q", "path", "limit", "tags"),
        fc.constantFrom(
          { type: "string" },
          { type: "integer" },
          { type: "array", items: { type: "string" } },
        ),
        { minKeys: 1, maxKeys: 3 },
      ),
    })
    .chain((schema) =>
      fc
        .subarray(Object.keys(schema.properties))
        .map((required) => (required.length ? { ...schema, required } : schema)),
    ),
);

const toolArb: fc.Arbitrary<GenTool> = fc.record({
  name: fc.constantFrom("search", "save", "echo", "list__all", "a-b", "bad.name", "t".repeat(60)),
  description: fc.constantFrom("", "finds things", "keeps a note"),
  inputSchema: schemaArb,
});

const serversArb = fc
  .uniqueArray(fc.constantFrom("a", "notes", "my-files", "x_y"), { minLength: 1, maxLength: 3 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc.record({
          name: fc.constant(name),
          tools: fc.array(toolArb, { maxLength: 4 }),
          outcome: fc.constantFrom<Outcome>("ok", "error-result", "throws"),
        }),
      ),
    ),
  );

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const anyServers: Check<M> = {
  id: "any-servers",
  run(module) {
    return forAll(
      serversArb,
      async (servers) => {
        const sent: Sent[] = [];
        const connections = servers.map(({ name, tools, outcome }) => {
          const conn = standIn(name, [], sent);
          conn.tools = tools.map((t) => ({
            ...t,
            inputSchema: t.inputSchema as { type: "object" },
          }));
          conn.client = {
            callTool: async (params: { name: string; arguments?: unknown }) => {
              sent.push({ server: name, tool: params.name, input: params.arguments });
              if (outcome === "throws") throw new Error("connection reset by the server");
              return {
                content: [{ type: "text", text: `${name}:${params.name} answered` }],
                ...(outcome === "error-result" ? { isError: true } : {}),
              };
            },
          } as unknown as A1.Connection["client"];
          return conn;
        });
        const servedBy = servers
          .map((s) => `${s.name}: ${s.tools.map((t) => t.name).join(", ") || "no tools"}`)
          .join("; ");
        const { tools, handlers } = offered(module, connections);

        // What must be offered: the base tools, then each valid, not yet taken name, in order.
        const expected = new Map<string, { server: (typeof servers)[number]; tool: GenTool }>();
        for (const server of servers)
          for (const tool of server.tools) {
            const name = `mcp__${server.name}__${tool.name}`;
            if (TOOL_NAME.test(name) && !expected.has(name)) expected.set(name, { server, tool });
          }
        const names = tools.map((t) => t.name);
        const wanted = [...module.TOOLS.map((t) => t.name), ...expected.keys()];
        expectThat(names.join() === wanted.join(), "any-tools-offered", {
          servers: servedBy,
          got: names.join(", "),
          expected: wanted.join(", "),
        });

        for (const [name, { server, tool }] of expected) {
          const offeredTool = tools.find((t) => t.name === name)!;
          expectThat(
            JSON.stringify(offeredTool.input_schema) === JSON.stringify(tool.inputSchema),
            "schema-lost",
            {
              name,
              got: JSON.stringify(offeredTool.input_schema),
              expected: JSON.stringify(tool.inputSchema),
            },
          );
          expectThat(
            (offeredTool.description ?? "").includes(tool.description),
            "description-lost",
            {
              name,
              got: JSON.stringify(offeredTool.description ?? ""),
              expected: tool.description,
            },
          );
          const handler = handlers[name];
          expectThat(handler, "no-handler", { name });
          sent.length = 0;
          let output: string | undefined;
          let failed: string | undefined;
          try {
            output = await handler({ q: "x" }, { root: ".", sandbox: sandboxFor(".") });
          } catch (err) {
            failed = err instanceof Error ? err.message : String(err);
            if (failed.includes(NOT_STARTED)) throw err;
          }
          const got = sent.map((s) => `${s.server}:${s.tool}`).join(", ") || "nothing";
          expectThat(
            sent.length === 1 && sent[0].server === server.name && sent[0].tool === tool.name,
            "routed-wrong",
            { name, got, expected: `${server.name}:${tool.name}` },
          );
          if (server.outcome === "ok")
            expectThat(output === `${server.name}:${tool.name} answered`, "output-lost", {
              got: failed === undefined ? String(output) : `an error: ${failed}`,
            });
          else
            expectThat(failed !== undefined, "failure-hidden", {
              name,
              outcome: server.outcome === "throws" ? "@outcome-throws" : "@outcome-error-result",
              got: JSON.stringify(output),
            });
        }
      },
      { runs: 40 },
    );
  },
};

/** A server that answers tools/list with one tool, ping, and crashes on a call: on the first call
 *  only ("once"), or on every call ("always"). Each start adds a line to starts.log. Plain
 *  JSON-RPC over stdio, so it needs no package inside the sandbox. */
const FLAKY = `import { appendFileSync, existsSync, writeFileSync } from "node:fs";
appendFileSync("starts.log", "start\\n");
const mode = process.argv[2];
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\\n");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let i; (i = buffer.indexOf("\\n")) >= 0; ) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
function handle(msg) {
  if (msg.method === "initialize")
    return send({ id: msg.id, result: { protocolVersion: msg.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "flaky", version: "1.0.0" } } });
  if (msg.method === "tools/list")
    return send({ id: msg.id, result: { tools: [{ name: "ping", inputSchema: { type: "object" } }] } });
  if (msg.method === "tools/call") {
    if (mode === "always" || !existsSync("crashed-once")) {
      writeFileSync("crashed-once", "");
      process.exit(1);
    }
    return send({ id: msg.id, result: { content: [{ type: "text", text: "pong" }] } });
  }
  if (msg.id !== undefined) send({ id: msg.id, result: {} });
}
`;

/** Plays `calls` calls of mcp__flaky__ping on a workspace whose one server is FLAKY; returns
 *  each call's result and how many times the server started. The servers end with the agent. */
async function flakyRun(module: M, kit: CheckKit, mode: "once" | "always", calls: number) {
  const workspace = kit.workspace();
  writeFileSync(path.join(workspace, "flaky.mjs"), FLAKY);
  writeFileSync(
    path.join(workspace, ".mcp.json"),
    JSON.stringify({ mcpServers: { flaky: { command: "node", args: ["flaky.mjs", mode] } } }),
  );
  const env = kit.env(
    [...Array.from({ length: calls }, () => use("mcp__flaky__ping", {})), say("done")],
    { workspace },
  );
  // A rules file of its own, so the agent does not copy the starting policy, which lives beside
  // the chapter's lesson and not beside a learner's copy of it.
  mkdirSync(env.stateDir, { recursive: true });
  writeFileSync(path.join(env.stateDir, "permissions.json"), JSON.stringify({ mode: "auto" }));
  const agent = module.createAgent(env, { trusted: true, mode: "auto" });
  try {
    await agent.send("ping it");
  } finally {
    await agent.close?.();
  }
  const results = env.io.trace.flatMap((e) =>
    e.kind === "tool_result" ? [{ output: e.output, isError: e.is_error }] : [],
  );
  let starts = 0;
  try {
    starts = readFileSync(path.join(workspace, "starts.log"), "utf8").split("\n").length - 1;
  } catch {
    // never started
  }
  return { results, starts };
}

export const restartsOnce: Check<M> = {
  id: "restarts-once",
  limitMs: 30_000,
  async run(module, kit) {
    const { results, starts } = await flakyRun(module, kit, "once", 2);
    expectThat(results[0]?.isError, "crash-unsaid", { got: results[0]?.output ?? "no result" });
    expectThat(results[1]?.output === "pong" && !results[1].isError, "not-restarted", {
      got: results[1]?.output ?? "no result",
      starts,
    });
    expectThat(starts === 2, "starts-once", { starts });
  },
};

export const givesUpAfterSecondCrash: Check<M> = {
  id: "gives-up-after-second-crash",
  limitMs: 30_000,
  async run(module, kit) {
    const { results, starts } = await flakyRun(module, kit, "always", 4);
    expectThat(results.length === 4 && results.every((r) => r.isError), "crash-not-error", {
      got: results.map((r) => (r.isError ? "error" : r.output)).join(", "),
    });
    expectThat(starts === 2, "restarted-again", { starts });
  },
};

/** a1.1's answer: a connection remembers how to start its server again; the first call after a
 *  crash starts it once more, and a call goes to the latest start. */
const restartSolution = {
  connect: (reference: string) =>
    reference.replace(
      "  stopped?: string;\n",
      "  stopped?: string;\n  /** Starts the server again (once: the new connection has none). */\n  restart?: () => Promise<Connection>;\n  /** The connection that replaced this one after a crash. */\n  replacement?: Connection;\n",
    ),
  dispatch: (reference: string) =>
    reference.replace(
      "  if (conn.stopped) throw new Error(",
      `  while (conn.replacement) conn = conn.replacement;
  if (conn.stopped && conn.restart) {
    const restart = conn.restart;
    conn.restart = undefined; // once: a server that crashes again stays down
    conn.replacement = await restart();
    conn = conn.replacement;
  }
  if (conn.stopped) throw new Error(`,
    ),
  session: (reference: string) =>
    reference
      .replace(
        "    Object.entries(servers).map(([name, server]) => connect(env, name, server, timeout)),",
        `    Object.entries(servers).map(async ([name, server]) => {
      const conn = await connect(env, name, server, timeout);
      conn.restart = async () => {
        env.io.note(\`MCP server "\${name}" stopped (\${conn.stopped}); starting it again, once\`);
        return connect(env, name, server, timeout);
      };
      return conn;
    }),`,
      )
      .replace(
        "      await Promise.all(servers.map((server) => server.stop()));",
        "      const all = servers.flatMap((s) => (s.replacement ? [s, s.replacement] : [s]));\n      await Promise.all(all.map((server) => server.stop()));",
      ),
};

export const exercises: Exercise<M>[] = [
  {
    id: "a1",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "mcpToolName",
        contract: "A server's tool as the model sees it: mcp__<server>__<tool>.",
      },
      {
        name: "parseMcpToolName",
        contract: [
          "mcpToolName read back: { server, tool } for a name mcp__<server>__<tool>, else undefined.",
          "A server's name never holds \"__\" (SERVER_NAME), but a tool's may: mcp__notes__list__all",
          'is the tool "list__all" of server "notes".',
        ].join("\n"),
      },
      {
        name: "namespace",
        contract: [
          "Returns { tools, handlers }: the base tools and handlers (s02) first, then each server's",
          "tools as mcpToolName(conn.name, tool.name), with description and input_schema (inputSchema).",
          "A name's handler sends the call to ITS server with the tool's own name:",
          "callTool(conn, tool.name, input, timeoutMs), and a failure stays a failure (callTool throws;",
          "the loop makes it an error result). A name already taken, or one TOOL_NAME refuses,",
          'is left out with note(`MCP tool "<tool>" of server "<server>" is left out: <why>`).',
        ].join("\n"),
      },
    ],
    checks: [namespacedNames, namesReadBack, routesToItsServer, badNamesLeftOut, anyServers],
  },
  {
    id: "a1.1",
    kind: "extend",
    file: "agent.ts",
    solution: restartSolution,
    checks: [restartsOnce, givesUpAfterSecondCrash, routesToItsServer, anyServers],
  },
];
