// The workspace jail under attack: hundreds of hostile paths against every file tool.
// Zero may escape: each is refused (error result) or lands inside the workspace, and nothing
// outside the workspace is read, written or changed.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BASE_HANDLERS, runTool, safePath } from "../../chapters/s02-tool-use/agent.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import { tempDir, toolAt } from "../support/helpers.ts";

const SECRET = "TOP-SECRET-OUTSIDE";

function arena() {
  const base = tempDir("lah-jail-");
  const ws = path.join(base, "ws");
  const outside = path.join(base, "outside");
  mkdirSync(path.join(ws, "sub/deeper"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), SECRET);
  writeFileSync(path.join(ws, "inside.txt"), "inside a b c");
  symlinkSync(outside, path.join(ws, "to-outside"));
  symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "secret-link"));
  symlinkSync(path.join(outside, "not-yet"), path.join(ws, "dangling"));
  symlinkSync("..", path.join(ws, "up"));
  symlinkSync("/", path.join(ws, "root"));
  symlinkSync(outside, path.join(ws, "sub/parent-link"));
  symlinkSync(path.join(ws, "to-outside"), path.join(ws, "chain"));
  symlinkSync("../../outside", path.join(ws, "sub/relative-out"));
  return { base, ws, outside };
}

function hostilePaths(outside: string): string[] {
  const ups = [
    "..",
    "../..",
    "../../..",
    "./..",
    "sub/../..",
    "sub/deeper/../../..",
    "a/b/../../..",
    "./././..",
    "sub/./../../",
  ];
  const targets = [
    "",
    "x.txt",
    "outside/secret.txt",
    "outside/new.txt",
    "etc/passwd",
    "ws-evil/f",
    "outside/",
    "outside/sub/new.txt",
    "outside/../outside/secret.txt",
    ".bashrc",
    "tmp/lah-evil.txt",
    "ws/../outside/secret.txt",
  ];
  const fromUps = ups.flatMap((u) => targets.map((t) => (t ? `${u}/${t}` : u)));
  const absolute = [
    "/",
    "/etc/passwd",
    "/etc/hostname",
    "/tmp/lah-evil.txt",
    "/root/.bashrc",
    "//etc/passwd",
    "/./etc/passwd",
    `${outside}/secret.txt`,
    `${outside}/new.txt`,
    `${outside}/../x.txt`,
    "/proc/self/environ",
    "/dev/null/x",
  ];
  const tilde = ["~", "~/", "~/x.txt", "~root/x", "~/.ssh/id_rsa", "~/../etc/passwd"];
  const nul = ["a\0b", "inside.txt\0.png", "\0", "../\0", "sub/\0/x"];
  const long = [
    "x".repeat(256),
    `${"a/".repeat(600)}x`,
    `sub/${"y".repeat(300)}.txt`,
    "z".repeat(5000),
  ];
  const links = [
    "to-outside",
    "to-outside/secret.txt",
    "to-outside/new.txt",
    "to-outside/sub/new.txt",
    "secret-link",
    "dangling",
    "dangling/x",
    "up/outside/secret.txt",
    "up/x.txt",
    "root/etc/passwd",
    "root/tmp/lah-evil.txt",
    "sub/parent-link/secret.txt",
    "sub/parent-link/new.txt",
    "chain/secret.txt",
    "chain/new.txt",
    "sub/relative-out/secret.txt",
    "sub/relative-out/new.txt",
    "./to-outside/../to-outside/secret.txt",
    "sub/../to-outside/new.txt",
  ];
  const odd = [
    "",
    " ",
    "..\\..\\x.txt",
    "%2e%2e/x.txt",
    "..%2f..%2fx.txt",
    "\u202e..",
    "sub/\n../x",
    "...",
    "..../x",
  ];
  // The same link attacks again with trailing slashes, dot segments and a leading "./".
  const linkVariants = links.flatMap((l) => [`./${l}`, `${l}/`, `${l}/.`]);
  return [
    ...new Set([
      ...fromUps,
      ...absolute,
      ...tilde,
      ...nul,
      ...long,
      ...links,
      ...linkVariants,
      ...odd,
    ]),
  ];
}

/** A path that names something above the workspace or outside it, whatever follows: never writable. */
const goesUp = (p: string) =>
  p === ".." || p.startsWith("../") || p.startsWith("./../") || p.startsWith("/");

const call = (name: string, input: Record<string, unknown>): ToolUseBlock =>
  ({ type: "tool_use", id: `toolu_${name}`, name, input }) as ToolUseBlock;

/** Every file under a folder (not following symlinks) with its size and mtime. */
function snapshot(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort().map((f) => {
    const st = statSync(path.join(dir, f), { throwIfNoEntry: false });
    return `${f}:${st?.size}:${st?.mtimeMs}`;
  });
}

describe("workspace jail", () => {
  it("lets no hostile path escape through write, read, edit or glob", async () => {
    const { base, ws, outside } = arena();
    const paths = hostilePaths(outside);
    const before = snapshot(outside);
    const baseBefore = readdirSync(base).sort();
    const escapes: string[] = [];
    let attempts = 0;
    let refused = 0;

    for (const p of paths) {
      // What does the jail say? Either it refuses, or the real target is inside the workspace.
      let target: string | undefined;
      try {
        target = safePath(ws, p);
      } catch {
        target = undefined;
      }
      if (target !== undefined && !(target === ws || target.startsWith(ws + path.sep)))
        escapes.push(`resolved outside: ${JSON.stringify(p)}`);

      for (const [name, input] of [
        ["write", { path: p, content: "pwned" }],
        ["read", { path: p }],
        ["edit", { path: p, old_text: "a", new_text: "pwned" }],
        ["glob", { pattern: `${p}/*` }],
      ] as const) {
        attempts++;
        const { output, isError } = await runTool(BASE_HANDLERS, call(name, input), toolAt(ws));
        if (output.includes(SECRET) || /root:x:0:0/.test(output))
          escapes.push(`${name} leaked ${JSON.stringify(p)}`);
        if (name !== "write") continue;
        // The write tool goes through the same jail: a path it refuses is refused, and a write that
        // succeeded put "pwned" exactly where the jail said, inside the workspace.
        if (isError) refused++;
        if (target === undefined && !isError)
          escapes.push(`write not refused: ${JSON.stringify(p)}`);
        if (goesUp(p) && !isError)
          escapes.push(`write above the workspace not refused: ${JSON.stringify(p)}`);
        if (!isError && (target === undefined || readFileSync(target, "utf8") !== "pwned"))
          escapes.push(`write went elsewhere: ${JSON.stringify(p)}`);
      }
    }
    expect(escapes).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
    expect(readdirSync(base).sort()).toEqual(baseBefore);
    expect(existsSync("/tmp/lah-evil.txt")).toBe(false);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe(SECRET);
    console.info(
      `jail: ${paths.length} hostile paths × 4 tools = ${attempts} attempts, ${refused} of ${paths.length} writes refused, ` +
        `${escapes.length} escapes`,
    );
  });

  it("still works for ordinary paths, including through a symlink that stays inside", async () => {
    const { ws } = arena();
    symlinkSync(path.join(ws, "sub"), path.join(ws, "sub-alias"));
    const wrote = await runTool(
      BASE_HANDLERS,
      call("write", { path: "sub-alias/ok.txt", content: "fine" }),
      toolAt(ws),
    );
    expect(wrote.isError).toBe(false);
    expect(readFileSync(path.join(ws, "sub/ok.txt"), "utf8")).toBe("fine");
  });
});
