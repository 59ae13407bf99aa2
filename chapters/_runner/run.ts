// Running the chapter cli.js has chosen: its workspace, its model (real or scripted), the rest of
// the banner, then the REPL.
import { realpathSync } from "node:fs";
import path from "node:path";
import pc from "picocolors";
import { loadChapter, REPO_ROOT, type ChapterInfo } from "./chapters.ts";
import { createIO, type Printer } from "./printer.ts";
import type { StatusLine } from "./status.ts";
import type { startRecording } from "./recording.ts";
import { stateDirFor } from "../_shared/paths.ts";
import type { TokenUsage, TraceEvent } from "../_trace/contract.ts";
import { costOf } from "./usage.ts";
import { notesFor, terminalLocale } from "./notes-files.ts";
import { chooseModel, type Provider, realClient } from "./model.ts";
import { openaiClient } from "./openai-client.ts";
import { LineReader, runRepl } from "./repl.ts";
import { createChapterAgent, createEnv, type Env } from "./runtime.ts";
import { liveCommands, sandboxFor, sandboxStatus } from "../_shared/shell.ts";
import { oneLine } from "../_shared/visible.js";
import { madeByHarness, prepareWorkspace, WorkspaceError } from "./workspace.ts";

/** The command line's flags (see cli.js), the workspace resolved, and whether to use colour. */
export interface RunFlags {
  offline?: boolean;
  demo?: boolean;
  step?: boolean;
  /** The step notes' language (--lang); else LANG, else English. */
  lang?: string;
  workspace: string;
  reset?: boolean;
  "allow-network"?: boolean;
  "no-sandbox"?: boolean;
  debug?: boolean;
  /** Run the learner's own copy of the lesson (workbench/, from `npm run exercise`). */
  mine?: boolean;
  /** Write the run to this file as it happens (recording.ts). */
  record?: string;
  /** Which wire format to speak to the real model in (model.ts chooseModel). */
  provider?: Provider;
  /** a5's sessions: a headless prompt, its output format, the permission mode, and the session
   *  to resume or fork (at a prompt). Chapters that export runHeadless take them. */
  print?: string;
  "output-format"?: string;
  "permission-mode"?: string;
  resume?: string;
  fork?: string;
  at?: string;
  /** a7's goal: checked each time the model stops (chapters that export parseGoal take it). */
  goal?: string;
  color: boolean;
}

/** Runs `info` until the reader quits (or, with --demo, until the scenario is played); returns
 *  the exit code. */
