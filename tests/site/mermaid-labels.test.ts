// Every label of every mermaid sequence diagram on the site is drawn in full.
//
// Mermaid ends a message or note label at the first '#' (the rest of the line is a comment) or ';'
// (a statement separator), reads `%%{...}%%` as a directive, turns `<br>` into a line break and
// drops a leading `wrap:`. Labels that need those characters write entity codes (`#35;` for '#',
// `#59;` for ';', `#lt;` for '<'), which mermaid draws as the character. This file checks the
// diagrams written in the pages (chapters/*/<locale>.mdx, site/docs/**) and the ones generated from
// recorded runs (site/traces/*.json), three ways: a model of mermaid's sequence lexer, mermaid
// itself (the build's renderer, site/lib/mermaid-render.ts), and the drawings in the built pages.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { mermaidText } from "../../site/lib/mermaid.ts";
import { TRACE_VERSION, type TraceFile } from "../../chapters/_trace/contract.ts";
import { sequenceFromTrace } from "../../site/lib/trace-sequence.ts";
import {
  buildTimeRendering,
  closeMermaidRenderer,
  renderMermaid,
} from "../../site/lib/mermaid-render.ts";
import { DIST, ensureSiteBuilt } from "../support/site-build.ts";
import { decodeHtml } from "../support/html.ts";
import { budget } from "../support/budgets.ts";

interface Diagram {
  where: string;
  code: string;
}

function files(dir: string, test: (f: string) => boolean): string[] {
  return (readdirSync(path.join(REPO_ROOT, dir), { recursive: true }) as string[])
    .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
    .filter(test)
    .sort();
}

/** `<Mermaid code={`...`} />` blocks of every page in every locale. */
function handWritten(): Diagram[] {
  const pages = [
    ...files("chapters", (f) => /^chapters\/[^/]+\/[a-z]{2}\.mdx$/.test(f)),
    ...files("site/docs", (f) => f.endsWith(".mdx")),
  ];
  return pages.flatMap((file) => {
    const text = readFileSync(path.join(REPO_ROOT, file), "utf8");
    return [...text.matchAll(/<Mermaid\b[^>]*?\bcode=\{`((?:\\[\s\S]|[^`\\])*)`\}/g)].map((m) => {
      const line = text.slice(0, m.index).split("\n").length;
      // A template literal: evaluate it if it uses escapes (pages do not interpolate).
      const code = /\\/.test(m[1]) ? (new Function(`return \`${m[1]}\`;`)() as string) : m[1];
      return { where: `${file}:${line}`, code };
    });
  });
}

function traces(): { id: string; trace: TraceFile }[] {
  return files("site/traces", (f) => f.endsWith(".json")).map((f) => ({
    id: path.basename(f, ".json"),
    trace: JSON.parse(readFileSync(path.join(REPO_ROOT, f), "utf8")) as TraceFile,
  }));
}

function generated(): Diagram[] {
  return traces().map(({ id, trace }) => ({
    where: `sequenceFromTrace(site/traces/${id}.json)`,
    code: sequenceFromTrace(trace),
  }));
}

// ---- a model of what mermaid 11 draws for a sequence-diagram label --------------------------

const NAMED: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};
/** `#35;` / `#lt;` → the character (mermaid turns them into `&#35;` / `&lt;`, the browser decodes). */
const decodeCodes = (text: string) =>
  text.replace(/#(\w+);/g, (code, name: string) =>
    /^\d+$/.test(name)
      ? String.fromCodePoint(Number(name))
      : (NAMED[name.toLowerCase()] ?? `&${name};`),
  );
/** How text is drawn: `<br>` (as written, not as `#lt;br#gt;`) breaks the line, codes become their
 *  characters, runs of whitespace look like one space. */
const lines = (text: string) =>
  text
    .split(/<br\s*\/?>/i)
    .map((l) => decodeCodes(l).replace(/\s+/g, " ").trim())
    .join("\n");

/** Mermaid's lexer replaces entity codes before it parses, so a code's ';' ends nothing. */
const hideCodes = (text: string) =>
  text.replace(/#\w+;/g, (code) => `\uE000${code.slice(1, -1)}\uE001`);
const showCodes = (text: string) => text.replace(/\uE000(\w+)\uE001/g, "#$1;");

interface Label {
  line: string;
  kind: "message" | "note" | "alias" | "block";
  written: string;
  drawn: string;
  problems: string[];
}

const ARROW = /(?:<<-->>|<<->>|-->>|->>|-->|->|--x|-x|--\)|-\))[+-]?/;
/** The labels of one diagram: what the author wrote (entity codes read as their characters)
 *  and what mermaid draws of it. */
