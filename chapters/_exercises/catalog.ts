// Every exercise, in chapter order. An exercise's chapter is its id before the dot ("s03.1" → s03).
import type { ChapterModule } from "../_shared/types.ts";
import type { Exercise } from "./kit.ts";
import { exercises as s01 } from "../s01-agent-loop/exercises/checks.ts";
import { exercises as s02 } from "../s02-tool-use/exercises/checks.ts";
import { exercises as s03 } from "../s03-todo-write/exercises/checks.ts";
import { exercises as s04 } from "../s04-skill-loading/exercises/checks.ts";
import { exercises as s05 } from "../s05-context-compact/exercises/checks.ts";
import { exercises as s06 } from "../s06-subagent/exercises/checks.ts";
import { exercises as s07 } from "../s07-permission-system/exercises/checks.ts";
import { exercises as s08 } from "../s08-hook-system/exercises/checks.ts";
import { exercises as s09 } from "../s09-memory-system/exercises/checks.ts";
import { exercises as s10 } from "../s10-task-system/exercises/checks.ts";
import { exercises as s11 } from "../s11-background-tasks/exercises/checks.ts";
import { exercises as s12 } from "../s12-worktree-isolation/exercises/checks.ts";
import { exercises as s13 } from "../s13-agent-teams/exercises/checks.ts";
import { exercises as s14 } from "../s14-error-recovery/exercises/checks.ts";
import { exercises as s15 } from "../s15-team-protocols/exercises/checks.ts";
import { exercises as a1 } from "../a1-mcp-servers/exercises/checks.ts";
import { exercises as a2 } from "../a2-full-harness/exercises/checks.ts";
import { exercises as a3 } from "../a3-edits-that-land/exercises/checks.ts";
import { exercises as a4 } from "../a4-checkpoints/exercises/checks.ts";
import { exercises as a5 } from "../a5-sessions/exercises/checks.ts";
import { exercises as a6 } from "../a6-evals/exercises/checks.ts";
import { exercises as a7 } from "../a7-goal-loop/exercises/checks.ts";

export const EXERCISES = [
  ...s01,
  ...s02,
  ...s03,
  ...s04,
  ...s05,
  ...s06,
  ...s07,
  ...s08,
  ...s09,
  ...s10,
  ...s11,
  ...s12,
  ...s13,
  ...s14,
  ...s15,
  ...a1,
  ...a2,
  ...a3,
  ...a4,
  ...a5,
  ...a6,
  ...a7,
] as unknown as Exercise<ChapterModule>[];

export const chapterOf = (id: string) => id.split(".")[0];

export function findExercise(id: string): Exercise<ChapterModule> | undefined {
  return EXERCISES.find((e) => e.id === id);
}
