// How a test tells which sandbox a command ran in, from what the command printed: whether this
// repository is hidden (the sandbox hides it) and whether its network namespace is the host's.
import { readlinkSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import type { MessageParam, ToolResultBlockParam } from "../../chapters/_shared/types.ts";

/** Prints "repo:hidden" or "repo:visible", then its network namespace. */
export const LOOK = `test -e ${path.join(REPO_ROOT, "package.json")} && echo repo:visible || echo repo:hidden; readlink /proc/self/ns/net`;

/** The host's network namespace, as LOOK prints it. */
export const HOST_NET = readlinkSync("/proc/self/ns/net");

/** The text of every tool result in `messages` (not the calls: LOOK's own text names both answers). */
export const resultsIn = (messages: MessageParam[]) =>
  messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b): b is ToolResultBlockParam => b.type === "tool_result")
    .map((b) => JSON.stringify(b.content))
    .join("\n");
