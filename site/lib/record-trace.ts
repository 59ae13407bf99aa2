// Recording a chapter's run: the same scenario `npm run chapter sNN -- --demo` plays, offline,
// in a fresh temporary workspace (playChapter copies in the chapter's workspace/ template, as
// the CLI does).
// Node only: `npm run traces` and tests/traces.test.ts use it; the site reads the JSON files.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type ChapterInfo,
  loadChapter,
  playChapter,
  REPO_ROOT,
} from "../../chapters/_runner/chapters.ts";
import { createIO } from "../../chapters/_runner/io.ts";
import { agentsOf, normalizeTrace, type TraceFile } from "./traces.ts";

export const TRACES_DIR = path.join(REPO_ROOT, "site", "traces");

export const traceFile = (chapterId: string, dir = TRACES_DIR) =>
  path.join(dir, `${chapterId}.json`);

export async function recordTrace(info: ChapterInfo): Promise<TraceFile> {
  const { scenario } = await loadChapter(info);
  const workspace = mkdtempSync(path.join(tmpdir(), `lah-trace-${info.id}-`));
  try {
    const io = createIO();
    await playChapter(info, workspace, io);
    const steps = normalizeTrace(io.trace, [workspace, realpathSync(workspace)]);
    return {
      chapter: info.id,
      name: info.name,
      summary: scenario.summary,
      prompts: scenario.prompts,
      agents: agentsOf(steps),
      steps,
    };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The committed trace of a chapter, or undefined if there is none yet. */
export function readTrace(chapterId: string, dir = TRACES_DIR): TraceFile | undefined {
  const file = traceFile(chapterId, dir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as TraceFile) : undefined;
}

/** How a trace is written: stable key order, two-space indent, trailing newline. */
export const serializeTrace = (trace: TraceFile) => `${JSON.stringify(trace, null, 2)}\n`;
