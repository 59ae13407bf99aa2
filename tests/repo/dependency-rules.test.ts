// The rules in .dependency-cruiser.mjs, each seen failing on a deliberate violation: a small tree
// laid out like the repository, with one planted import per rule and one import every rule
// allows, cruised by the same command `npm run lint:deps` runs. (A cycle is reported once, at
// the file where dependency-cruiser first meets it.)
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { tempDir } from "../support/helpers.ts";

const CONFIG = path.join(REPO_ROOT, ".dependency-cruiser.mjs");
const DEPCRUISE = path.join(REPO_ROOT, "node_modules/.bin/depcruise");

function plant(root: string, files: Record<string, string>) {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(root: string): Violation[] {
  const out = execFileSync(
    DEPCRUISE,
    ["chapters", "site", "tests", "--config", CONFIG, "--output-type", "json"],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

describe("the rules that keep the codebase's shape", () => {
  it("each rule reports its planted violation, and only that", () => {
    const root = tempDir();
    plant(root, {
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          module: "esnext",
          moduleResolution: "bundler",
          allowImportingTsExtensions: true,
        },
      }),
      // allowed: a lesson imports an earlier one and _shared; the site reads the trace contract
      "chapters/_shared/types.ts": "export type T = 1;\n",
      "chapters/s01-loop/agent.ts":
        'import type { T } from "../_shared/types.ts";\nexport const a: T = 1;\n',
      "chapters/s02-tools/agent.ts":
        'import { a } from "../s01-loop/agent.ts";\nexport const b = a;\n',
      "chapters/_shared/events.ts": "export const KINDS = 1;\n",
      "chapters/_trace/contract.ts":
        'import { KINDS } from "../_shared/events.ts";\nexport const VERSION = KINDS;\n',
      "site/lib/fine.ts":
        'import { VERSION } from "../../chapters/_trace/contract.ts";\nexport const v = VERSION;\n',
      // allowed: the site's tool table reads a lesson's definitions
      "site/lib/chapters.ts":
        'import { b } from "../../chapters/s02-tools/agent.ts";\nexport const tools = b;\n',
      // allowed: a type that refers back (erased at run time, so it orders no loading)
      "chapters/_runner/team.ts":
        'import { DEFAULT, type Options } from "./options.ts";\nexport class Team { o: Options = { size: DEFAULT }; }\n',
      "chapters/_runner/options.ts":
        'import type { Team } from "./team.ts";\nexport const DEFAULT = 1;\nexport interface Options { size: number; team?: Team }\n',
      // one violation per rule
      "chapters/_runner/printer.ts": 'import { n } from "./notes.ts";\nexport const io = n;\n',
      "chapters/_runner/notes.ts":
        'import { io } from "./printer.ts";\nexport const n = 1;\nexport const again = io;\n',
      "chapters/s03-todo/agent.ts":
        'import { io } from "../_runner/printer.ts";\nexport const c = io;\n',
      "site/lib/printer.ts":
        'import { io } from "../../chapters/_runner/printer.ts";\nexport const p = io;\n',
      "chapters/_trace/v2.ts": 'import { n } from "../_runner/notes.ts";\nexport const up = n;\n',
      "site/lib/run-state.ts":
        'import { c } from "../../chapters/s03-todo/agent.ts";\nexport const todos = c;\n',
      "chapters/_shared/later.ts":
        'import { b } from "../s02-tools/agent.ts";\nexport const l = b;\n',
      "tests/support/helper.ts": "export const h = 1;\n",
      "site/lib/uses-tests.ts":
        'import { h } from "../../tests/support/helper.ts";\nexport const u = h;\n',
    });
    const found = cruise(root)
      .map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)
      .sort();
    expect(found).toEqual(
      [
        "code-not-tests: site/lib/uses-tests.ts → tests/support/helper.ts",
        "lessons-stand-alone: chapters/s03-todo/agent.ts → chapters/_runner/printer.ts",
        "no-cycles: chapters/_runner/notes.ts → chapters/_runner/printer.ts",
        "shared-imports-no-chapter: chapters/_shared/later.ts → chapters/s02-tools/agent.ts",
        "site-folds-events: site/lib/run-state.ts → chapters/s03-todo/agent.ts",
        "site-not-the-printer: site/lib/printer.ts → chapters/_runner/printer.ts",
        "trace-contract-alone: chapters/_trace/v2.ts → chapters/_runner/notes.ts",
      ].sort(),
    );
  });
});
