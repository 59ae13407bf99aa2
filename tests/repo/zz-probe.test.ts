import { existsSync, rmSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "vitest";
import { runCommand } from "../../chapters/_shared/shell.ts";
import * as s07 from "../../chapters/s07-permission-system/agent.ts";
import { scriptedEnv, tempDir } from "../support/helpers.ts";
it("probe", async () => {
  const cmds = readFileSync("/tmp/doorsexp/probe.txt", "utf8").split("\n@@\n").filter(Boolean);
  for (const command of cmds) {
    const cwd = tempDir("lah-probe-");
    await runCommand(command, { cwd, timeoutMs: 5000 });
    const ran = existsSync(path.join(cwd, "P"));
    rmSync(cwd, { recursive: true, force: true });
    const env = scriptedEnv([]);
    const r = await s07.checkPermission(env, { mode: "auto", allow: [], deny: [{ tool: "bash", pattern: "touch*" }] }, { type: "tool_use", id: "x", name: "bash", input: { command } } as never);
    const flag = ran && r === null ? "OPEN " : ran ? "held " : "-    ";
    console.log(flag + JSON.stringify(command));
  }
}, 120000);
