// `npm run chapter <chapter> [-- flags]`: pick a chapter, set up its workspace and model, run the REPL.
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import pc from "picocolors";
import {
  findChapter,
  listAppendices,
  listChapters,
  loadChapter,
  REPO_ROOT,
  type ChapterInfo,
} from "./chapters.ts";
import { createIO } from "./io.ts";
import { chooseModel, realClient } from "./model.ts";
import { LineReader, runRepl } from "./repl.ts";
import { createChapterAgent, createEnv } from "./runtime.ts";
import { sandboxSettings, sandboxStatus } from "../_shared/shell.ts";
import { prepareWorkspace, WorkspaceError } from "./workspace.ts";

const HELP = `Usage: npm run chapter <chapter> [-- options]

  <chapter>          s01, s1, 01, agent-loop or s01-agent-loop;
                     an appendix: a1, mcp or a1-mcp-servers

Options (after "--" when run through npm):
  --list             list the chapters and appendices, and exit
  --offline          use the scripted model even if ANTHROPIC_API_KEY is set
  --demo             send the scenario's prompts one after another, then exit
  --step             pause before every model call and tool run (press Enter to go on)
  --workspace DIR    work in DIR instead of .workspace/<chapter>/
  --reset            empty the workspace first (only one the harness created)
  --allow-network    let the model's commands reach the network (the sandbox blocks it)
  --no-sandbox       run commands without the OS sandbox (the banner says so)
  --debug            print stack traces for errors
  -h, --help         show this help

Environment:
  ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN   use the real model (otherwise the scripted one)
  ANTHROPIC_BASE_URL                         another endpoint (a proxy, a local fake server)
  MODEL_ID                                   the model to use (default: a current Claude model)
  NO_COLOR                                   plain output
A .env file in the repository root is read if present (see .env.example).`;

function chapterList(chapters: ChapterInfo[]): string {
  const line = (c: ChapterInfo) => `  ${c.id.padEnd(3)}  ${c.slug.padEnd(20)} ${c.title}`;
  const appendices = listAppendices();
  return [
    ...chapters.map(line),
    ...(appendices.length ? ["Appendices:", ...appendices.map(line)] : []),
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        list: { type: "boolean" },
        offline: { type: "boolean" },
        demo: { type: "boolean" },
        step: { type: "boolean" },
        workspace: { type: "string" },
        reset: { type: "boolean" },
        "allow-network": { type: "boolean" },
        "no-sandbox": { type: "boolean" },
        debug: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values: flags, positionals } = args;
  const chapters = listChapters();
  if (flags.help) {
    console.log(HELP);
    return 0;
  }
  if (flags.list) {
    console.log(chapterList(chapters));
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`Name one chapter.\n\n${HELP}\n\nChapters:\n${chapterList(chapters)}`);
    return 2;
  }
  const info = findChapter(positionals[0]);
  if (!info) {
    console.error(
      `Unknown chapter "${positionals[0]}". The chapters are:\n${chapterList(chapters)}`,
    );
    return 2;
  }

  const dotenv = path.join(REPO_ROOT, ".env");
  if (existsSync(dotenv)) process.loadEnvFile(dotenv);

  let workspace: string;
  try {
    workspace = prepareWorkspace(flags.workspace ?? path.join(REPO_ROOT, ".workspace", info.id), {
      reset: flags.reset,
      template: path.join(info.dir, "workspace"),
    });
  } catch (err) {
    if (err instanceof WorkspaceError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }

  sandboxSettings.network = Boolean(flags["allow-network"]);
  sandboxSettings.disabled = Boolean(flags["no-sandbox"]);

  const interactive = Boolean(process.stdin.isTTY) && !flags.demo;
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  const c = pc.createColors(color);
  const lines = new LineReader(process.stdin, process.stdout, interactive);
  const stepping = Boolean(flags.step) && interactive;
  const pause = stepping
    ? async (what: string) => {
        await lines.next(c.dim(`⏸ next: ${what} — press Enter `));
      }
    : undefined;
  const askPerson = interactive
    ? async (q: string, choices: string[]) =>
        ((await lines.next(`${c.yellow("?")} ${q} [${choices.join("/")}] `)) ?? "no").trim()
    : undefined;

  const { module, scenario } = await loadChapter(info);
  const choice = chooseModel(process.env, Boolean(flags.offline));
  const io = createIO({ stream: process.stdout, color, pause });
  const env = createEnv({
    workspace,
    io,
    pause,
    askPerson,
    modelId: choice.modelId,
    ...(choice.offline ? { scenario } : { client: await realClient(process.env) }),
  });
  const agent = createChapterAgent(module, env, scenario);

  const rel = path.relative(process.cwd(), workspace) || ".";
  console.log(c.bold(`learn-agent-harness · ${info.id} · ${info.title}`));
  console.log(
    choice.offline
      ? `${c.yellow("model: scripted offline model")} (${choice.reason}). Its replies come from ${path.relative(REPO_ROOT, info.dir)}/scenario.ts; the tools run for real.`
      : `model: ${choice.modelId}${choice.baseURL ? ` at ${choice.baseURL}` : ""} (${choice.reason})`,
  );
  console.log(
    `workspace: ${rel}   tools (${module.TOOLS.length}): ${module.TOOLS.map((t) => t.name).join(", ")}`,
  );
  const sandbox = sandboxStatus();
  console.log(
    sandbox.kind === "none"
      ? c.yellow(sandbox.summary)
      : c.dim(`${sandbox.summary}; ${sandboxSettings.network ? "network allowed" : "no network"}`),
  );
  if (flags.step && !stepping)
    console.log(c.dim("--step needs an interactive terminal; running without pauses."));
  if (choice.offline) console.log(c.dim(`scenario: ${scenario.summary}`));
  if (interactive) {
    console.log(
      c.dim(
        choice.offline
          ? `Press Enter to send the scenario's next prompt ("${scenario.prompts[0]}"), /help for commands, q to quit.`
          : "Type a request, /help for commands, q to quit.",
      ),
    );
  }

  return runRepl({
    agent,
    tools: module.TOOLS,
    scenario,
    offline: choice.offline,
    modelId: choice.modelId,
    interactive,
    debug: Boolean(flags.debug),
    color,
    lines,
    demo: Boolean(flags.demo),
  });
}

// `npm run chapter s01 | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`learn-agent-harness: ${err instanceof Error ? err.message : String(err)}`);
    if (process.argv.includes("--debug")) console.error(err);
    process.exit(1);
  },
);
