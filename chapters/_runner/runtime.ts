// Putting an AgentEnv together: model (real or scripted), IO, workspace, and how to ask the user.
import { createIO } from "./printer.ts";
import { recordModel } from "./recorded-model.ts";
import type { Recorder } from "./recorder.ts";
import { DEFAULT_MODEL } from "./model.ts";
import { stateDirFor } from "../_shared/paths.ts";
import { holding, sandboxFor, type Sandbox } from "../_shared/shell.ts";
import { ScriptedModel } from "./scripted-model.ts";
import type { Agent, AgentEnv, ChapterModule, ModelClient, Scenario } from "../_shared/types.ts";

export interface EnvOptions {
  workspace: string;
  /** Defaults to the folder beside the workspace (see stateDirFor). */
  stateDir?: string;
  /** Defaults to a sandbox on, without network, for the workspace. */
  sandbox?: Sandbox;
  modelId?: string;
  /** Scripted turns: if given, the run is offline. */
  /** Offline, whether the scenario's answers answer the questions (false in a folder the harness
   *  did not make: the person is asked, or the answer is "no"). */
  scriptedAnswers?: boolean;
  scenario?: Pick<Scenario, "script" | "answers">;
  /** A real (or fake-server) client; used when no scenario is given. */
  client?: ModelClient;
  io?: Recorder;
  pause?: (what: string) => Promise<void>;
  /** How to ask a real person; offline runs answer from the scenario instead. */
  askPerson?: (question: string, choices: string[]) => Promise<string>;
}

export interface Env extends AgentEnv {
  io: Recorder;
  /** Present when the run is offline. */
  scripted?: ScriptedModel;
}

export function createEnv(opts: EnvOptions): Env {
  const io = opts.io ?? createIO();
  const scripted = opts.scenario ? new ScriptedModel(opts.scenario.script) : undefined;
  const base = (agent: string): ModelClient => {
    if (scripted) return scripted.for(agent);
    if (!opts.client) throw new Error("createEnv needs either a scenario or a client");
    return opts.client;
  };
  const answers = [...(opts.scenario?.answers ?? [])];
  // The scenario's answers were written for its own scratch workspace. In a folder of yours they
  // could say yes to a question the scenario never meant (your repository's hooks): you answer.
  const scriptedAnswers = scripted && opts.scriptedAnswers !== false;
  return holding<Omit<Env, "sandbox">>(
    {
      io,
      scripted,
      workspace: opts.workspace,
      stateDir: opts.stateDir ?? stateDirFor(opts.workspace),
      modelId: opts.modelId ?? DEFAULT_MODEL,
      model: recordModel(base("lead"), "lead", io, opts.pause),
      modelFor: (agent) => recordModel(base(agent), agent, io, opts.pause),
      async ask(question, choices) {
        if (scriptedAnswers) {
          // Out of scripted answers: the cautious one.
          const answer = answers.shift() ?? (choices.includes("no") ? "no" : (choices[0] ?? "no"));
          io.note(`${question} → scripted answer: ${answer}`);
          return answer;
        }
        if (opts.askPerson) return opts.askPerson(question, choices);
        io.note(`${question} → no one to ask, answering "no"`);
        return "no";
      },
    },
    opts.sandbox ?? sandboxFor(opts.workspace),
  );
}

/** The chapter's agent for `env`. An offline run also gets the scenario's `agentOptions` (s14's
 *  demo waits less); a run against a real API gets the chapter's own defaults. */
export function createChapterAgent(
  chapter: ChapterModule,
  env: Env,
  scenario: Scenario,
  /** Options from the command line (a5's --resume, --fork), over the scenario's. */
  extra?: object,
): Agent {
  const options = env.scripted ? { ...scenario.agentOptions, ...extra } : extra;
  return options ? chapter.createAgent(env, options) : chapter.createAgent(env);
}

/** A scenario step such as "/rewind 2 code", when it names one of the chapter's commands: run it. */
export function commandLine(agent: Agent, line: string): (() => Promise<string>) | undefined {
  const [name, ...rest] = line.trim().split(/\s+/);
  const command = line.startsWith("/") ? agent.commands?.[name] : undefined;
  return command && (async () => command.run(rest.join(" ")));
}

/** Plays a chapter's whole scenario offline, as `npm run chapter sNN -- --demo` does.
 *  Tests and the site's recorded traces both use it. */
export async function playScenario(
  chapter: ChapterModule,
  scenario: Scenario,
  workspace: string,
  io?: Recorder,
): Promise<{ env: Env; agent: Agent }> {
  const env = createEnv({ workspace, scenario, io });
  const agent = createChapterAgent(chapter, env, scenario);
  for (const prompt of scenario.prompts) {
    const command = commandLine(agent, prompt);
    if (command) {
      // A step that is one of the chapter's commands (a4's /rewind): the command typed, then
      // what it did (its events) and what it answered, as notes.
      env.io.note(prompt);
      env.io.note(await command());
      continue;
    }
    env.io.user(prompt);
    await agent.send(prompt);
  }
  await agent.close?.();
  return { env, agent };
}
