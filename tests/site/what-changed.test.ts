// "What changed" on every chapter page compares the chapter with the chapter its code builds on:
// that base is read from its imports, the names it lists are the ones its import statements
// name, every link from it lands on a page and an anchor that exist (an imported name's on code
// that declares it), and every line figure is a diff of the files, computed here.
//
// The chapters' imports are read here a second way, with plain patterns and TypeScript's
// preProcessFile, so the site's reader (site/lib/imports.ts, the TypeScript parser) is checked
// against something it does not share. A chapter's code is all its lesson files (the .ts files in
// its folder but scenario.ts: s13 has mailbox.ts and others beside agent.ts), listed here with
// readdirSync, not with the site's glob.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { structuredPatch } from "diff";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { allRunnable, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import {
  exportedDeclarations,
  importedNames,
  importedNamesOfFiles,
} from "../../site/lib/imports.ts";
import { region } from "../../site/lib/regions.ts";
import { decodeHtml, visibleText } from "../support/html.ts";
import { BASE, DIST, ensureSiteBuilt } from "../support/site-build.ts";
import { budget } from "../support/budgets.ts";

const site = await import("../../site/lib/chapters.ts");

/** A chapter's lesson files, agent.ts first, then the others by name. */
const lessonFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && f !== "scenario.ts")
    .sort((a, b) => (a === "agent.ts" ? -1 : b === "agent.ts" ? 1 : a.localeCompare(b)))
    .map((file) => ({ file, source: readFileSync(path.join(dir, file), "utf8") }));

const chapters = allRunnable().map((c) => {
  const files = lessonFiles(c.dir);
  // `source`: all the files, one after the other (regions and imports are looked up across them).
  return { ...c, files, source: files.map((f) => f.source).join("\n") };
});
const byId = (id: string) => chapters.find((c) => c.id === id)!;
const number = (id: string) => (id.startsWith("a") ? 100 : 0) + Number(id.slice(1));

