// What the site says changed between chapters, and the timeline, computed from the real chapter
// code with the same functions the pages use (site/lib/changes.ts, site/lib/timeline.ts). What a
// chapter's "What changed" shows against its base is checked in what-changed.test.ts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { allRunnable, listChapters } from "../../chapters/_runner/chapters.ts";
import type { Tool } from "../../chapters/_shared/types.ts";
import {
  diffHtml,
  diffRows,
  lineChanges,
  markedDiff,
  toolChanges,
} from "../../site/lib/changes.ts";
import { importsOf } from "../../site/lib/imports.ts";
import { growthChart, headlineOf, LAYERS, layerOf, niceCeiling } from "../../site/lib/timeline.ts";

const chapters = await Promise.all(
  listChapters().map(async (info) => ({
    ...info,
    tools: ((await import(path.join(info.dir, "agent.ts"))) as { TOOLS: Tool[] }).TOOLS,
    source: readFileSync(path.join(info.dir, "agent.ts"), "utf8"),
  })),
);
const byId = (id: string) => chapters.find((c) => c.id === id)!;
const names = (tools: Tool[]) => tools.map((t) => t.name);

describe("tools added and removed between chapters", () => {
  it("s01 → s02 adds read, write, edit and glob and removes nothing", () => {
    expect(toolChanges(byId("s01").tools, byId("s02").tools)).toEqual({
      added: ["read", "write", "edit", "glob"],
      removed: [],
      kept: ["bash"],
    });
  });

  it("s02 → s03 adds todo; s03 → s04 swaps todo for load_skill", () => {
    expect(toolChanges(byId("s02").tools, byId("s03").tools).added).toEqual(["todo"]);
    expect(toolChanges(byId("s03").tools, byId("s04").tools)).toMatchObject({
      added: ["load_skill"],
      removed: ["todo"],
    });
  });

  it("s12 → s13: the lead gains spawn, send and inbox and loses edit, glob and the worktree tools", () => {
    const change = toolChanges(byId("s12").tools, byId("s13").tools);
    expect(change.added).toEqual(["spawn", "send", "inbox"]);
    expect(change.removed).toEqual(
      expect.arrayContaining([
        "edit",
        "glob",
        "worktree_create",
        "worktree_list",
        "worktree_run",
        "worktree_remove",
      ]),
    );
  });

  it("for every pair of neighbours, before − removed + added is exactly the next chapter's tool set", () => {
    for (let i = 1; i < chapters.length; i++) {
      const [a, b] = [chapters[i - 1], chapters[i]];
      const { added, removed, kept } = toolChanges(a.tools, b.tools);
      expect(
        new Set([...names(a.tools).filter((n) => !removed.includes(n)), ...added]),
        `${a.id} → ${b.id}`,
      ).toEqual(new Set(names(b.tools)));
      expect([...kept, ...added].sort()).toEqual(names(b.tools).sort());
    }
  });
});

describe("the diff of agent.ts", () => {
  const [a, b] = [byId("s01"), byId("s02")];

  it("counts added and removed lines consistently with its rows", () => {
    const rows = diffRows(a.source, b.source);
    const counts = lineChanges(a.source, b.source);
    expect(rows.filter((r) => r.kind === "add")).toHaveLength(counts.added);
    expect(rows.filter((r) => r.kind === "del")).toHaveLength(counts.removed);
    expect(counts.added).toBeGreaterThan(counts.removed);
  });

  it("numbers old and new lines so that every row points at the right line of its file", () => {
    const oldLines = a.source.split("\n");
    const newLines = b.source.split("\n");
    for (const row of diffRows(a.source, b.source)) {
      if (row.kind === "hunk") continue;
      if (row.oldLine !== undefined) expect(oldLines[row.oldLine - 1]).toBe(row.text);
      if (row.newLine !== undefined) expect(newLines[row.newLine - 1]).toBe(row.text);
    }
  });

  it("is marked for Expressive Code: + and - lines, hunk headers as comments, never a raw patch header", () => {
    const marked = markedDiff(a.source, b.source).split("\n");
    // Expressive Code leaves a block unmarked if one of its first four lines looks like a real patch.
    expect(marked.slice(0, 4).some((l) => /^([*+-]{3}\s|@@\s)/.test(l))).toBe(false);
    expect(marked[0]).toMatch(/^ \/\/ @@ -\d+,\d+ \+\d+,\d+ @@$/);
    expect(marked.filter((l) => l.startsWith("+"))).toHaveLength(
      lineChanges(a.source, b.source).added,
    );
    expect(marked.every((l) => /^[ +-]/.test(l) || l === "")).toBe(true);
  });

  it("renders as escaped HTML rows", () => {
    const html = diffHtml(diffRows("const a = 1;\n", 'const a = "<b>" && 2;\n'));
    expect(html).toContain("&lt;b&gt;");
    expect(html).toContain("&amp;&amp;");
    expect(html).not.toContain("<b>");
    expect(html.match(/class="lah-diff-add"/g)).toHaveLength(1);
    expect(html.match(/class="lah-diff-del"/g)).toHaveLength(1);
  });

  it("finds nothing to show between a chapter and itself", () => {
    expect(diffRows(b.source, b.source)).toEqual([]);
    expect(lineChanges(b.source, b.source)).toEqual({ added: 0, removed: 0 });
  });
});

