// Every exercise, in chapter order. An exercise's chapter is its id before the dot ("s03.1" → s03).
import type { ChapterModule } from "../_shared/types.ts";
import type { Exercise } from "./kit.ts";
import { exercises as s01 } from "./s01.ts";
import { exercises as s02 } from "./s02.ts";
import { exercises as s03 } from "./s03.ts";
import { exercises as s04 } from "./s04.ts";
import { exercises as s05 } from "./s05.ts";
import { exercises as s06 } from "./s06.ts";
import { exercises as s07 } from "./s07.ts";
import { exercises as s08 } from "./s08.ts";
import { exercises as s09 } from "./s09.ts";
import { exercises as s10 } from "./s10.ts";
import { exercises as s11 } from "./s11.ts";
import { exercises as s12 } from "./s12.ts";
import { exercises as s13 } from "./s13.ts";
import { exercises as s14 } from "./s14.ts";
import { exercises as s15 } from "./s15.ts";
import { exercises as a1 } from "./a1.ts";
import { exercises as a2 } from "./a2.ts";
import { exercises as a3 } from "./a3.ts";
import { exercises as a4 } from "./a4.ts";
import { exercises as a5 } from "./a5.ts";
import { exercises as a6 } from "./a6.ts";

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
] as unknown as Exercise<ChapterModule>[];

export const chapterOf = (id: string) => id.split(".")[0];

export function findExercise(id: string): Exercise<ChapterModule> | undefined {
  return EXERCISES.find((e) => e.id === id);
}
