// a1's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("a1", {
  a1: {
    "joins the parts with a single underscore": {
      namespace: swap("`mcp__${server}__${tool}`", "`mcp_${server}_${tool}`"),
    },
    "reads the server's name greedily": {
      namespace: swap("/^mcp__(.+?)__(.+)$/", "/^mcp__(.+)__(.+)$/"),
    },
    "reads a server out of a name that only contains mcp__": {
      namespace: swap("/^mcp__(.+?)__(.+)$/", "/mcp__(.+?)__(.+)$/"),
    },
    "offers the base tools without their handlers": {
      namespace: swap("= { ...s02.BASE_HANDLERS };", "= {};"),
    },
    "sends the namespaced name to the server": {
      namespace: swap(
        "callTool(conn, tool.name, input, timeoutMs)",
        "callTool(conn, name, input, timeoutMs)",
      ),
    },
    "gives every MCP tool the schema {type: object}": {
      namespace: swap(
        'input_schema: tool.inputSchema as Tool["input_schema"]',
        'input_schema: { type: "object" }',
      ),
    },
    "turns a server's failure into a successful result": {
      namespace: swap(
        "handlers[name] = (input) => callTool(conn, tool.name, input, timeoutMs);",
        "handlers[name] = (input) =>\n        callTool(conn, tool.name, input, timeoutMs).catch((err) => `failed: ${err}`);",
      ),
    },
    "drops the server's description": {
      namespace: swap('${tool.description ?? ""}', ""),
    },
    "keeps only the schema's properties (its required fields lost)": {
      namespace: swap(
        'input_schema: tool.inputSchema as Tool["input_schema"]',
        'input_schema: { type: "object", properties: tool.inputSchema.properties }',
      ),
    },
    "sends every call to the last server": {
      namespace: swap(
        "callTool(conn, tool.name, input, timeoutMs)",
        "callTool(servers.at(-1)!, tool.name, input, timeoutMs)",
      ),
    },
    "lets a second tool of the same name replace the first": {
      namespace: swap("const why = handlers[name]\n", "const why = false\n"),
    },
    "offers names the API would refuse": {
      namespace: swap(": !TOOL_NAME.test(name) &&", ": false &&"),
    },
  },
  "a1.1": {
    "passes the restart on, so the server restarts forever": {
      dispatch: swap(
        "    conn.replacement = await restart();\n",
        "    conn.replacement = await restart();\n    conn.replacement.restart = restart;\n",
      ),
    },
    "restarts the server but sends the call to the dead one": {
      dispatch: swap("    conn = conn.replacement;\n", ""),
    },
    "restarts a server that is running": {
      dispatch: swap("if (conn.stopped && conn.restart) {", "if (conn.restart) {"),
    },
  },
});
