// The rules that keep the codebase's shape (`npm run lint:deps`, part of `npm run check`).
// Each rule was seen failing on a deliberate violation (tests/repo/dependency-rules.test.ts
// plants one per rule) before it was trusted. .astro files are not read (dependency-cruiser
// does not parse them); the site's logic lives in site/lib/*.ts, which is.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-cycles",
      comment:
        "An import cycle makes two files one: neither can be read, tested or moved alone. A type may refer back (s13's extension points name the Team they extend): type-only imports are erased, so such a loop orders no module's loading.",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "lessons-stand-alone",
      comment:
        "A chapter is a lesson a reader runs and reads: it imports earlier chapters, chapters/_shared/ and the trace contract (chapters/_trace/, the vocabulary a5 writes its session logs in), never the runner (chapters/_runner/) or the site.",
      severity: "error",
      from: { path: "^chapters/(s[0-9]{2}|a[0-9]+)-[^/]+/" },
      to: { path: "^(chapters/_runner/|site/)" },
    },
    {
      name: "site-not-the-printer",
      comment:
        "The site reads the trace contract, not the terminal printer (chapters/_runner/printer.ts), which draws runs for a terminal.",
      severity: "error",
      from: { path: "^site/" },
      to: { path: "^chapters/_runner/printer\\.ts$" },
    },
    {
      name: "trace-contract-alone",
      comment:
        "The trace contract (chapters/_trace/ and the event kinds it checks, chapters/_shared/events.ts) is what the runner writes and the site reads: it imports neither of them, nor a chapter, so data flows one way through it.",
      severity: "error",
      from: { path: "^chapters/(_trace/|_shared/events\\.ts$)" },
      to: { path: "^(site/|tests/|chapters/(?!_trace/|_shared/events\\.ts$))" },
    },
    {
      name: "site-reads-where",
      comment:
        "Where the code took each step is recorded with the step, by the runner (chapters/_runner/code-spots.ts, which reads the lessons with the TypeScript parser); the site reads the step's `at` and never finds the code itself.",
      severity: "error",
      from: { path: "^site/" },
      to: { path: "^chapters/_runner/code-spots\\.ts$" },
    },
    {
      name: "site-folds-events",
      comment:
        "The site shows a run's state by folding its events (the trace contract), never by calling a lesson's code on it: a lesson file is imported only for what it defines, by the two modules that show definitions (the tool table and sources in chapters.ts, the state tables in state-machines.ts), which the browser never loads.",
      severity: "error",
      from: {
        path: "^site/",
        pathNot: "^site/lib/(chapters|state-machines)\\.ts$",
      },
      to: { path: "^chapters/(s[0-9]{2}|a[0-9]+)-[^/]+/" },
    },
    {
      name: "shared-imports-no-chapter",
      comment:
        "chapters/_shared/ is the plumbing lessons import; if it imported a chapter, a lesson would depend on a later one.",
      severity: "error",
      from: { path: "^chapters/_shared/" },
      to: { path: "^chapters/(s[0-9]{2}|a[0-9]+)-" },
    },
    {
      name: "code-not-tests",
      comment: "Chapters, the runner and the site never import the tests.",
      severity: "error",
      from: { path: "^(chapters|site)/" },
      to: { path: "^tests/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.astro)/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};