export async function runChapter(info: ChapterInfo, flags: RunFlags): Promise<number> {
  let locale;
  try {
    locale = terminalLocale(flags.lang, process.env);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  let workspace: string;
  try {
    workspace = prepareWorkspace(flags.workspace, {
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

  const sandbox = sandboxFor(workspace, {
    network: Boolean(flags["allow-network"]),
    disabled: Boolean(flags["no-sandbox"]),
  });

  const interactive = Boolean(process.stdin.isTTY) && !flags.demo;
  const color = flags.color;
  const c = pc.createColors(color);
  const lines = new LineReader(process.stdin, process.stdout, interactive);
  const stepping = Boolean(flags.step) && interactive;
  // Who waits for a real model, on a terminal (status.ts). A question or a pause has the screen
  // to itself (the printer holds everything else back, the status line too).
  let status: StatusLine | undefined;
  let printer: Printer | undefined;
  const held = <T>(work: () => Promise<T>) => (printer ? printer.hold(work) : work());
  const pause = stepping
    ? async (what: string) => {
        await held(() => lines.next(c.dim(`⏸ next: ${oneLine(what)} — press Enter `)));
      }
    : undefined;
  // A question names what the model asked for (a command, a config's values): they are shown on
  // one line. Readline draws it from the line's first column; the attributes are reset first, so
  // nothing printed before (model text cannot start a line there, see io.ts) can fake or hide it.
  const reset = process.stdout.isTTY ? "\x1b[0m" : "";
  // It is also shown whole, on the terminal it is asked on (question.ts): blank and invisible
  // runs counted, and what does not fit named, so no padding can push its start off the screen.
  const askPerson = interactive
    ? async (q: string, choices: string[]) => {
        const { fitted, questionRoom } = await import("./question.ts");
        const answers = `[${choices.join("/")}]`;
        const room = questionRoom(process.stdout.columns, process.stdout.rows) - answers.length - 3;
        const question = `${reset}${c.yellow("?")} ${fitted(q, room)} ${answers} `;
        return ((await held(() => lines.ask(question))) ?? "no").trim();
      }
    : undefined;

  // Loaded only for --mine: the workbench (where a learner's copies are) is no chapter's business.
  const mine = flags.mine
    ? (await import("../_exercises/workbench.ts")).latestCopy(info)
    : undefined;
  if (flags.mine && !mine) {
    console.error(`You have no copy of ${info.id} yet: start one with npm run exercise ${info.id}`);
    return 2;
  }
  const { module, scenario } = await loadChapter(info, mine);
  const sessionFlags = sessionOptions(flags);
  if (flags.goal !== undefined && !("parseGoal" in module)) {
    console.error(`${info.id} has no goals: --goal is a7's (npm run chapter a7)`);
    return 2;
  }
  if (sessionFlags && !isSessionChapter(module)) {
    console.error(
      `${info.id} keeps no sessions: -p, --resume, --fork and their options are a5's (npm run chapter a5)`,
    );
    return 2;
  }
  if (flags.print !== undefined && isSessionChapter(module)) {
    const choice = chooseModel(process.env, Boolean(flags.offline));
    const env = createEnv({
      workspace,
      sandbox,
      scriptedAnswers: false,
      modelId: choice.modelId,
      ...(choice.offline ? { scenario } : { client: await realClient(process.env) }),
    });
    // No banner here (stdout is the answer), but a run without a sandbox still says so.
    const walls = sandboxStatus(sandbox);
    if (walls.kind === "none") console.error(walls.summary);
    return module.runHeadless(
      env,
      {
        prompt: flags.print,
        outputFormat: flags["output-format"] as never,
        ...sessionFlags,
        // a7's --dollars: the price table is the runner's; a lesson only gets the function.
        ...(!choice.offline && { price: (usage: TokenUsage) => costOf(choice.modelId, usage) }),
      },
      (text) => process.stdout.write(text),
      (text) => console.error(text),
    );
  }
  if (mine) console.log(c.cyan(`code: your copy, ${path.relative(process.cwd(), mine)}`));
  const choice = chooseModel(process.env, Boolean(flags.offline), flags.provider);
  if (choice.problem) {
    console.error(choice.problem);
    return 2;
  }
  // The notes explain the scripted run; a real model's run is its own, so they stay quiet there.
  const teaching = choice.offline && (flags.step || flags.demo);
  const notes = teaching ? notesFor(info.dir, locale) : undefined;
  let recording: ReturnType<typeof startRecording> | undefined;
  if (flags.record) {
    // Loaded only here: the trace contract's schemas (zod) are a quarter of the runner's start.
    const { startRecording } = await import("./recording.ts");
    try {
      recording = startRecording(
        path.resolve(flags.record),
        {
          chapter: info.id,
          name: info.name,
          title: info.title,
          model: choice.offline ? "scripted" : choice.modelId,
          ...(choice.offline && { prompts: scenario.prompts, summary: scenario.summary }),
        },
        [workspace, realpathSync(workspace)],
        stateDirFor(workspace),
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === "ENOENT"
          ? "its folder does not exist"
          : code === "EISDIR"
            ? "it is a folder"
            : (err as Error).message;
      console.error(`Cannot record to ${flags.record}: ${why}.`);
      return 2;
    }
  }
  // The banner names the chapter's TOOLS; some exist only at run time (appendix A's MCP servers
  // add theirs when they start). When the lead is offered another list, one line says so.
  let announced = module.TOOLS.map((t) => t.name).join(", ");
  const announceTools = (step: TraceEvent) => {
    if (step.kind !== "request" || step.agent !== "lead") return;
    const offered = step.tools.join(", ");
    if (offered === announced) return;
    announced = offered;
    console.log(`tools now (${step.tools.length}): ${oneLine(offered)}`);
  };
  // Loaded only here: it measures text in terminal columns (string-width), which an offline run
  // has no use for at start-up.
  if (!choice.offline && process.stdout.isTTY) {
    const { StatusLine } = await import("./status.ts");
    status = new StatusLine(
      process.stdout,
      c.dim,
      process.stderr.isTTY ? [process.stderr] : [],
      liveCommands,
    );
  }
  const io = (printer = createIO({
    stream: process.stdout,
    color,
    pause,
    notes,
    realUsage: !choice.offline,
    onStep(step) {
      recording?.write(step);
      announceTools(step);
    },
    // A recording of the chapter's own code says where each step was taken (the site shows it);
    // a learner's copy is not code the site has.
    where:
      recording && !mine
        ? (await import("./code-spots.ts")).codeSpotter(path.basename(info.dir))
        : undefined,
    status,
    wrap: process.stdout.isTTY
      ? { columns: () => process.stdout.columns, ...(await import("./wrap.ts")) }
      : undefined,
  }));
  const env = createEnv({
    workspace,
    sandbox,
    io,
    pause,
    askPerson,
    scriptedAnswers: madeByHarness(workspace), // see the banner below
    modelId: choice.modelId,
    ...(choice.offline
      ? { scenario }
      : {
          client:
            choice.provider === "openai"
              ? await openaiClient(process.env)
              : await realClient(process.env),
        }),
  });
  let agent;
  try {
    agent = createChapterAgent(module, env, scenario, sessionFlags);
  } catch (err) {
    if (!["SessionError", "GoalError"].includes((err as Error).name)) throw err;
    console.error((err as Error).message);
    return 2;
  }

  const rel = path.relative(process.cwd(), workspace) || ".";
  console.log(
    choice.offline
      ? `${c.yellow("model: scripted offline model")} (${choice.reason}). Its replies come from ${path.relative(REPO_ROOT, info.dir)}/scenario.ts; the tools run for real.`
      : `model: ${choice.modelId} over ${choice.provider === "openai" ? "chat completions (OpenAI-compatible)" : "the Messages API"} at ${choice.baseURL ?? (choice.provider === "openai" ? "api.openai.com" : "api.anthropic.com")} (${choice.reason})`,
  );
  console.log(
    `workspace: ${rel}   tools (${module.TOOLS.length}): ${module.TOOLS.map((t) => t.name).join(", ")}`,
  );
  const walls = sandboxStatus(sandbox);
  console.log(
    walls.kind === "none"
      ? c.yellow(walls.summary)
      : c.dim(`${walls.summary}; ${sandbox.network ? "network allowed" : "no network"}`),
  );
  if (flags.step && !stepping)
    console.log(c.dim("--step needs an interactive terminal; running without pauses."));
  if (choice.offline) console.log(c.dim(`scenario: ${scenario.summary}`));
  if (flags.record)
    console.log(
      c.dim(`recording to ${flags.record}: open it on the site with "Open a recording…"`),
    );
  if (choice.offline && !madeByHarness(workspace))
    console.log(
      c.yellow(
        `${rel} is a folder of yours, not a scratch workspace: the scenario's scripted answers are not used, so its questions are ${interactive ? "asked of you" : 'answered "no"'}.`,
      ),
    );
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
    provider: choice.provider,
    interactive,
    debug: Boolean(flags.debug),
    color,
    lines,
    demo: Boolean(flags.demo),
    io,
    usage: io.usage,
  });
}

/** A chapter that keeps sessions (a5) exports how to run one prompt headless. */
interface SessionChapter {
  runHeadless(
    env: Env,
    options: { prompt: string; outputFormat?: never } & Record<string, unknown>,
    out: (text: string) => void,
    err: (text: string) => void,
  ): Promise<number>;
}
const isSessionChapter = (module: object): module is SessionChapter => "runHeadless" in module;

/** The session flags given, as a5's createAgent takes them; undefined when none is. */
function sessionOptions(flags: RunFlags): Record<string, unknown> | undefined {
  const options = {
    ...(flags.resume !== undefined && { resume: flags.resume }),
    ...(flags.fork !== undefined && { fork: flags.fork }),
    ...(flags.at !== undefined && { at: Number(flags.at) }),
    ...(flags["permission-mode"] !== undefined && { permissionMode: flags["permission-mode"] }),
    ...(flags.goal !== undefined && { goal: flags.goal }),
  };
  const headlessOnly = flags["output-format"] !== undefined && flags.print === undefined;
  return Object.keys(options).length || flags.print !== undefined || headlessOnly
    ? options
    : undefined;
}