function labelsOf(code: string): Label[] {
  const out: Label[] = [];
  for (const raw of code.split("\n").slice(1)) {
    const line = raw.trim();
    let kind: Label["kind"] | undefined;
    let text: string | undefined;
    let stops = /[#;]/; // where mermaid's text token ends
    const message = new RegExp(`^[^:;#]+?${ARROW.source}[^:]*?:(.*)$`).exec(line);
    const note = /^note\s+(?:over|left of|right of)\s+[^:]+:(.*)$/i.exec(line);
    const alias = /^(?:participant|actor)\s+\S+\s+as\s+(.*)$/i.exec(line);
    const block = /^(?:loop|alt|else|opt|par|and|critical|option|break)\b(.*)$/i.exec(line);
    if (message) [kind, text] = ["message", message[1]];
    else if (note) [kind, text] = ["note", note[1]];
    else if (alias) [kind, text, stops] = ["alias", alias[1], /[#;<>:,@]/];
    else if (block) [kind, text] = ["block", block[1]];
    if (!kind || text === undefined) continue;
    const hidden = hideCodes(text);
    let drawnText = hidden.split(stops)[0];
    if (kind !== "alias") drawnText = drawnText.trim().replace(/^(?:no)?wrap:/i, "");
    const written = lines(text.trim());
    const drawn = lines(showCodes(drawnText));
    const problems: string[] = [];
    if (drawn !== written) problems.push(`drawn as ${JSON.stringify(drawn)}`);
    if (/%%/.test(hidden)) problems.push("'%%' starts a comment or directive: write #37;");
    if (/<(?!br\s*\/?>)[a-z/!]/i.test(hidden))
      problems.push("'<' starts an HTML tag mermaid may sanitise: write #lt;");
    out.push({ line, kind, written, drawn, problems });
  }
  return out;
}

const problemsOf = (diagrams: Diagram[]) =>
  diagrams.flatMap(({ where, code }) =>
    labelsOf(code)
      .filter((l) => l.problems.length)
      .map((l) => `${where}: ${l.line}\n    ${l.problems.join("; ")}`),
  );

const AWKWARD = [
  "task_update #2 in_progress",
  "error: task 2 is blocked by #1",
  "a; b; c",
  "claims task #1; lane <workspace>/.worktrees/greet",
  "100% done %%{init: {}}%% later",
  "wrap: not an option",
  "nowrap:still text",
  "#35; written literally, &lt; and &amp; too",
  "<b>bold?</b> <br> not a break",
  "{json: [1, 2]}",
  "two\nlines",
];

describe("mermaid labels: the model of mermaid's lexer", () => {
  it("catches the labels that lost their end (the s10 and s13 bugs)", () => {
    const [update, blocked] = labelsOf(
      "sequenceDiagram\n  M->>L: task_update #2 in_progress\n  B-->>L: error: task 2 is blocked by #1",
    );
    expect(update.drawn).toBe("task_update");
    expect(blocked.drawn).toBe("error: task 2 is blocked by");
    expect(labelsOf("sequenceDiagram\n  Note over A: a; b")[0].drawn).toBe("a");
    expect(labelsOf("sequenceDiagram\n  A->>B: task #35;1#59; ok")[0]).toMatchObject({
      drawn: "task #1; ok",
      problems: [],
    });
  });

  it("sequenceFromTrace's escaping round-trips every character", () => {
    for (const text of AWKWARD) {
      const [label] = labelsOf(`sequenceDiagram\n  A->>B: ${mermaidText(text)}`);
      expect(label.problems, text).toEqual([]);
      expect(label.drawn, text).toBe(
        text
          .split("\n")
          .map((l) => l.replace(/\s+/g, " ").trim())
          .join("\n"),
      );
    }
  });

  it("sequenceFromTrace keeps task names, request ids and statuses that contain '#' or ';'", () => {
    const trace: TraceFile = {
      version: TRACE_VERSION,
      chapter: "sX",
      name: "sX-test",
      summary: "",
      prompts: [],
      agents: ["lead", "alice"],
      steps: [
        { kind: "tool_call", agent: "lead", id: "t1", name: "spawn", input: { name: "alice" } },
        { kind: "event", agent: "alice", type: "task_claimed", data: { task: "#1; fix <main>" } },
        {
          kind: "event",
          agent: "lead",
          type: "mailbox_send",
          data: { from: "lead", to: "alice", type: "shutdown_request", request_id: "req#1" },
        },
        {
          kind: "event",
          agent: "lead",
          type: "protocol",
          data: { from: "lead", to: "alice", request_id: "req#1", status: "pending; 50%" },
        },
      ] as unknown as TraceFile["steps"], // not well-typed data on purpose: labels must survive it
    };
    const drawn = labelsOf(sequenceFromTrace(trace)).map((l) => l.drawn);
    expect(drawn).toEqual([
      "spawn",
      "claims task #1; fix <main>",
      "shutdown_request req#1",
      "req#1 pending; 50%",
    ]);
  });
});

const written = handWritten();
const made = generated();

describe("mermaid labels: every diagram of the site", () => {
  it("finds the diagrams", () => {
    expect(written.length).toBeGreaterThan(40);
    expect(made.length).toBeGreaterThan(10);
  });

  it("hand-written diagrams (every page, every locale) draw every label in full", () => {
    expect(problemsOf(written)).toEqual([]);
  });

  it("diagrams generated from recorded runs draw every label in full", () => {
    expect(problemsOf(made)).toEqual([]);
  });
});

/** The text of every `<text class="{kind}">` of a drawn SVG, one entry per element. */
function drawnTexts(svg: string, kind: "messageText" | "noteText"): string[] {
  return [
    ...svg.matchAll(new RegExp(`<text\\b[^>]*class="${kind}"[^>]*>([\\s\\S]*?)</text>`, "g")),
  ].map((m) =>
    decodeHtml(m[1].replace(/<[^>]+>/g, ""))
      .replace(/\s+/g, " ")
      .trim(),
  );
}

// The site's diagrams are drawn once, at build time, by site/lib/mermaid-render.ts (mermaid in
// chromium). These checks read those drawings: after the build they come from its cache.
beforeAll(() => ensureSiteBuilt(), budget("siteBuild"));
afterAll(() => closeMermaidRenderer());

// Every diagram drawn once (from the build's cache when there is one).
const DRAWINGS = budget({ browser: 1, evaluate: written.length + made.length + 1 });

describe.skipIf(!buildTimeRendering())(
  "mermaid labels: mermaid itself, as the build draws them",
  { timeout: DRAWINGS },
  () => {
    it("draws every message and note label exactly as the model says it should", async () => {
      const awkward: Diagram = {
        where: "mermaidText(awkward strings)",
        code: [
          "sequenceDiagram",
          "  participant A",
          "  participant B",
          ...AWKWARD.map((t) => `  A->>B: ${mermaidText(t)}`),
        ].join("\n"),
      };
      const failures: string[] = [];
      for (const diagram of [...written, ...made, awkward]) {
        const drawing = await renderMermaid(diagram.code.trim());
        if (!drawing || "error" in drawing) {
          failures.push(`${diagram.where}: mermaid failed: ${drawing?.error.split("\n")[0]}`);
          continue;
        }
        const labels = labelsOf(diagram.code);
        // What the page means to show: a line per <br>.
        const expected = (kind: Label["kind"]) =>
          labels.filter((l) => l.kind === kind).flatMap((l) => l.written.split("\n"));
        for (const [kind, cls] of [
          ["message", "messageText"],
          ["note", "noteText"],
        ] as const) {
          const drawn = drawnTexts(drawing.svg, cls);
          if (JSON.stringify(drawn) !== JSON.stringify(expected(kind)))
            failures.push(
              `${diagram.where}: ${kind}s drawn ${JSON.stringify(drawn)}\n    written ${JSON.stringify(expected(kind))}`,
            );
        }
      }
      expect(failures).toEqual([]);
    });

    it("a diagram mermaid cannot parse is an error of its own, not an exception", async () => {
      const drawing = await renderMermaid("sequenceDiagram\n  A->>: no target");
      expect(drawing).toMatchObject({ error: expect.stringMatching(/parse|error/i) });
      const next = await renderMermaid("sequenceDiagram\n  A->>B: still drawn");
      expect(next && !("error" in next) && drawnTexts(next.svg, "messageText")).toEqual([
        "still drawn",
      ]);
    });
  },
);

describe.skipIf(!buildTimeRendering())("mermaid labels: the built site", () => {
  const dist = DIST;
  const pages = () =>
    (readdirSync(dist, { recursive: true }) as string[]).filter((f) => f.endsWith("index.html"));
  const figures = (html: string) =>
    [...html.matchAll(/<figure class="lah-mermaid[\s\S]*?<\/figure>/g)].map((m) => m[0]);

  it("ships every diagram drawn: an SVG that follows the theme, no mermaid left to run", () => {
    let drawn = 0;
    const problems: string[] = [];
    for (const file of pages()) {
      for (const figure of figures(readFileSync(path.join(dist, file), "utf8"))) {
        if (!/<svg\b/.test(figure)) problems.push(`${file}: a diagram without its drawing`);
        else if (!figure.includes(':root[data-theme="dark"] #m'))
          problems.push(`${file}: a drawing without its dark theme`);
        else drawn++;
      }
    }
    expect(problems).toEqual([]);
    expect(drawn).toBeGreaterThanOrEqual(written.length);
  });

  it("s10 shows its task numbers; a team chapter shows the diagram of its recorded run", () => {
    const messagesOn = (page: string) =>
      figures(readFileSync(path.join(dist, page, "index.html"), "utf8")).flatMap((f) =>
        drawnTexts(f, "messageText"),
      );
    // on each chapter's Run it part (site/lib/chapter-parts.ts)
    expect(messagesOn("s10-task-system/run")).toContain("task_update #2 in_progress");
    for (const { id, trace } of traces().filter(({ id }) => ["s13", "s14", "s15"].includes(id))) {
      const expected = labelsOf(sequenceFromTrace(trace))
        .filter((l) => l.kind === "message")
        .flatMap((l) => l.written.split("\n"));
      const shown = messagesOn(`${trace.name}/run`);
      expect(
        expected.filter((label) => !shown.includes(label)),
        `${trace.name} shows sequenceFromTrace(${id})`,
      ).toEqual([]);
    }
  });
});
