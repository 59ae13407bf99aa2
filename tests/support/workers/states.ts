// The states the crash test's writer writes, version by version. The worker and the test both
// build them from here, so the test can tell exactly which version a file on disk holds.
import type { Lane } from "../../../chapters/s12-worktree-isolation/agent.ts";

/** A large plain JSON state (about 250 KB), written with writeJsonAtomic. */
export function blobState(version: number) {
  return {
    version,
    rows: Array.from({ length: 2500 }, (_, i) => ({
      id: i,
      name: `row ${i} of version ${version}`,
      tags: ["a", "b", String(version % 7)],
      value: i * version,
    })),
  };
}

/** Task #1's description at a version (about 60 KB). */
export function taskDescription(version: number): string {
  return `version ${version}\n${`line of version ${version} `.repeat(2500)}`;
}
export const taskVersion = (description: string) =>
  Number(/^version (\d+)\n/.exec(description)?.[1] ?? 0);

/** The content of the k-th protocol request (1-based). */
export function requestContent(k: number): string {
  return `request ${k}: ${"please shut down cleanly ".repeat(12)}`;
}

/** The worktree index at a version: 300 lanes, each carrying the version as its task id. */
export function laneList(version: number): Lane[] {
  return Array.from({ length: 300 }, (_, i) => ({
    name: `lane-${i}`,
    path: `.worktrees/lane-${i}`,
    branch: `wt/lane-${i}`,
    taskId: version,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  }));
}
