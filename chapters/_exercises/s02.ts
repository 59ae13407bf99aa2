// s02's exercises: rebuild the dispatch and the jail; extend the toolbox (a delete tool). The
// behaviours are the curriculum's for s02, and tests/chapters/s02-tool-use.test.ts runs the same
// ones against the chapter's own code.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { say, use } from "../_shared/scripted.ts";
import type { ToolUseBlock } from "../_shared/types.ts";
import type * as S02 from "../s02-tool-use/agent.ts";
import { expectThat, type Check, type CheckKit, type Exercise } from "./kit.ts";

type M = typeof S02;

const call = (name: string, input: unknown): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}`, name, input }) as ToolUseBlock;

/** The error message a function throws, or undefined when it returns. */
function thrown(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    if (err instanceof Error && err.message.startsWith("not started:")) throw err;
    return err instanceof Error ? err.message : String(err);
  }
}

/** base/ws, the workspace, next to base/outside, which nothing may touch; links out of ws. */
function jailed(kit: CheckKit) {
  const base = kit.workspace();
  const ws = path.join(base, "ws");
  const outside = path.join(base, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  symlinkSync(outside, path.join(ws, "link-dir"));
  symlinkSync(path.join(outside, "nothing-here"), path.join(ws, "dangling"));
  return { base, ws, outside };
}

export const unknownToolIsAResult: Check<M> = {
  id: "unknown-tool-is-a-result",
  async run(module, kit) {
    let outcome: S02.ToolOutcome | undefined;
    try {
      outcome = await module.runTool(module.BASE_HANDLERS, call("teleport", {}), {
        root: kit.workspace(),
      });
    } catch (err) {
      if (err instanceof Error && err.message.startsWith("not started:")) throw err;
      expectThat(false, "unknown-tool-threw", { error: String(err) });
    }
    expectThat(outcome?.isError === true, "unknown-tool-not-error", {
      got: JSON.stringify(outcome),
    });
    expectThat(/teleport/.test(outcome.output), "unknown-tool-unnamed", { got: outcome.output });
    // …and the loop goes on after an error result: the next call still runs.
    const env = kit.env([
      use("bash", { command: "echo never", path: "x" }),
      use("bash", { command: "echo after" }),
      say("done"),
    ]);
    await module.createAgent(env).send("go");
    const outputs = env.io.trace.flatMap((e) => (e.kind === "tool_result" ? [e.output] : []));
    expectThat(outputs[1] === "after", "loop-stopped", { got: outputs.join(" | ") || "nothing" });
  },
};

export const dispatchByName: Check<M> = {
  id: "dispatch-by-name",
  async run(module, kit) {
    const ws = kit.workspace();
    const shout: S02.ToolHandler = ({ text }) => String(text).toUpperCase();
    const fail: S02.ToolHandler = () => {
      throw new Error("the disk is on fire");
    };
    const handlers = { ...module.BASE_HANDLERS, shout, fail };
    const tools = [
      ...module.BASE_TOOLS,
      {
        name: "shout",
        input_schema: { type: "object" as const, properties: { text: { type: "string" } } },
      },
      { name: "fail", input_schema: { type: "object" as const, properties: {} } },
    ];
    const ok = await module.runTool(handlers, call("shout", { text: "hi" }), { root: ws }, tools);
    expectThat(ok.output === "HI" && !ok.isError, "handler-not-run", {
      got: JSON.stringify(ok),
    });
    let failed: S02.ToolOutcome | undefined;
    try {
      failed = await module.runTool(handlers, call("fail", {}), { root: ws }, tools);
    } catch (err) {
      expectThat(false, "handler-error-thrown", { error: String(err) });
    }
    expectThat(
      failed?.isError === true && failed.output.includes("the disk is on fire"),
      "handler-error-lost",
      { got: JSON.stringify(failed) },
    );
  },
};

export const inputChecked: Check<M> = {
  id: "input-checked",
  async run(module, kit) {
    const ws = kit.workspace();
    for (const input of [{ command: "touch ran.txt", path: "x" }, { command: ["touch ran.txt"] }]) {
      const r = await module.runTool(module.BASE_HANDLERS, call("bash", input), { root: ws });
      expectThat(r.isError, "bad-input-ran", { input: JSON.stringify(input), got: r.output });
    }
    expectThat(!existsSync(path.join(ws, "ran.txt")), "bad-input-ran", {
      input: "a malformed bash call",
      got: "ran.txt was created",
    });
  },
};

const HOSTILE = [
  "../escape.txt",
  "a/../../escape.txt",
  "../wsx/escape.txt",
  "/tmp/lah-abs.txt",
  "OUTSIDE/abs.txt",
  "link-dir/x.txt",
  "link-dir/deeper/x.txt",
  "dangling",
  "~/x.txt",
  "",
];

export const jailRefuses: Check<M> = {
  id: "jail-refuses-escapes",
  async run(module, kit) {
    const { base, ws, outside } = jailed(kit);
    for (const raw of HOSTILE) {
      const p = raw.replace("OUTSIDE", outside);
      const error = thrown(() => module.safePath(ws, p));
      expectThat(error !== undefined, "escape-allowed", { path: JSON.stringify(p) });
      const r = await module.runTool(
        module.BASE_HANDLERS,
        call("write", { path: p, content: "pwned" }),
        { root: ws },
      );
      expectThat(r.isError, "escape-written", { path: JSON.stringify(p) });
    }
    const touched = [
      ...readdirSync(outside),
      ...readdirSync(base).filter((n) => n !== "ws" && n !== "outside"),
      ...readdirSync("/tmp").filter((n) => n === "lah-abs.txt"),
    ];
    expectThat(touched.length === 0, "outside-touched", { files: touched.join(", ") });
  },
};

export const jailAllowsInside: Check<M> = {
  id: "jail-allows-inside",
  run(module, kit) {
    const { ws } = jailed(kit);
    mkdirSync(path.join(ws, "real"));
    writeFileSync(path.join(ws, "real", "f.txt"), "x");
    symlinkSync(path.join(ws, "real"), path.join(ws, "inner-link"));
    const cases: [string, string][] = [
      ["a/b.txt", path.join(ws, "a", "b.txt")],
      ["./c.txt", path.join(ws, "c.txt")],
      ["a/../d.txt", path.join(ws, "d.txt")],
      [path.join(ws, "e.txt"), path.join(ws, "e.txt")],
      ["inner-link/f.txt", path.join(ws, "real", "f.txt")],
    ];
    for (const [p, expected] of cases) {
      let got: string | undefined;
      const error = thrown(() => {
        got = module.safePath(ws, p);
      });
      expectThat(error === undefined, "inside-refused", { path: p, error: error ?? "" });
      expectThat(got === expected, "inside-wrong-path", { path: p, got: String(got), expected });
    }
  },
};

export const deleteTool: Check<M> = {
  id: "delete-tool",
  async run(module, kit) {
    const { ws, outside } = jailed(kit);
    writeFileSync(path.join(ws, "gone.txt"), "bye");
    writeFileSync(path.join(outside, "keep.txt"), "mine");
    mkdirSync(path.join(ws, "folder"));
    const env = kit.env(
      [
        use("delete", { path: "gone.txt" }),
        use("delete", { path: "../outside/keep.txt" }),
        use("delete", { path: "link-dir/keep.txt" }),
        use("delete", { path: "link-dir" }),
        use("delete", { path: "folder" }),
        use("delete", { path: "." }),
        say("done"),
      ],
      { workspace: ws },
    );
    await module.createAgent(env).send("clean up");
    const offered = env.requests[0]?.body.tools?.map((t) => ("name" in t ? t.name : "")) ?? [];
    expectThat(offered.includes("delete"), "no-delete-tool", { tools: offered.join(", ") });
    const results = env.io.trace.flatMap((e) => (e.kind === "tool_result" ? [e] : []));
    expectThat(
      results[0] && !results[0].is_error && !existsSync(path.join(ws, "gone.txt")),
      "not-deleted",
      { got: results[0]?.output ?? "no result" },
    );
    const refused = ["../outside/keep.txt", "link-dir/keep.txt", "link-dir", "folder", "."];
    refused.forEach((p, i) => {
      expectThat(results[i + 1]?.is_error === true, "delete-not-refused", {
        path: p,
        got: results[i + 1]?.output ?? "no result",
      });
    });
    expectThat(
      existsSync(path.join(outside, "keep.txt")) &&
        existsSync(path.join(ws, "link-dir")) &&
        existsSync(path.join(ws, "folder")),
      "delete-outside",
      {},
    );
    const base = module.BASE_TOOLS.map((t) => t.name);
    expectThat(base.length === 5 && !("delete" in module.BASE_HANDLERS), "base-changed", {
      tools: base.join(", "),
    });
  },
};

/** s02.1's answer: the tool, its handler, and the lists the agent offers (the base stays five). */
const DELETE_TOOL = `
export const DELETE_TOOL: Tool = {
  name: "delete",
  description: "Delete one file in the workspace (not a folder, not a link).",
  input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

/** Unlinks the name inside its parent folder, opened part by part below the workspace and never
 *  through a link (as the opener in _shared/jail.ts does; Linux's /proc/self/fd names the open
 *  folder), so a folder swapped for a link meanwhile cannot send the delete outside. A link
 *  inside is followed by safePath, like every file tool; a folder is refused. */
async function deleteFile({ path: p }: Input, { root }: ToolContext): Promise<string> {
  const { constants, lstatSync, openSync, unlinkSync } = await import("node:fs");
  const workspace = jailRoot(root);
  const parts = path.relative(workspace, safePath(root, p)).split(path.sep).filter(Boolean);
  const name = parts.pop();
  if (!name) throw new Error(\`\${String(p)} is the workspace itself, not a file\`);
  const folder = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  let fd = openSync(workspace, folder);
  try {
    for (const part of parts) {
      const next = openSync(\`/proc/self/fd/\${fd}/\${part}\`, folder);
      closeSync(fd);
      fd = next;
    }
    const at = \`/proc/self/fd/\${fd}/\${name}\`;
    const stat = lstatSync(at);
    if (!stat.isFile()) throw new Error(\`\${String(p)} is not a file\`);
    unlinkSync(at);
  } finally {
    closeSync(fd);
  }
  return \`Deleted \${String(p)}\`;
}

export const WITH_DELETE: Tool[] = [...BASE_TOOLS, DELETE_TOOL];
export const WITH_DELETE_HANDLERS: Record<string, ToolHandler> = {
  ...BASE_HANDLERS,
  delete: deleteFile,
};
`;

export const exercises: Exercise<M>[] = [
  {
    id: "s02",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "safePath",
        contract: [
          "Receives the workspace root and the path a tool was asked for (any value the model sent).",
          "Return the real path it leads to, inside the workspace; throw an Error saying why otherwise.",
          "Rule: resolve it against jailRoot(root) (check it with plainPath first); it must be",
          "isInside the workspace, and still inside once followLinks has followed its symlinks.",
        ].join("\n"),
      },
      {
        name: "runTool",
        contract: [
          "Receives the handler map, one tool_use block, where it runs, and the tools offered.",
          "Return { output, isError } and never throw: an unknown name, an input that",
          "inputProblem(tool, input) finds wrong, or a handler that throws all become an error",
          'result ("Error: …"), so the loop goes on. Otherwise the handler\'s text is the output.',
        ].join("\n"),
      },
    ],
    checks: [unknownToolIsAResult, dispatchByName, inputChecked, jailRefuses, jailAllowsInside],
  },
  {
    id: "s02.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      tools: (reference) =>
        reference.replace("\n// #endregion tools", `\n${DELETE_TOOL}// #endregion tools`),
      agent: (reference) =>
        reference.replace(
          "{ system: SYSTEM, tools: TOOLS, handlers: BASE_HANDLERS }",
          "{ system: SYSTEM, tools: WITH_DELETE, handlers: WITH_DELETE_HANDLERS }",
        ),
    },
    checks: [deleteTool, unknownToolIsAResult],
  },
];
