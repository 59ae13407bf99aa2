// Workshop kits (chapters/<name>/workshop.yaml): one per chapter and appendix, complete in all four
// languages, the same shape in each, and demo commands that the CLI accepts. Each file is checked
// against the same zod schema the site's `workshops` collection uses (site/lib/workshop.ts).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { allRunnable } from "../../chapters/_runner/chapters.ts";
import { LOCALES, type Locale } from "../../i18n/locales.ts";
import { WORKSHOP_LOCALES, workshopSchema, type WorkshopKit } from "../../site/lib/workshop.ts";

/** Parses a workshop.yaml and checks it against the schema; throws naming the file, the place
 *  in it and the schema's message for every problem, as the site build would report them. */
function parseWorkshop(yamlText: string, file: string): WorkshopKit {
  const result = workshopSchema.safeParse(parse(yamlText));
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `  ${issue.path.join(".") || "(top)"}: ${issue.message}`,
  );
  throw new Error(`${file} does not match the workshop schema:\n${problems.join("\n")}`);
}

/** A valid kit in every locale, to break one piece at a time (typed loosely enough to break). */
interface LoosePart {
  goals: string[];
  demo: { run?: unknown; point?: string }[];
  exercises: { task: string; hints: string[] }[];
  [key: string]: unknown;
}
type LooseKit = { minutes: number } & Record<Locale, LoosePart>;
function goodKit(): LooseKit {
  const part = () => ({
    goals: ["a goal"],
    demo: [{ run: "npm run chapter s01 -- --demo", point: "look" }, { point: "and here" }],
    exercises: [
      { task: "one", hints: ["a hint"] },
      { task: "two", hints: ["a hint"] },
    ],
  });
  return {
    minutes: 30,
    ...(Object.fromEntries(LOCALES.map((l) => [l, part()])) as Record<Locale, LoosePart>),
  };
}

const chapters = allRunnable();
const CLI_FLAGS = new Set(["--demo", "--step", "--reset", "--offline", "--debug"]);

describe("workshop kits", () => {
  it("exist for every chapter and appendix", () => {
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
        const en = kit.en;
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
        for (const ref of commands.join(" ").match(/\.workspace\/[sa]\d+/g) ?? [])
          expect(ref, "a path into another chapter's workspace").toBe(`.workspace/${info.id}`);

        // Translations have the same shape and run the same commands.
        for (const locale of WORKSHOP_LOCALES) {
          const text = kit[locale];
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

  it("accepts a complete kit (the broken ones below differ from it in one place)", () => {
    expect(workshopSchema.safeParse(goodKit()).success).toBe(true);
  });

  const broken: [string, (kit: LooseKit) => void, RegExp][] = [
    ["a missing locale", (kit) => Reflect.deleteProperty(kit, "ja"), /ja: the ja kit is missing/],
    [
      "an empty hint",
      (kit) => (kit.de.exercises[1].hints = ["  "]),
      /de\.exercises\.1\.hints\.0: a hint must not be empty/,
    ],
    [
      "no hints",
      (kit) => (kit.en.exercises[0].hints = []),
      /en\.exercises\.0\.hints: an exercise's hints must not be empty/,
    ],
    [
      "4 exercises",
      (kit) => kit.zh.exercises.push({ task: "3", hints: ["h"] }, { task: "4", hints: ["h"] }),
      /zh\.exercises: a chapter needs 2 or 3 exercises, not more/,
    ],
    [
      "1 exercise",
      (kit) => kit.en.exercises.pop(),
      /en\.exercises: a chapter needs 2 or 3 exercises, not fewer/,
    ],
    [
      "a demo step without point",
      (kit) => (kit.en.demo[0] = { run: "ls" }),
      /en\.demo\.0\.point: a demo step's "point" is missing/,
    ],
    ["an empty demo", (kit) => (kit.ja.demo = []), /ja\.demo: demo must not be empty/],
    [
      "a run that is not text",
      (kit) => (kit.en.demo[0].run = 3),
      /en\.demo\.0\.run: a demo step's "run" must be text/,
    ],
    ["no minutes", (kit) => Reflect.deleteProperty(kit, "minutes"), /minutes: minutes is missing/],
    [
      "fractional minutes",
      (kit) => (kit.minutes = 12.5),
      /minutes: minutes must be a whole number/,
    ],
    ["zero minutes", (kit) => (kit.minutes = 0), /minutes: minutes must be positive/],
    [
      "a misspelt key",
      (kit) => (kit.en.exercise = kit.en.exercises),
      /en: Unrecognized key\(s\) in object: 'exercise'/,
    ],
  ];
  for (const [what, breakIt, message] of broken) {
    it(`rejects a kit with ${what}, saying where and why`, () => {
      const kit = goodKit();
      breakIt(kit);
      expect(() => parseWorkshop(JSON.stringify(kit), "x.yaml")).toThrow(message);
    });
  }

  it("reports every problem of a broken kit at once, naming the file", () => {
    const kit = goodKit();
    Reflect.deleteProperty(kit, "ja");
    kit.de.exercises[0].hints = [""];
    kit.zh.exercises.push({ task: "3", hints: ["h"] }, { task: "4", hints: ["h"] });
    expect(() => parseWorkshop(JSON.stringify(kit), "x.yaml")).toThrow(
      /^x\.yaml does not match the workshop schema:\n {2}ja: .*\n {2}zh\.exercises: .*\n {2}de\.exercises\.0\.hints\.0: /,
    );
    expect(() => parseWorkshop("", "x.yaml")).toThrow(/\(top\): a workshop kit must be a mapping/);
  });
});
