// @ts-check
// `npm run chapter <chapter> [-- flags]`: read the command line, name the chapter, then run it.
//
// Plain JavaScript, so that Node starts it directly: Node 20 cannot run TypeScript by itself,
// and the loader that teaches it (tsx) takes about 0.2 s to start. This file answers --help,
// --list and mistakes at once and prints the chapter's title line; only then does it register
// tsx and hand the chapter to run.ts.
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import pc from "picocolors";
import { findChapter, listAppendices, listChapters } from "./discovery.js";
import { oneLine, visible } from "../_shared/visible.js";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

const HELP = `Usage: npm run chapter <chapter> [-- options]

  <chapter>          s01, s1, 01, agent-loop or s01-agent-loop;
                     an appendix: a1, mcp or a1-mcp-servers

Options (after "--" when run through npm):
  --list             list the chapters and appendices, and exit
  --offline          use the scripted model even if ANTHROPIC_API_KEY is set
  --provider NAME    anthropic (the Messages API) or openai (chat completions), when
                     both kinds of credential are set
  --demo             send the scenario's prompts one after another, then exit
  --step             pause before every model call and tool run (press Enter to go on)
                     offline, --step and --demo print the scenario's step notes
  --lang LANG        the notes' language: en, ja, zh or de (default: from LANG, else en)
  --mine             run your own copy of the lesson (workbench/, from npm run exercise)
  --record FILE      write the run to FILE as it happens (JSON Lines), to open in the
                     site's player ("Open a recording…")
  --workspace DIR    work in DIR instead of .workspace/<chapter>/
Sessions (a5 only; use npm run -s so that npm prints nothing of its own):
  -p, --print PROMPT run PROMPT headless and exit (0 done, 1 model error, 2 bad options)
  --output-format F  with -p: text (default), json, or stream-json (one recording line each)
  --permission-mode M  default (questions refused headless), plan, or auto
  --resume ID        continue session ID (its log in the state folder)
  --fork ID          start a new session from session ID; --at N keeps its first N prompts
Goals (a7 only):
  --goal CONDITION   check CONDITION each time the model stops and send the gap back until it
                     holds or a budget is spent: a command (exit 0 = met) or judge: <text>;
                     with -p the exit code is 0 met, 3 not met; flags first and
                     with "=": --goal="--rounds 3 npm test"
  --reset            empty the workspace first (only one the harness created)
  --allow-network    let the model's commands reach the network (the sandbox blocks it)
  --no-sandbox       run commands without the OS sandbox (the banner says so)
  --debug            print stack traces for errors
  -h, --help         show this help

Environment:
  ANTHROPIC_API_KEY                          use the real model (otherwise the scripted one)
  ANTHROPIC_AUTH_TOKEN                       the same, with a token sent as Authorization: Bearer
  ANTHROPIC_BASE_URL                         another endpoint speaking the Messages API (a proxy,
                                             a gateway, a local server)
  MODEL_ID                                   the model to use (default: a current Claude model)
  OPENAI_API_KEY, OPENAI_BASE_URL            speak OpenAI's chat completions instead, to OpenAI
                                             or a compatible server (LM Studio, vLLM, Gemini's
                                             compatible endpoint); MODEL_ID is then required
  NO_COLOR                                   plain output
With a real model, answers stream as they come, each call prints its token counts, and the
/usage command shows the session's tokens and estimated cost by agent.
A .env file in the repository root is read if present (see .env.example).`;

/** @param {import("./discovery.js").ChapterInfo[]} chapters */
function chapterList(chapters) {
  /** @param {import("./discovery.js").ChapterInfo} c */
  const line = (c) => `  ${c.id.padEnd(3)}  ${c.slug.padEnd(20)} ${c.title}`;
  const appendices = listAppendices();
  return [
    ...chapters.map(line),
    ...(appendices.length ? ["From a toy to a tool:", ...appendices.map(line)] : []),
  ].join("\n");
}

/** @param {string[]} argv */
async function main(argv) {
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
        lang: { type: "string" },
        workspace: { type: "string" },
        reset: { type: "boolean" },
        "allow-network": { type: "boolean" },
        "no-sandbox": { type: "boolean" },
        debug: { type: "boolean" },
        mine: { type: "boolean" },
        record: { type: "string" },
        provider: { type: "string" },
        print: { type: "string", short: "p" },
        "output-format": { type: "string" },
        "permission-mode": { type: "string" },
        resume: { type: "string" },
        fork: { type: "string" },
        at: { type: "string" },
        goal: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    console.error(`${/** @type {Error} */ (err).message}\n\n${HELP}`);
    return 2;
  }
  const { values: flags, positionals } = args;
  if (flags.help) {
    console.log(HELP);
    return 0;
  }
  if (flags.list) {
    console.log(chapterList(listChapters()));
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`Name one chapter.\n\n${HELP}\n\nChapters:\n${chapterList(listChapters())}`);
    return 2;
  }
  if (flags.provider !== undefined && !["anthropic", "openai"].includes(flags.provider)) {
    console.error(`Unknown provider "${flags.provider}": use anthropic or openai.`);
    return 2;
  }
  const info = findChapter(positionals[0]);
  if (!info) {
    console.error(
      `Unknown chapter "${positionals[0]}". The chapters are:\n${chapterList(listChapters())}`,
    );
    return 2;
  }

  const dotenv = path.join(REPO_ROOT, ".env");
  if (existsSync(dotenv)) process.loadEnvFile(dotenv);
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  // Headless, stdout is the answer alone (a pipe into jq): the title goes nowhere.
  if (flags.print === undefined)
    console.log(pc.createColors(color).bold(`learn-agent-harness · ${info.id} · ${info.title}`));

  // The chapter is TypeScript from here on.
  const { register } = await import("tsx/esm/api");
  register();
  const { runChapter } = await import("./run.ts");
  return runChapter(info, {
    ...flags,
    provider: /** @type {"anthropic" | "openai" | undefined} */ (flags.provider),
    workspace: flags.workspace ?? path.join(REPO_ROOT, ".workspace", info.id),
    color,
  });
}

// `npm run chapter s01 | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on("error", (/** @type {NodeJS.ErrnoException} */ err) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    // The message may quote a file or a server (a JSON parser quotes the text it choked on).
    console.error(
      `learn-agent-harness: ${oneLine(err instanceof Error ? err.message : String(err))}`,
    );
    if (process.argv.includes("--debug")) console.error(visible(String(err?.stack ?? err)));
    process.exit(1);
  },
);
