// The chapters, as the runner, the tests and the site use them: discovery (discovery.js, plain
// JavaScript so the command line can use it before the TypeScript loader starts), and loading and
// playing a chapter.
import path from "node:path";
import type { Recorder } from "./recorder.ts";
import { createIO } from "./printer.ts";
import { playScenario } from "./runtime.ts";
import type { ChapterModule, Scenario } from "../_shared/types.ts";
import type { TraceEvent } from "../_trace/contract.ts";
import { prepareWorkspace } from "./workspace.ts";
import type { ChapterInfo } from "./discovery.js";

export { REPO_ROOT } from "../_shared/paths.ts";
export {
  allRunnable,
  CHAPTERS_DIR,
  findChapter,
  frontmatterTitle,
  listAppendices,
  listChapters,
  type ChapterInfo,
} from "./discovery.js";
export { LOCALES, type Locale } from "../../i18n/locales.ts";

/** The chapter's agent.ts and scenario; `agentFile` runs another copy of the lesson (a learner's
 *  own, from workbench/) with the chapter's scenario. */
export async function loadChapter(
  info: ChapterInfo,
  agentFile = path.join(info.dir, "agent.ts"),
): Promise<{ module: ChapterModule; scenario: Scenario }> {
  const module = (await import(agentFile)) as ChapterModule;
  const scenario = ((await import(path.join(info.dir, "scenario.ts"))) as { default: Scenario })
    .default;
  return { module, scenario };
}

/** Plays a chapter's scenario offline in `workspace`, set up as the CLI sets it up (with the
 *  chapter's workspace template), e.g. for the site's recorded traces and the benchmark. */
export async function playChapter(info: ChapterInfo, workspace: string, io?: Recorder) {
  const { module, scenario } = await loadChapter(info);
  prepareWorkspace(workspace, { template: path.join(info.dir, "workspace") });
  return playScenario(module, scenario, workspace, io);
}

/** Plays the chapter's scenario to record it (`npm run traces`): each step says where the
 *  chapter's code took it (code-spots.ts, loaded only here: it brings the TypeScript parser).
 *  `onStep` hears each step as it is kept, as `--record`'s writer does. */
export async function recordChapter(
  info: ChapterInfo,
  workspace: string,
  onStep?: (step: TraceEvent) => void,
) {
  const { codeSpotter } = await import("./code-spots.ts");
  const io = createIO({ where: codeSpotter(path.basename(info.dir)), onStep });
  return playChapter(info, workspace, io);
}
