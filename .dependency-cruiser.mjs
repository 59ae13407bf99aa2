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
        "A chapter is a lesson a reader runs and reads: it imports earlier chapters and chapters/_shared/, never the runner (chapters/_runner/) or the site.",
      severity: "error",
      from: { path: "^chapters/(s[0-9]{2}|a[0-9]+)-[^/]+/" },
      // …except the trace contract, the vocabulary a5 writes its session logs in (issue 33 moves
      // it into one module; this exception moves with it).
      to: {
        path: "^(chapters/_runner/|site/)",
        pathNot: "^(chapters/_runner/trace\\.ts|site/lib/recording-schema\\.ts)$",
      },
    },
    {
      name: "site-not-the-printer",
      comment:
        "The site reads the trace contract, not the terminal printer (chapters/_runner/io.ts), which draws runs for a terminal.",
      severity: "error",
      from: { path: "^site/" },
      to: { path: "^chapters/_runner/io\\.ts$" },
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
