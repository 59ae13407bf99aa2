// Workshop kits: chapters/sNN-slug/workshop.yaml holds, per locale, the learning goals, a
// five-minute demo for the teacher, and exercises with hints; `minutes` (the time the chapter
// takes in a workshop) is shared by all locales. The workshop page prints them as a handout.
import { parse } from "yaml";

import { LOCALES, type Locale } from "../../i18n/locales.ts";

export const WORKSHOP_LOCALES = LOCALES;
export type WorkshopLocale = Locale;

export interface DemoStep {
  /** A command to type (optional: some steps only point at the screen). */
  run?: string;
  /** What to point at and say while it runs. */
  point: string;
}

export interface Exercise {
  task: string;
  hints: string[];
}

export interface WorkshopText {
  goals: string[];
  demo: DemoStep[];
  exercises: Exercise[];
}

export interface WorkshopKit {
  minutes: number;
  text: Record<WorkshopLocale, WorkshopText>;
}

export class WorkshopError extends Error {
  name = "WorkshopError";
}

const strings = (value: unknown, where: string): string[] => {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || !v.trim())) {
    throw new WorkshopError(`${where} must be a list of non-empty strings`);
  }
  return value as string[];
};

/** Parses and checks one workshop.yaml; `file` names it in error messages. */
export function parseWorkshop(yamlText: string, file: string): WorkshopKit {
  const doc = parse(yamlText) as Record<string, unknown> | null;
  if (!doc || typeof doc !== "object") throw new WorkshopError(`${file}: empty or not a mapping`);
  const minutes = doc.minutes;
  if (typeof minutes !== "number" || minutes <= 0)
    throw new WorkshopError(`${file}: minutes must be a positive number`);
  const text = {} as Record<WorkshopLocale, WorkshopText>;
  for (const locale of WORKSHOP_LOCALES) {
    const where = `${file} (${locale})`;
    const part = doc[locale] as Record<string, unknown> | undefined;
    if (!part || typeof part !== "object") throw new WorkshopError(`${where}: missing`);
    const goals = strings(part.goals, `${where}: goals`);
    if (!Array.isArray(part.demo) || part.demo.length === 0)
      throw new WorkshopError(`${where}: demo must be a list of steps`);
    const demo = part.demo.map((step: Record<string, unknown>, i: number): DemoStep => {
      if (typeof step?.point !== "string" || !step.point.trim())
        throw new WorkshopError(`${where}: demo step ${i + 1} needs "point"`);
      if (step.run !== undefined && typeof step.run !== "string")
        throw new WorkshopError(`${where}: demo step ${i + 1}: "run" must be a string`);
      return step.run ? { run: step.run, point: step.point } : { point: step.point };
    });
    if (!Array.isArray(part.exercises))
      throw new WorkshopError(`${where}: exercises must be a list`);
    const exercises = part.exercises.map((ex: Record<string, unknown>, i: number): Exercise => {
      if (typeof ex?.task !== "string" || !ex.task.trim())
        throw new WorkshopError(`${where}: exercise ${i + 1} needs "task"`);
      return { task: ex.task, hints: strings(ex.hints, `${where}: exercise ${i + 1} hints`) };
    });
    text[locale] = { goals, demo, exercises };
  }
  return { minutes, text };
}
