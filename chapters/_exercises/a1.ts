// a1's exercises: rebuild the namespacing of MCP tools (mcp__<server>__<tool>, read back, and a
// call routed to its server). The checks hand namespace() stand-in connections whose client
// answers in-process, so they need no server process. tests/chapters/a1-mcp-servers.test.ts runs
// the same behaviours against the appendix's own code.
import type * as A1 from "../a1-mcp-servers/agent.ts";
import { expectThat, type Check, type Exercise } from "./kit.ts";

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
    const { tools } = offered(module, [standIn("a", ["search"], []), standIn("b", ["search"], [])]);
    const names = tools.map((t) => t.name);
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
    for (const name of ["bash", "mcp__notes", "mcp_notes_save"]) {
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
      const output = await handler({ q: "x" }, { root: "." });
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
          "callTool(conn, tool.name, input, timeoutMs). A name already taken, or one TOOL_NAME refuses,",
          'is left out with note(`MCP tool "<tool>" of server "<server>" is left out: <why>`).',
        ].join("\n"),
      },
    ],
    checks: [namespacedNames, namesReadBack, routesToItsServer, badNamesLeftOut],
  },
];
