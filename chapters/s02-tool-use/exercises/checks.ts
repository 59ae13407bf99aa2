// s02's exercises: rebuild the dispatch and the jail; extend the toolbox (a delete tool). The
// behaviours are the curriculum's for s02, and tests/chapters/s02-tool-use.test.ts runs the same
// ones against the chapter's own code.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sandboxFor } from "../../_shared/shell.ts";
import { say, use } from "../../_shared/scripted.ts";
import type { ToolUseBlock } from "../../_shared/types.ts";
import type * as S02 from "../agent.ts";
import {
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

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
    const root = kit.workspace();
    // Any name the map has no handler of its own for: made up, near a real one, or a name every
    // object inherits (a map looked up with handlers[name] finds Object's "constructor").
    const unknownName = fc.oneof(
      fc.constantFrom("teleport", "Bash", "read ", "write_file", "constructor", "toString"),
      fc.constantFrom("__proto__", "hasOwnProperty", "valueOf"),
      fc
        .stringMatching(/^[a-z][a-z_]{0,11}$/)
        .filter((n) => !Object.hasOwn(module.BASE_HANDLERS, n)),
    );
    await forAll(unknownName, async (name) => {
      let outcome: S02.ToolOutcome | undefined;
      try {
        outcome = await module.runTool(module.BASE_HANDLERS, call(name, { command: "ls" }), {
          root,
          sandbox: sandboxFor(root),
        });
      } catch (err) {
        if (err instanceof Error && err.message.startsWith(NOT_STARTED)) throw err;
        expectThat(false, "unknown-tool-threw", { name, error: String(err) });
      }
      expectThat(outcome?.isError === true, "unknown-tool-not-error", {
        name,
        got: JSON.stringify(outcome) ?? "undefined",
      });
      expectThat(
        typeof outcome.output === "string" && outcome.output.includes(name),
        "unknown-tool-unnamed",
        { name, got: String(outcome.output) },
      );
    });
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

/** A generated toolbox: tools that each take { text } and either answer with a text made from
 *  it or throw a message of their own; and a call to one of them (or to a name not there). */
const boxArb = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom("shout", "count", "fail", "echo_twice", "stamp"),
      throws: fc.option(fc.constantFrom("the disk is on fire", "EACCES: no entry", "quota"), {
        nil: undefined,
      }),
    }),
    { minLength: 1, maxLength: 4, selector: (t) => t.name },
  )
  .chain((tools) =>
    fc.record({
      tools: fc.constant(tools),
      name: fc.constantFrom(...tools.map((t) => t.name), "missing_tool"),
      // Inputs that fit: a broken one is input-checked's to judge.
      input: fc.string({ maxLength: 8 }).map((text) => ({ text }) as unknown),
    }),
  );

export const dispatchByName: Check<M> = {
  id: "dispatch-by-name",
  async run(module, kit) {
    const ws = kit.workspace();
    await forAll(boxArb, async ({ tools, name, input }) => {
      const ran: string[] = [];
      const handlers: Record<string, S02.ToolHandler> = { ...module.BASE_HANDLERS };
      for (const t of tools)
        handlers[t.name] = ({ text }) => {
          ran.push(t.name);
          if (t.throws) throw new Error(t.throws);
          return `${t.name}:${String(text)}`;
        };
      const offered = [
        ...module.BASE_TOOLS,
        ...tools.map((t) => ({
          name: t.name,
          input_schema: {
            type: "object" as const,
            properties: { text: { type: "string" } },
            required: ["text"],
          },
        })),
      ];
      const tool = tools.find((t) => t.name === name);
      const values = {
        tools: tools
          .map((t) => (t.throws ? `${t.name} (throws "${t.throws}")` : t.name))
          .join(", "),
        call: `${name} ${JSON.stringify(input)}`,
      };
      let got: S02.ToolOutcome;
      try {
        got = await module.runTool(
          handlers,
          call(name, input),
          { root: ws, sandbox: sandboxFor(ws) },
          offered,
        );
      } catch (err) {
        if (err instanceof Error && err.message.startsWith(NOT_STARTED)) throw err;
        throw new CheckFailure("handler-error-thrown", { ...values, error: String(err) });
      }
      const shown = JSON.stringify(got) ?? "undefined";
      if (!tool) {
        expectThat(got?.isError === true && ran.length === 0, "unknown-tool-not-error", {
          name,
          got: shown,
        });
      } else if (tool.throws) {
        expectThat(
          got?.isError === true &&
            typeof got.output === "string" &&
            got.output.includes(tool.throws.replace(/^E[A-Z]+: /, "")),
          "handler-error-lost",
          { ...values, got: shown },
        );
      } else {
        const text = `${name}:${(input as { text: string }).text}`;
        expectThat(got?.output === text && got.isError === false, "handler-not-run", {
          ...values,
          expected: JSON.stringify({ output: text, isError: false }),
          got: shown,
        });
      }
    });
  },
};

