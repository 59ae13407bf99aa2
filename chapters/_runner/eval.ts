// `npm run eval`: the harnesses × the tasks × the trials, then the numbers. Plumbing around
// chapter a6 (chapters/a6-evals/agent.ts): the environment of each run (the Stage: a scripted or
// real client, a recorder that counts tokens), the arguments, the progress bar, the files.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { createIO } from "./printer.ts";
import { recordModel } from "./recorded-model.ts";
import { chooseModel, realClient } from "./model.ts";
import { createEnv } from "./runtime.ts";
import { costOf } from "./usage.ts";
import { REPO_ROOT } from "../_shared/paths.ts";
import { sandboxFor, sandboxStatus } from "../_shared/shell.ts";
import {
  DEFAULT_HARNESSES,
  HARNESS_NAMES,
  type ModelSource,
  type RunRecord,
  renderTable,
  resultsFile,
  runEval,
  type Stage,
  summarize,
} from "../a6-evals/agent.ts";
import { type Cassette, readCassette } from "../a6-evals/replay.ts";
import { wilson } from "../a6-evals/stats.ts";

/** Each run's environment, as the chapters' runner builds one: the scripted model playing the
 *  task's script, or the given clients, each wrapped so every answer lands in a silent recorder
 *  (its token counts are what the eval adds up: the API's, or the scripted model's estimates). */
export const STAGE: Stage = {
  envFor({ workspace, modelId, script, client }) {
    const io = createIO({ realUsage: true });
    const answers = () =>
      io.trace.flatMap((step) => (step.kind === "response" ? [{ usage: step.usage }] : []));
    if (script) return { env: createEnv({ workspace, io, scenario: { script } }), answers };
    if (!client) throw new Error("a run needs a script or a client");
    const env = createEnv({ workspace, io, modelId, client: client("lead") });
    env.model = recordModel(client("lead"), "lead", io);
    env.modelFor = (agent) => recordModel(client(agent), agent, io);
    return { env, answers };
  },
  costOf,
};

const HELP = `npm run eval -- [options]

  --harness LIST   harnesses to run, comma-separated: ${HARNESS_NAMES.join(", ")}, and the
                   contestants oracle (applies the reference solution) and null (does nothing)
                   (default: ${DEFAULT_HARNESSES.join(",")})
  --tasks LIST     task ids, comma-separated, or all (default: all)
  --trials N       runs per harness and task (default: 1); pass@k and pass^k use k = N
  --seed N         seed of the bootstrap intervals (default: 1)
  --out FILE       the results file (default: .workspace/eval/results.json)
  --offline        the scripted model, even if a key is set
  --record DIR     with a key: write each run's requests and answers to DIR (default:
                   .workspace/eval/recordings)
  --replay DIR     answer from the recordings in DIR: no key, no network
  --parallel N     runs at once (default: the number of cores)
  -h, --help       this text

Without a key (or with --offline) each harness plays the tasks' scripted runs: the tools run for
real and the verifier judges the files. With ANTHROPIC_API_KEY set, a real model plays them.`;