/** The appendices a source imports whole (`import * as a2`): harnesses it runs (a6), not bases. */
const runsWhole = (source: string) =>
  new Set([...source.matchAll(/^import \* as \w+ from "\.\.\/(a\d+)-/gm)].map((m) => m[1]));

/** The chapters a source imports, from TypeScript's pre-processor (its import scanner). */
const importedChapters = (source: string) =>
  [
    ...new Set(
      ts
        .preProcessFile(source, true, true)
        .importedFiles.map(
          (f) => /^\.\.\/(s\d\d|a\d+)-[\w-]+\/(?!scenario\.)[\w-]+\.ts$/.exec(f.fileName)?.[1],
        )
        .filter((id): id is string => id !== undefined),
    ),
  ].sort((a, b) => number(a) - number(b));

/** The chapters a source builds on: those it imports, but the appendices it only runs whole. */
const builtOn = (source: string) =>
  importedChapters(source).filter((id) => !runsWhole(source).has(id));

interface Written {
  name: string;
  type: boolean;
  local?: string;
}

/** The names each import statement from a chapter writes, read with plain patterns. */
function writtenImports(source: string): Map<string, Written[]> {
  const found = new Map<string, Written[]>();
  const add = (id: string, names: Written[]) => found.set(id, [...(found.get(id) ?? []), ...names]);
  const from = String.raw`\s+from\s+"\.\./(s\d\d|a\d+)-[\w-]+/(?!scenario\.)[\w-]+\.ts"`;
  for (const [, typeOnly, list, id] of source.matchAll(
    new RegExp(String.raw`^import\s+(type\s+)?\{([^}]*)\}` + from, "gm"),
  )) {
    const names = list
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const [, type, name, local] = /^(type\s+)?(\w+)(?:\s+as\s+(\w+))?$/.exec(entry)!;
        return { name, type: Boolean(typeOnly || type), ...(local && { local }) };
      });
    add(id, names);
  }
  for (const [, alias, id] of source.matchAll(
    new RegExp(String.raw`^import\s+\*\s+as\s+(\w+)` + from, "gm"),
  )) {
    const members = [...source.matchAll(new RegExp(String.raw`\b${alias}\.(\w+)`, "g"))].map(
      (m) => m[1],
    );
    add(
      id,
      [...new Set(members)].map((name) => ({ name, type: false })),
    );
  }
  return found;
}

/** The "(+12 / −3)" of a text (full-width brackets in ja and zh), as numbers. */
function figures(text: string) {
  const found = /[(（]\+(\d+) \/ −(\d+)/.exec(text);
  return found ? { added: Number(found[1]), removed: Number(found[2]) } : undefined;
}

const hasLoop = (source: string) => /^\s*\/\/ #region loop$/m.test(source);

/** Added and removed lines between two texts, counted from the `diff` library's line diff. */
function counted(before: string, after: string) {
  // Counted another way than the site does: the +/- lines of a unified patch.
  const lines = structuredPatch("a", "b", before, after, "", "", { context: 0 }).hunks.flatMap(
    (h) => h.lines,
  );
  return {
    added: lines.filter((l) => l.startsWith("+")).length,
    removed: lines.filter((l) => l.startsWith("-")).length,
  };
}

type Files = { file: string; source: string }[];
const totalLines = (c: { files: Files }) =>
  c.files.reduce((sum, f) => sum + f.source.trimEnd().split("\n").length, 0);

/** `counted` over two chapters' lesson files paired by name (a file only one has: against ""). */
function countedFiles(before: Files, after: Files) {
  const names = [...new Set([...after, ...before].map((f) => f.file))];
  const text = (files: Files, name: string) => files.find((f) => f.file === name)?.source ?? "";
  return names
    .map((name) => counted(text(before, name), text(after, name)))
    .reduce((a, b) => ({ added: a.added + b.added, removed: a.removed + b.removed }));
}

/** The code an Expressive Code block shows, a line per line. */
/** The code a block shows, line by line: its line numbers (the gutter) are not code. */
const codeText = (html: string) =>
  decodeHtml(
    html
      .replace(/<div class="gutter">[\s\S]*?<\/div><\/div>/g, "")
      .replace(/<div class="ec-line/g, "\n$&")
      .replace(/<[^>]+>/g, ""),
  );

/** A declaration of `name` at the start of a line of some code. */
const declares = (code: string, name: string) =>
  new RegExp(
    String.raw`^\s*(export\s+)?(async\s+)?(function\*?|class|const|let|interface|type|enum)\s+${name}\b`,
    "m",
  ).test(code);

describe("the chapter each chapter builds on", () => {
  it("is the highest-numbered chapter its agent.ts imports", () => {
    for (const c of chapters) {
      const imported = builtOn(c.source);
      expect(site.chapter(c.id).buildsOn, c.id).toBe(imported.at(-1));
      expect(site.base(c.id)?.id, c.id).toBe(imported.at(-1));
    }
  });

  it("is s02 for s03 to s11, s10 for s12, s12 for s13, s13 for s14 and s15; s07 for a1, a5 and a6, s15 for a2, s02 for a3 and a4, a5 for a7; none for s01", () => {
    const bases = Object.fromEntries(chapters.map((c) => [c.id, site.base(c.id)?.id ?? null]));
    expect(bases).toEqual({
      s01: null,
      s02: "s01",
      ...Object.fromEntries(
        ["s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10", "s11"].map((id) => [id, "s02"]),
      ),
      s12: "s10",
      s13: "s12",
      s14: "s13",
      s15: "s13",
      a1: "s07",
      a5: "s07",
      a2: "s15",
      a3: "s02",
      a4: "s02",
      a6: "s07",
      a7: "a5",
    });
  });
});

describe("what a chapter imports", () => {
  it("lists, per chapter, exactly the names its import statements write", () => {
    for (const c of chapters) {
      const listed = importedNamesOfFiles(c.files.map((f) => f.source));
      const written = writtenImports(c.source);
      expect([...listed.keys()], c.id).toEqual(importedChapters(c.source));
      for (const [id, names] of written) {
        const mine = listed.get(id) ?? [];
        // Several lesson files may import the same name: it is listed once.
        expect(mine.map((n) => n.name).sort(), `${c.id} from ${id}`).toEqual(
          [...new Set(names.map((n) => n.name))].sort(),
        );
        // Only a type if every file imports it as one (a value anywhere: a value).
        const onlyType = (name: string) =>
          names.filter((n) => n.name === name).every((n) => n.type);
        for (const n of names.filter((n) => n.local || n.type))
          expect(
            mine.find((m) => m.name === n.name),
            `${c.id}: ${n.name}`,
          ).toMatchObject({ ...n, type: onlyType(n.name) });
      }
    }
    // One that the text above spells out, so a reader can check it by eye.
    expect(
      importedNames(byId("s07").source)
        .get("s02")
        ?.map((n) => n.name),
    ).toEqual([
      "agentLoop",
      "BASE_HANDLERS",
      "BASE_TOOLS",
      "runTool",
      "ToolHandler",
      "ToolOutcome",
    ]);
  });

  it("names only what the other chapter exports: its values at run time, its types in its source", async () => {
    for (const c of chapters) {
      for (const [id, names] of importedNamesOfFiles(c.files.map((f) => f.source))) {
        const from = byId(id);
        const declared = exportedDeclarations(from.source);
        for (const n of names) {
          // The module it is imported from: agent.ts, or another lesson file (s13's mailbox.ts).
          const runtime = (await import(path.join(from.dir, n.file))) as Record<string, unknown>;
          expect(declared.has(n.name), `${c.id}: ${id}.${n.name} declared`).toBe(true);
          if (!n.type) expect(n.name in runtime, `${c.id}: ${id}.${n.name} at run time`).toBe(true);
        }
      }
    }
  });

  it("places each name in the region of the other chapter that declares it, or in none", () => {
    for (const c of chapters.filter((c) => site.base(c.id))) {
      for (const { chapter: from, names } of site.whatChanged(c.id)!.imports) {
        const regions = from.regions.map((r) => r.name);
        for (const n of names) {
          const code = (r: string) => site.excerpt(from.id, r).code;
          if (n.region) expect(declares(code(n.region), n.name), n.name).toBe(true);
          else
            expect(
              regions.filter((r) => declares(code(r), n.name)),
              `${c.id}: ${from.id}.${n.name} is in no region`,
            ).toEqual([]);
        }
      }
    }
  });

  it("shows as new the regions the base has no region of that name for, and diffs the loop where both have one", () => {
    const regionNames = (source: string) =>
      [...source.matchAll(/^\s*\/\/ #region (\S+)$/gm)].map((m) => m[1]);
    for (const c of chapters) {
      const changes = site.whatChanged(c.id);
      const baseId = builtOn(c.source).at(-1);
      if (!baseId) {
        expect(changes, c.id).toBeUndefined();
        continue;
      }
      const base = byId(baseId);
      const mine = regionNames(c.source);
      const theirs = regionNames(base.source);
      expect(changes!.newRegions, c.id).toEqual(mine.filter((r) => !theirs.includes(r)));
      expect(changes!.loop.before !== undefined, c.id).toBe(hasLoop(base.source));
      expect(changes!.loop.after !== undefined, c.id).toBe(hasLoop(c.source));
    }
  });
});

describe("a chapter of several lesson files (s13: agent.ts, mailbox.ts …)", () => {
  it("finds an excerpt's region in whichever file has it: s13's bus is in mailbox.ts", () => {
    const bus = site.excerpt("s13", "bus");
    expect(bus.file).toBe("mailbox.ts");
    expect(declares(bus.code, "MessageBus")).toBe(true);
    expect(site.excerpt("s13", "claim").file).toBe("agent.ts");
    expect(site.chapter("s13").files.map((f) => f.file)).toEqual(
      lessonFiles(byId("s13").dir).map((f) => f.file),
    );
    expect(site.chapter("s13").files[0].file).toBe("agent.ts");
  });

  it("What changed counts and diffs every lesson file: s12 → s13 counts mailbox.ts's lines as added", () => {
    const [s12, s13] = [byId("s12"), byId("s13")];
    const changes = site.whatChanged("s13")!;
    expect(changes.lines).toEqual(countedFiles(s12.files, s13.files));
    const agentOnly = counted(s12.files[0].source, s13.files[0].source);
    const mailbox = s13.files.find((f) => f.file === "mailbox.ts")!.source;
    expect(changes.lines.added).toBeGreaterThanOrEqual(
      agentOnly.added + mailbox.trimEnd().split("\n").length,
    );
    expect(site.chapter("s13").lines).toBe(totalLines(s13));
    // And against s13 as a base (s14): all of s13's files count as the base's.
    expect(site.whatChanged("s14")!.lines).toEqual(countedFiles(s13.files, byId("s14").files));
    // Its new regions include mailbox.ts's.
    expect(changes.newRegions).toEqual(expect.arrayContaining(["bus", "orphans", "envelope"]));
  });

  it("an import of ../s13-agent-teams/mailbox.ts counts as importing s13, and makes s13 the base", () => {
    const source = 'import { MessageBus } from "../s13-agent-teams/mailbox.ts";\n';
    expect([...importedNames(source)]).toEqual([
      ["s13", [{ name: "MessageBus", file: "mailbox.ts", type: false }]],
    ]);
    expect(site.baseOf([...importedNames(source).keys(), "s10"])).toBe("s13");
    // Its scenario is not a lesson file: importing it is not importing the chapter's code.
    expect([...importedNames('import x from "../s13-agent-teams/scenario.ts";')]).toEqual([]);
    // s15 takes TeamMessage from mailbox.ts: listed under s13, linked to the region declaring it.
    const fromS13 = site.whatChanged("s15")!.imports.find((i) => i.chapter.id === "s13")!;
    expect(fromS13.names.find((n) => n.name === "TeamMessage")).toMatchObject({
      file: "mailbox.ts",
      declaredIn: "mailbox.ts",
      region: "bus",
    });
  });
});

describe("a chapter that imports its loop instead of writing one", () => {
  const from = (id: string, ...regions: (string | undefined)[]) => ({
    chapter: { id },
    names: regions.map((region) => ({ region })),
  });
  it("runs the base's loop if the base's loop region declares what it imports, else the newest such chapter's", () => {
    expect(site.loopImportedFrom([from("s02", "loop", "tools")], "s02")).toBe("s02");
    // s12 builds on s10 and takes s02's loop: the loop is s02's.
    expect(site.loopImportedFrom([from("s02", "loop"), from("s10", "board")], "s10")).toBe("s02");
    expect(site.loopImportedFrom([from("s02", "tools"), from("s10", undefined)], "s10")).toBe(
      undefined,
    );
  });

  it("says so in every locale, naming that chapter", () => {
    for (const locale of ["en", "ja", "zh", "de"]) {
      const ui = JSON.parse(
        readFileSync(path.join(REPO_ROOT, "i18n", `ui.${locale}.json`), "utf8"),
      ) as Record<string, string>;
      expect(ui["changes.loopFrom"], locale).toContain("{{chapter}}");
    }
  });
});

describe("What changed on the built pages", () => {
  beforeAll(() => ensureSiteBuilt(), budget("siteBuild"));

  const dist = DIST;
  const prefixes = { en: "", ja: "ja/", zh: "zh/", de: "de/" } as const;
  const file = (urlPath: string) => {
    const rel = decodeURIComponent(urlPath.slice(BASE.length));
    return path.join(dist, rel, rel === "" || rel.endsWith("/") ? "index.html" : "");
  };
  const pages = new Map<string, string>();
  const read = (urlPath: string) => {
    const name = file(urlPath);
    if (!pages.has(name)) pages.set(name, readFileSync(name, "utf8"));
    return pages.get(name)!;
  };
  /** The "What changed" block of a page: from its <div class="lah-changes"> to its compare link. */
  const block = (html: string) =>
    /<div class="lah-changes"[\s\S]*?<p class="lah-changes-more">[\s\S]*?<\/p>/.exec(html)?.[0];
  /** The element with an id, up to its end (the excerpt's wrapper, or the source's <details>). */
  const element = (html: string, id: string) => {
    const start = html.search(new RegExp(`<(\\w+)[^>]*\\sid="${id}"`));
    if (start < 0) return undefined;
    const tag = /^<(\w+)/.exec(html.slice(start))![1];
    let depth = 0;
    const re = new RegExp(`<(/?)${tag}\\b[^>]*>`, "g");
    re.lastIndex = start;
    for (let m = re.exec(html); m; m = re.exec(html)) {
      depth += m[1] ? -1 : 1;
      if (depth === 0) return html.slice(start, m.index + m[0].length);
    }
    return undefined;
  };

  for (const c of chapters) {
    it(`${c.id}: compares with the chapter it builds on, in every locale`, () => {
      const baseId = builtOn(c.source).at(-1);
      for (const [locale, prefix] of Object.entries(prefixes)) {
        const html = read(`${BASE}${prefix}${c.name}/deep-dive/`); // What changed is in the Deep dive
        if (!baseId) {
          expect(html, `${locale}/${c.id}`).toMatch(/<p class="lah-changes">/);
          continue;
        }
        const base = byId(baseId);
        const changes = block(html);
        expect(changes, `${locale}/${c.id}: What changed`).toBeDefined();
        const where = `${locale}/${c.id}`;
        // The base, named and linked in the heading.
        expect(changes, where).toContain(`data-base="${baseId}"`);
        expect(changes, where).toMatch(
          new RegExp(`<strong>[^<]*<a href="${BASE}${prefix}${base.name}/">${baseId}</a>`),
        );
        // What it imports, chapter by chapter: the names its import statements write.
        const written = writtenImports(c.source);
        const listed = [
          ...changes!.matchAll(
            /<li class="lah-changes-imports" data-chapter="(\w+)">([\s\S]*?)<\/li>/g,
          ),
        ];
        expect(listed.map((m) => m[1]).sort(), where).toEqual([...written.keys()].sort());
        expect(listed[0][1], `${where}: the base comes first`).toBe(baseId);
        for (const [, id, item] of listed)
          expect(
            [...item.matchAll(/<code>(\w+)<\/code>/g)].map((m) => m[1]).sort(),
            `${where} from ${id}`,
          ).toEqual([...new Set(written.get(id)!.map((n) => n.name))].sort());

        // The figures: lines of both chapters' lesson files, their whole-file diff (files paired
        // by name), and the loop's diff.
        const text = visibleText(changes!);
        expect(text, where).toContain(`${totalLines(base)} → ${totalLines(c)}`);
        const whole = countedFiles(base.files, c.files);
        const summary = visibleText(/<summary>([\s\S]*?)<\/summary>/.exec(changes!)![1]);
        expect(figures(summary), where).toEqual(whole);
        const loopNote = visibleText(
          /<p class="lah-changes-loop">([\s\S]*?)<\/p>/.exec(changes!)![1],
        );
        if (hasLoop(base.source) && hasLoop(c.source)) {
          const loop = counted(region(base.source, "loop"), region(c.source, "loop"));
          if (loop.added + loop.removed > 0) {
            expect(figures(loopNote), where).toEqual(loop);
            // The diff block itself: one marked line per added and removed line.
            const diff = changes!.slice(changes!.indexOf('<p class="lah-changes-loop">'));
            const ec = /<div class="expressive-code[\s\S]*?<\/figure>/.exec(diff)![0];
            expect(ec.match(/class="ec-line[^"]* ins"/g)?.length ?? 0, where).toBe(loop.added);
            expect(ec.match(/class="ec-line[^"]* del"/g)?.length ?? 0, where).toBe(loop.removed);
          } else expect(figures(loopNote), where).toBeUndefined();
        } else expect(changes, where).not.toContain("expressive-code");
      }
    });
  }

  it("every link in What changed opens a page that exists, at an anchor that exists: an imported name at code that declares it", () => {
    const problems: string[] = [];
    let anchors = 0;
    let names = 0;
    const targets = new Map<string, string | undefined>();
    for (const c of chapters) {
      for (const prefix of Object.values(prefixes)) {
        const changes = block(read(`${BASE}${prefix}${c.name}/deep-dive/`));
        if (!changes) continue;
        const imports = [...changes.matchAll(/<li class="lah-changes-imports"[\s\S]*?<\/li>/g)]
          .map((m) => m[0])
          .join("");
        for (const [link, raw, inner] of changes.matchAll(/<a href="([^"]+)">([\s\S]*?)<\/a>/g)) {
          const url = new URL(decodeHtml(raw), "http://site");
          const where = `${prefix}${c.id}: ${link}`;
          if (!existsSync(file(url.pathname))) {
            problems.push(`${where}: no page`);
            continue;
          }
          const id = url.hash.slice(1);
          if (!id) continue;
          anchors++;
          const key = `${url.pathname}#${id}`;
          if (!targets.has(key)) targets.set(key, element(read(url.pathname), id));
          const target = targets.get(key);
          if (!target) {
            problems.push(`${where}: no #${id}`);
            continue;
          }
          const excerpt = /^code-(s\d\d|a\d+)-/.test(id);
          if (excerpt && !target.includes('class="expressive-code'))
            problems.push(`${where}: #${id} is not an excerpt`);
          // Else the page's full source (a name outside its excerpts), or the /code/ page's diff.
          const source = /^<details[^>]*class="lah-on-demand lah-source"/.test(target);
          const diff = id === "changes" && target.startsWith("<section");
          if (!excerpt && !source && !diff) problems.push(`${where}: #${id} is neither`);
          // A name imported from another chapter: the excerpt it opens declares it.
          const name = /^<code>(\w+)<\/code>$/.exec(inner)?.[1];
          if (name && excerpt && imports.includes(link)) {
            names++;
            if (!declares(codeText(target), name))
              problems.push(`${where}: #${id} does not declare ${name}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(anchors).toBeGreaterThan(chapters.length * 4 * 3);
    expect(names).toBeGreaterThan(chapters.length * 4);
  });
});