describe("the timeline", () => {
  it("puts every chapter in exactly one layer", () => {
    for (const c of chapters) expect(layerOf(c.id), c.id).toBeDefined();
    const all = LAYERS.flatMap((l) => [...l.chapters]);
    expect(new Set(all).size).toBe(all.length);
  });

  it("reads which earlier chapters a chapter imports from its code", () => {
    expect(importsOf(byId("s01").source)).toEqual([]);
    expect(importsOf(byId("s02").source)).toEqual(["s01"]);
    expect(importsOf(byId("s13").source)).toEqual(expect.arrayContaining(["s02", "s10", "s12"]));
    for (const c of chapters)
      for (const dep of importsOf(c.source))
        expect(dep < c.id, `${c.id} imports ${dep}`).toBe(true);
  });

  it("reads each chapter's headline from its agent.ts", () => {
    for (const c of chapters) expect(headlineOf(c.source), c.id).toBeTruthy();
    expect(headlineOf(byId("s01").source)).toBe("The agent loop");
  });

  it("draws one bar and one dot per chapter, with escaped labels", () => {
    const points = chapters.map((c) => ({
      id: c.id,
      lines: c.source.trimEnd().split("\n").length,
      tools: c.tools.length,
      layer: layerOf(c.id),
    }));
    const svg = growthChart(points, {
      title: "Growth",
      description: "bars & line",
      lines: "lines <agent.ts>",
      tools: "tools",
      layers: Object.fromEntries(LAYERS.map((l) => [l.id, l.id])),
    });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.match(/<rect class="lah-chart-bar"/g)).toHaveLength(chapters.length + 1); // + the legend swatch
    expect(svg.match(/<circle class="lah-chart-dot"/g)).toHaveLength(chapters.length + 1);
    expect(svg).toContain("bars &amp; line");
    expect(svg).toContain("lines &lt;agent.ts&gt;");
    expect(svg).not.toMatch(/NaN|undefined/);
    expect(niceCeiling(749)).toBe(1000);
    expect(niceCeiling(233)).toBe(250);
  });
});

describe("appendices on the site (site/lib/chapters.ts, as the build reads it)", async () => {
  // The build's own module: import.meta.glob works the same under vitest (both are Vite).
  const site = await import("../../site/lib/chapters.ts");

  it("keeps the fifteen chapters as they are, and the appendices apart", () => {
    expect(site.chapters.map((c) => c.id)).toEqual(listChapters().map((c) => c.id));
    expect(site.chapters.every((c) => c.kind === "chapter" && !c.appendix)).toBe(true);
    expect(site.appendices.map((c) => c.id)).toEqual(
      allRunnable()
        .filter((c) => c.id.startsWith("a"))
        .map((c) => c.id),
    );
    expect(site.allChapters.map((c) => c.id)).toEqual(allRunnable().map((c) => c.id));
  });

  it("compares a1 with the chapter it builds on (s07), read from its imports, as it does every chapter", () => {
    const a1 = site.chapter("a1");
    expect(a1).toMatchObject({ kind: "appendix", appendix: true, buildsOn: "s07" });
    expect(site.base("a1")?.id).toBe("s07");
    expect(site.base("s08")?.id).toBe("s02");
    expect(site.base("s01")).toBeUndefined();
    expect(site.base("s15")?.id).toBe("s13");
    expect(headlineOf(a1.source)).toBe("MCP tool servers");
  });

  it("knows a1's server tools from its recorded run, and what changed since s07 counts them", () => {
    const a1 = site.chapter("a1");
    expect(a1.serverTools.map((t) => [t.name, t.server])).toEqual([
      ["mcp__notes__save_note", "notes"],
      ["mcp__notes__list_notes", "notes"],
      ["mcp__notes__delete_note", "notes"],
    ]);
    expect(a1.offered).toEqual([...names(a1.tools), ...a1.serverTools.map((t) => t.name)]);
    expect(toolChanges(site.allTools(site.chapter("s07")), site.allTools(a1))).toEqual({
      added: a1.serverTools.map((t) => t.name),
      removed: [],
      kept: names(a1.tools),
    });
    for (const c of site.chapters) expect(c.serverTools, c.id).toEqual([]);
  });

  it("compares a2 with s15, the last chapter it imports: its 26 tools are s15's 13 and 13 more, none of a server's", () => {
    const a2 = site.chapter("a2");
    expect(a2).toMatchObject({ kind: "appendix", appendix: true, buildsOn: "s15" });
    expect(site.base("a2")?.id).toBe("s15");
    expect(headlineOf(a2.source)).toBe("The whole harness");
    expect(a2.serverTools).toEqual([]);
    expect(a2.tools).toHaveLength(26);
    expect(a2.offered).toEqual(names(a2.tools));
    const changes = toolChanges(site.allTools(site.chapter("s15")), site.allTools(a2));
    expect(changes.removed).toEqual([]);
    expect(changes.kept).toHaveLength(13);
    expect(changes.added).toHaveLength(13);
  });
});
