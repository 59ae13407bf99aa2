// Recording a chapter's run: the same scenario `npm run chapter sNN -- --demo` plays, offline,
// in a fresh temporary workspace (playChapter copies in the chapter's workspace/ template, as
// the CLI does), and reading and writing the committed files (the format is chapters/_trace/contract.ts).
// Node only: `npm run traces` and tests/site/traces.test.ts use it; the site reads the JSON files.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import {
  type ChapterInfo,
  loadChapter,
  recordChapter,
  REPO_ROOT,
} from "../../chapters/_runner/chapters.ts";
import { machineSecrets } from "../../chapters/_runner/recording.ts";
import {
  parseTraceFile,
  TRACE_VERSION,
  type TraceEvent,
  type TraceFile,
} from "../../chapters/_trace/contract.ts";
import { stateDirFor } from "../../chapters/_shared/paths.ts";
import type { Tool } from "../../chapters/_shared/types.ts";
import { agentsOf, normalizeTrace } from "./trace-normalize.ts";

export { serializeTrace } from "../../chapters/_trace/contract.ts";

export const TRACES_DIR = path.join(REPO_ROOT, "site", "traces");

export const traceFile = (chapterId: string, dir = TRACES_DIR) =>
  path.join(dir, `${chapterId}.json`);

/** Who listens while a trace is recorded (tests/site/traces.test.ts: one run both compared with
 *  the committed trace and written as `--record` writes it). */
export interface TraceListeners {
  /** Hears the scratch workspace before the run starts in it. */
  playedIn?: (workspace: string) => void;
  /** Hears every step as it is taken, unscrubbed, as run.ts's `--record` writer does. */
  onStep?: (step: TraceEvent) => void;
}

/** Plays the chapter's scenario in a scratch workspace in the OS temp dir (`ls -la` there shows
 *  its parent) and returns its trace; the workspace and the harness's state beside it are removed
 *  again. */
export async function recordTrace(
  info: ChapterInfo,
  { playedIn, onStep }: TraceListeners = {},
): Promise<TraceFile> {
  const { module, scenario } = await loadChapter(info);
  const workspace = mkdtempSync(path.join(tmpdir(), `lah-trace-${info.id}-`));
  playedIn?.(workspace);
  try {
    // Each step says where the chapter's code took it: the player shows that code beside it.
    const { env } = await recordChapter(info, workspace, onStep);
    // The repository's path and the home folder are this machine's: a committed trace names neither.
    const places = machineSecrets([], { repo: REPO_ROOT, home: homedir() });
    const steps = normalizeTrace(env.io.trace, [workspace, realpathSync(workspace)], places);
    // The trace's steps name the tools of each request. A tool the chapter's TOOLS does not list
    // exists only at run time (an MCP server's, in appendix A): keep its definition as the lead's
    // first request sent it, so the site can show it as the model saw it.
    const first = env.scripted?.requests.find((r) => r.agent === "lead");
    const known = new Set(module.TOOLS.map((t) => t.name));
    const offered = (first?.body.tools ?? [])
      .filter((t): t is Tool => "input_schema" in t && !known.has(t.name))
      .map(({ name, description, input_schema }) => ({ name, description, input_schema }));
    return {
      version: TRACE_VERSION,
      chapter: info.id,
      name: info.name,
      summary: scenario.summary,
      prompts: scenario.prompts,
      agents: agentsOf(steps),
      ...(offered.length ? { offered } : {}),
      steps,
    };
  } finally {
    for (const made of [workspace, stateDirFor(workspace)])
      rmSync(made, { recursive: true, force: true });
  }
}

/** The committed trace of a chapter, or undefined if there is none yet; one of version 2 is
 *  upgraded as it is read, one of another version is an error (parseTraceFile). */
export function readTrace(chapterId: string, dir = TRACES_DIR): TraceFile | undefined {
  const file = traceFile(chapterId, dir);
  return existsSync(file)
    ? parseTraceFile(readFileSync(file, "utf8"), path.relative(REPO_ROOT, file))
    : undefined;
}