const pct = (x: number) => `${Math.round(x * 100)} %`;

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      harness: { type: "string", default: DEFAULT_HARNESSES.join(",") },
      tasks: { type: "string", default: "all" },
      trials: { type: "string", default: "1" },
      seed: { type: "string", default: "1" },
      out: { type: "string", default: path.join(REPO_ROOT, ".workspace", "eval", "results.json") },
      offline: { type: "boolean", default: false },
      record: { type: "string" },
      replay: { type: "string" },
      parallel: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  const whole = (name: string, text: string | undefined, min: number) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} must be a whole number ≥ ${min}, not "${text}"`);
    return n;
  };
  return {
    ...values,
    trials: whole("trials", values.trials, 1)!,
    seed: whole("seed", values.seed, 0)!,
    parallel: whole("parallel", values.parallel, 1),
    harnesses: values.harness.split(",").map((h) => h.trim()),
  };
}

const cassetteFile = (dir: string, harness: string, task: string, trial: number) =>
  path.join(dir, harness, task, `trial-${trial}.json`);

/** A progress bar on a terminal; nothing when the output goes to a file or a pipe. */
function progress(stream: NodeJS.WriteStream) {
  if (!stream.isTTY) return () => {};
  return (record: RunRecord, done: number, total: number) => {
    const width = 24;
    const filled = Math.round((done / total) * width);
    const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
    const mark = record.passed ? "✓" : "✗";
    stream.write(
      `\r\x1b[2K[${bar}] ${done}/${total}  ${mark} ${record.harness} ${record.task}`.slice(0, 120),
    );
    if (done === total) stream.write("\n");
  };
}

async function main(argv: string[]): Promise<number> {
  const options = parse(argv);
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  const choice = chooseModel(process.env, options.offline || Boolean(options.replay));
  let mode: ModelSource["kind"] = "scripted";
  let source: (harness: string, task: string, trial: number) => ModelSource = () => ({
    kind: "scripted",
  });
  const recorded: { file: string; cassette: Cassette }[] = [];
  if (options.replay) {
    const dir = options.replay;
    mode = "replay";
    source = (harness, task, trial) => {
      const file = cassetteFile(dir, harness, task, trial);
      if (!existsSync(file))
        throw new Error(`no recording of ${harness} on ${task}, trial ${trial}: ${file}`);
      const cassette = readCassette(file);
      return { kind: "replay", cassette, modelId: cassette.model };
    };
  } else if (!choice.offline) {
    mode = "real";
    const client = await realClient(process.env);
    const dir = options.record ?? path.join(REPO_ROOT, ".workspace", "eval", "recordings");
    source = (harness, task, trial) => {
      const cassette: Cassette = {
        version: 1,
        harness,
        task,
        trial,
        model: choice.modelId,
        calls: [],
      };
      recorded.push({ file: cassetteFile(dir, harness, task, trial), cassette });
      return { kind: "real", client, modelId: choice.modelId, cassette };
    };
  }
  const model = choice.modelId;
  console.error(
    `eval: ${options.harnesses.join(", ")} × tasks ${options.tasks} × ${options.trials} trial(s); ` +
      `model: ${mode === "scripted" ? `scripted (${choice.reason})` : `${model} (${mode})`}; ` +
      sandboxStatus(sandboxFor(REPO_ROOT)).summary,
  );
  const records = await runEval({
    stage: STAGE,
    harnesses: options.harnesses,
    tasks: options.tasks,
    trials: options.trials,
    seed: options.seed,
    parallel: options.parallel,
    source,
    onRun: progress(process.stderr),
  });

  for (const { file, cassette } of recorded) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(cassette, null, 2)}\n`);
  }
  mkdirSync(path.dirname(options.out), { recursive: true });
  writeFileSync(
    options.out,
    resultsFile(records, { seed: options.seed, trials: options.trials, mode, model }, costOf),
  );
  // What differs from run to run (times, the verifiers' output) goes beside it, not in it.
  const timings = records.map(({ harness, task, trial, ms, passed, verifierOutput, error }) => ({
    harness,
    task,
    trial,
    ms,
    ...(passed ? {} : { verifierOutput }),
    ...(error ? { error } : {}),
  }));
  writeFileSync(
    options.out.replace(/(\.json)?$/, ".timings.json"),
    JSON.stringify(timings, null, 2),
  );

  console.log(renderTable(records));
  console.log("");
  const summary = summarize(records, options.seed, model, costOf);
  const k = options.trials;
  for (const s of summary) {
    const seconds = records.filter((r) => r.harness === s.harness).map((r) => r.ms);
    const perTask = seconds.reduce((a, b) => a + b, 0) / seconds.length / 1000;
    console.log(
      `${s.harness.padEnd(7)} pass@1 ${pct(s.pass1.value)} [${pct(s.pass1.low)}–${pct(s.pass1.high)}]` +
        (k > 1
          ? `  pass@${k} ${pct(s.passAtK.value)} [${pct(s.passAtK.low)}–${pct(s.passAtK.high)}]` +
            `  pass^${k} ${pct(s.passHatK.value)} [${pct(s.passHatK.low)}–${pct(s.passHatK.high)}]`
          : "") +
        `  ${s.calls} calls, ${s.tokens} tokens` +
        (s.cost === undefined ? "" : `, $${s.cost.toFixed(4)}`) +
        ` per task${mode === "scripted" ? " (estimated)" : ""}, ${perTask.toFixed(1)} s per run`,
    );
  }
  const tasks = summary[0]?.tasks ?? 0;
  if (tasks) {
    const half = wilson(0.5, tasks);
    console.log(
      `\n[intervals: 95 %; pass@1 Wilson over ${tasks} tasks, pass@k and pass^k a bootstrap over tasks] ` +
        `With ${tasks} tasks a harness at 50 % could truly be anywhere from ${pct(half.low)} to ` +
        `${pct(half.high)}: two harnesses whose intervals overlap are not shown to differ.`,
    );
  }
  const errors = records.filter((r) => r.error);
  for (const r of errors)
    console.error(`note: ${r.harness} on ${r.task} (trial ${r.trial}): ${r.error}`);
  console.error(`results: ${path.relative(process.cwd(), options.out)}`);
  return 0;
}

// Started as `npm run eval`; imported (for STAGE), it does nothing.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`eval: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(2);
    },
  );