/** Inputs a base tool's schema refuses: a field it does not declare, a required one left out, a
 *  field of the wrong type, no object at all. The handler must never see them. */
const WELL_FORMED: Record<string, Record<string, unknown>> = {
  bash: { command: "touch ran.txt" },
  write: { path: "ran.txt", content: "x" },
  edit: { path: "ran.txt", old_text: "a", new_text: "b" },
  read: { path: "ran.txt" },
};
const brokenCall = fc.constantFrom(...Object.keys(WELL_FORMED)).chain((tool) => {
  const input = WELL_FORMED[tool];
  const fields = Object.keys(input);
  return fc
    .oneof(
      fc
        .constantFrom("path", "cwd", "sudo")
        .map((extra) =>
          Object.hasOwn(input, extra) ? { ...input, cwd: "/" } : { ...input, [extra]: "x" },
        ),
      fc
        .tuple(fc.constantFrom(...fields), fc.constantFrom<unknown>(42, null, ["a"], { t: 1 }))
        .map(([field, value]) => ({ ...input, [field]: value })),
      fc
        .constantFrom(...fields)
        .map((gone) => Object.fromEntries(Object.entries(input).filter(([k]) => k !== gone))),
      fc.constantFrom<unknown>(null, "touch ran.txt", ["touch ran.txt"]),
    )
    .map((broken) => ({ tool, input: broken }));
});

export const inputChecked: Check<M> = {
  id: "input-checked",
  async run(module, kit) {
    const ws = kit.workspace();
    await forAll(brokenCall, async ({ tool, input }) => {
      const seen: string[] = [];
      const spied = Object.fromEntries(
        Object.entries(module.BASE_HANDLERS).map(([name, handler]) => [
          name,
          ((i, ctx) => {
            seen.push(name);
            return handler(i, ctx);
          }) as S02.ToolHandler,
        ]),
      );
      const r = await module.runTool(spied, call(tool, input), {
        root: ws,
        sandbox: sandboxFor(ws),
      });
      expectThat(r?.isError === true && seen.length === 0, "bad-input-ran", {
        input: `${tool} ${JSON.stringify(input)}`,
        got: seen.length ? `${tool}'s handler ran: ${r?.output}` : String(r?.output),
      });
      expectThat(typeof r.output === "string" && r.output.trim() !== "", "bad-input-unexplained", {
        input: `${tool} ${JSON.stringify(input)}`,
        got: JSON.stringify(r.output) ?? "undefined",
      });
      expectThat(!existsSync(path.join(ws, "ran.txt")), "bad-input-ran", {
        input: `${tool} ${JSON.stringify(input)}`,
        got: "ran.txt was created",
      });
    });
  },
};

const HOSTILE = [
  "../escape.txt",
  "a/../../escape.txt",
  "../wsx/escape.txt",
  "/tmp/lah-abs.txt",
  "OUTSIDE/abs.txt",
  "BASE/back-in/f.txt",
  "link-dir/x.txt",
  "link-dir/deeper/x.txt",
  "dangling",
  "~/x.txt",
  "",
];

/** The jail's tree: base/ws (the workspace, with real/f.txt, inner-link → real, link-dir →
 *  base/outside, dangling → base/outside/nothing-here) beside base/outside and base/wsx. */
