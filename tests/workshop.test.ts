// Workshop kits (chapters/sNN-slug/workshop.yaml): one per chapter, complete in all four
// languages, the same shape in each, and demo commands that the CLI accepts.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listChapters } from "../chapters/_runner/chapters.ts";
import { parseWorkshop, WORKSHOP_LOCALES, WorkshopError } from "../site/lib/workshop.ts";

const chapters = listChapters();
const CLI_FLAGS = new Set(["--demo", "--step", "--reset", "--offline", "--debug"]);

describe("workshop kits", () => {
  it("exist for every chapter", () => {
    const missing = chapters
      .filter((c) => !existsSync(path.join(c.dir, "workshop.yaml")))
      .map((c) => c.name);
    expect(missing, `chapters without workshop.yaml: ${missing.join(", ")}`).toEqual([]);
  });

  for (const info of chapters) {
    const file = path.join(info.dir, "workshop.yaml");
    it.runIf(existsSync(file))(
      `${info.id}: goals, a demo using --demo and --step, 2–3 exercises with hints, in every language alike`,
      () => {
        const kit = parseWorkshop(readFileSync(file, "utf8"), `${info.name}/workshop.yaml`);
        expect(kit.minutes).toBeGreaterThanOrEqual(20);
        expect(kit.minutes).toBeLessThanOrEqual(120);
        const en = kit.text.en;
        expect(en.goals.length).toBeGreaterThanOrEqual(2);
        expect(en.exercises.length).toBeGreaterThanOrEqual(2);
        expect(en.exercises.length).toBeLessThanOrEqual(3);
        for (const ex of en.exercises) expect(ex.hints.length).toBeGreaterThanOrEqual(1);

        const commands = en.demo.flatMap((s) => (s.run ? [s.run] : []));
        expect(
          commands.some((c) => c.includes("--demo")),
          "the demo plays the scenario with --demo",
        ).toBe(true);
        expect(
          commands.some((c) => c.includes("--step")),
          "the demo pauses with --step",
        ).toBe(true);
        for (const command of commands.filter((c) => c.startsWith("npm run chapter"))) {
          const [, chapterArg, ...rest] = command
            .replace("npm run chapter", "chapter")
            .split(/\s+/);
          expect(chapterArg, command).toBe(info.id);
          for (const flag of rest.filter((a) => a.startsWith("--") && a !== "--"))
            expect(CLI_FLAGS.has(flag), `${command}: ${flag}`).toBe(true);
        }
        for (const ref of commands.join(" ").match(/\.workspace\/s\d\d/g) ?? [])
          expect(ref, "a path into another chapter's workspace").toBe(`.workspace/${info.id}`);

        // Translations have the same shape and run the same commands.
        for (const locale of WORKSHOP_LOCALES) {
          const text = kit.text[locale];
          expect(text.goals.length, `${locale} goals`).toBe(en.goals.length);
          expect(
            text.demo.map((s) => s.run ?? null),
            `${locale} demo commands`,
          ).toEqual(en.demo.map((s) => s.run ?? null));
          expect(
            text.exercises.map((e) => e.hints.length),
            `${locale} exercises and hints`,
          ).toEqual(en.exercises.map((e) => e.hints.length));
          if (locale !== "en") expect(text.goals, `${locale} is translated`).not.toEqual(en.goals);
        }
      },
    );
  }

  it("reports a broken kit clearly", () => {
    expect(() =>
      parseWorkshop("minutes: 30\nen: {goals: [a], demo: [], exercises: []}\n", "x.yaml"),
    ).toThrow(WorkshopError);
    expect(() => parseWorkshop("minutes: 30\n", "x.yaml")).toThrow(/x\.yaml \(en\): missing/);
    expect(() => parseWorkshop("en: {}\n", "x.yaml")).toThrow(/minutes/);
  });
});
