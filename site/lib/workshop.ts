// Workshop kits: chapters/sNN-slug/workshop.yaml holds, per locale, the learning goals, a
// five-minute demo for the teacher, and exercises with hints; `minutes` (the time the chapter
// takes in a workshop) is shared by all locales. The workshop page prints them as a handout.
//
// This is the kit's one schema. site/content.config.ts reads the files as the `workshops`
// collection with it (Astro parses the YAML and reports a broken kit at build time), and
// tests/site/workshop.test.ts checks every file against it outside Astro. That is why it imports
// zod from `astro/zod` (the very zod behind `astro:content`'s `z`), not from `astro:content`.
import { z } from "astro/zod";

import { LOCALES, type Locale } from "../../i18n/locales.ts";

export const WORKSHOP_LOCALES = LOCALES;
export type WorkshopLocale = Locale;

/** A string with something in it; `what` names it in the error message. */
const text = (what: string) =>
  z
    .string({ required_error: `${what} is missing`, invalid_type_error: `${what} must be text` })
    .refine((s) => s.trim() !== "", `${what} must not be empty`);

/** A non-empty list; `what` names it in the error message. */
const list = <T extends z.ZodTypeAny>(item: T, what: string) =>
  z
    .array(item, {
      required_error: `${what} is missing`,
      invalid_type_error: `${what} must be a list`,
    })
    .min(1, `${what} must not be empty`);

/** `schema`, with `message` when the key is absent. (A `required_error` would do in zod alone,
 *  but Astro's error map replaces those with a bare "Required"; a refinement's message stays.) */
const present = <T extends z.ZodTypeAny>(schema: T, message: string) =>
  z
    .unknown()
    .refine((value) => value !== undefined, message)
    .pipe(schema);

const demoStep = z
  .object(
    {
      /** A command to type (optional: some steps only point at the screen). */
      run: text('a demo step\'s "run"').optional(),
      /** What to point at and say while it runs. */
      point: text('a demo step\'s "point"'),
    },
    { invalid_type_error: 'a demo step must be a mapping with "point" (and optionally "run")' },
  )
  .strict();

const exercise = z
  .object(
    { task: text('an exercise\'s "task"'), hints: list(text("a hint"), "an exercise's hints") },
    { invalid_type_error: 'an exercise must be a mapping with "task" and "hints"' },
  )
  .strict();

/** One locale's part of a kit. */
const workshopText = (locale: Locale) =>
  z
    .object(
      {
        goals: list(text("a goal"), "goals"),
        demo: list(demoStep, "demo"),
        exercises: z
          .array(exercise, {
            required_error: "exercises is missing",
            invalid_type_error: "exercises must be a list",
          })
          .min(2, "a chapter needs 2 or 3 exercises, not fewer")
          .max(3, "a chapter needs 2 or 3 exercises, not more"),
      },
      {
        invalid_type_error: `the ${locale} kit must be a mapping of goals, demo and exercises`,
      },
    )
    .strict();

const perLocale = Object.fromEntries(
  LOCALES.map((locale) => [
    locale,
    present(
      workshopText(locale),
      `the ${locale} kit is missing (every locale in i18n/locales.ts needs goals, demo and exercises)`,
    ),
  ]),
) as { [L in Locale]: z.ZodPipeline<z.ZodEffects<z.ZodUnknown>, ReturnType<typeof workshopText>> };

/** One chapter's workshop.yaml. */
export const workshopSchema = z
  .object(
    {
      minutes: present(
        z
          .number({ invalid_type_error: "minutes must be a number" })
          .int("minutes must be a whole number")
          .positive("minutes must be positive"),
        "minutes is missing",
      ),
      ...perLocale,
    },
    { invalid_type_error: "a workshop kit must be a mapping of minutes and the locales" },
  )
  .strict();

export type WorkshopKit = z.infer<typeof workshopSchema>;
export type WorkshopText = WorkshopKit[WorkshopLocale];
export type DemoStep = WorkshopText["demo"][number];
export type Exercise = WorkshopText["exercises"][number];
