// Diagrams: every chapter and appendix page shows one, every one a page uses exists in all four
// locales, and a diagram that lists a chapter's tools (data-tools on its <svg>) lists exactly the
// tools in the chapter's code.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { allRunnable, CHAPTERS_DIR, LOCALES, REPO_ROOT } from "../../chapters/_runner/chapters.ts";

const SVG_DIR = path.join(REPO_ROOT, "assets/svg");
const svgs = existsSync(SVG_DIR) ? readdirSync(SVG_DIR).filter((f) => f.endsWith(".svg")) : [];
const pages = readdirSync(CHAPTERS_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith("_"))
  .flatMap((d) => LOCALES.map((l) => path.join(CHAPTERS_DIR, d.name, `${l}.mdx`)))
  .filter(existsSync);

describe("diagrams", () => {
  it("every <Diagram> a page uses exists in en, ja, zh and de", () => {
    const used = new Set(
      pages.flatMap((p) =>
        [...readFileSync(p, "utf8").matchAll(/<Diagram\s+name="([^"]+)"/g)].map((m) => m[1]),
      ),
    );
    const missing = [...used].flatMap((name) =>
      LOCALES.filter((l) => !svgs.includes(`${name}.${l}.svg`)).map((l) => `${name}.${l}.svg`),
    );
    expect(missing).toEqual([]);
  });

  it("every chapter and appendix page, in every locale, shows a diagram drawn for that locale", () => {
    const missing: string[] = [];
    for (const info of allRunnable()) {
      for (const locale of LOCALES) {
        const file = path.join(info.dir, `${locale}.mdx`);
        const names = existsSync(file)
          ? [...readFileSync(file, "utf8").matchAll(/<Diagram\s+name="([^"]+)"/g)].map((m) => m[1])
          : [];
        if (!names.some((name) => svgs.includes(`${name}.${locale}.svg`)))
          missing.push(`${info.name}/${locale}.mdx`);
      }
    }
    expect(missing, "pages without a <Diagram> of their own locale").toEqual([]);
  });

  it("each SVG is a self-contained drawing (viewBox, no scripts, no external references)", () => {
    for (const file of svgs) {
      const text = readFileSync(path.join(SVG_DIR, file), "utf8");
      expect(text, file).toMatch(/<svg[^>]*viewBox=/);
      expect(text, file).not.toMatch(/<script|href="http|xlink:href="http/);
    }
  });

  it("tool lists in diagrams match the chapter code", async () => {
    const chapters = allRunnable();
    for (const file of svgs) {
      const listed = /<svg[^>]*\sdata-tools="([^"]*)"/.exec(
        readFileSync(path.join(SVG_DIR, file), "utf8"),
      );
      if (!listed) continue;
      const chapter = chapters.find((c) => file.startsWith(`${c.id}-`));
      expect(chapter, file).toBeDefined();
      const { TOOLS } = await import(path.join(chapter!.dir, "agent.ts"));
      expect(listed[1].split(/\s+/), file).toEqual(TOOLS.map((t: { name: string }) => t.name));
    }
  });
});