function tree(kit: CheckKit) {
  const { base, ws, outside } = jailed(kit);
  mkdirSync(path.join(ws, "real"));
  writeFileSync(path.join(ws, "real", "f.txt"), "x");
  symlinkSync(path.join(ws, "real"), path.join(ws, "inner-link"));
  mkdirSync(path.join(base, "wsx"));
  // A link outside the workspace that leads back into it: a path through it names a place
  // outside, so it is refused even though it lands inside.
  symlinkSync(path.join(ws, "real"), path.join(base, "back-in"));
  return { base, ws, outside };
}

/** A path as a model might ask for it: relative, or absolute from the workspace, its parent,
 *  the folder beside it or the one outside; then parts that climb, stay, go into the real folder,
 *  through the link that stays inside, out through the links that leave, or into names that do
 *  not exist yet. */
const pathArb = fc.record({
  from: fc.constantFrom("", "", "", "WS/", "BASE/", "BASE/wsx/", "OUTSIDE/", "BASE/back-in/"),
  parts: fc.array(
    fc.constantFrom("a", "b.txt", "..", ".", "real", "f.txt", "inner-link", "link-dir", "dangling"),
    { minLength: 1, maxLength: 5 },
  ),
});

/** Where a request really leads (the model the jail is checked against): resolved against the
 *  workspace first, then through the tree's links; undefined when that is not inside it. */
function leadsTo(ws: string, outside: string, requested: string): string | undefined {
  const full = path.resolve(ws, requested);
  const inside = (p: string) => p === ws || p.startsWith(ws + path.sep);
  if (!inside(full)) return undefined;
  const [first, ...rest] = path.relative(ws, full).split(path.sep);
  if (first === "link-dir" || first === "dangling") return undefined;
  if (first === "inner-link") return path.join(ws, "real", ...rest);
  return full;
}

/** The jail's rule on generated paths: safePath returns where the path really leads when that
 *  is inside the workspace, and refuses it otherwise; a refused write writes nothing anywhere. */
function jailRule(half: "inside" | "outside"): Check<M>["run"] {
  return async (module, kit) => {
    const { base, ws, outside } = tree(kit);
    const expand = (from: string) =>
      from.replace("WS", ws).replace("BASE", base).replace("OUTSIDE", outside);
    if (half === "outside")
      for (const raw of HOSTILE) {
        const p = raw.replace("OUTSIDE", outside).replace("BASE", base);
        const error = thrown(() => module.safePath(ws, p));
        expectThat(error !== undefined, "escape-allowed", { path: JSON.stringify(p) });
        expectThat(error!.trim() !== "", "escape-unexplained", { path: JSON.stringify(p) });
      }
    await forAll(
      pathArb,
      async ({ from, parts }) => {
        const p = expand(from) + parts.join("/");
        const expected = leadsTo(ws, outside, p);
        if ((expected === undefined) !== (half === "outside")) return;
        let got: string | undefined;
        const error = thrown(() => {
          got = module.safePath(ws, p);
        });
        if (expected === undefined) {
          expectThat(error !== undefined, "escape-allowed", { path: JSON.stringify(p) });
          expectThat(error!.trim() !== "", "escape-unexplained", { path: JSON.stringify(p) });
          const r = await module.runTool(
            module.BASE_HANDLERS,
            call("write", { path: p, content: "pwned" }),
            { root: ws, sandbox: sandboxFor(ws) },
          );
          expectThat(r?.isError === true, "escape-written", { path: JSON.stringify(p) });
        } else {
          expectThat(error === undefined, "inside-refused", { path: p, error: error ?? "" });
          expectThat(got === expected, "inside-wrong-path", {
            path: p,
            got: String(got),
            expected,
          });
        }
      },
      { runs: 60 },
    );
    if (half === "outside") {
      const touched = [
        ...readdirSync(outside),
        ...readdirSync(path.join(base, "wsx")),
        ...readdirSync(base).filter((n) => !["ws", "outside", "wsx", "back-in"].includes(n)),
        ...readdirSync("/tmp").filter((n) => n === "lah-abs.txt"),
      ];
      expectThat(touched.length === 0, "outside-touched", { files: touched.join(", ") });
    }
  };
}

export const jailRefuses: Check<M> = { id: "jail-refuses-escapes", run: jailRule("outside") };

export const jailAllowsInside: Check<M> = { id: "jail-allows-inside", run: jailRule("inside") };

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
