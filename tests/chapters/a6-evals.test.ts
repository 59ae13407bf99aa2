// a6, the eval: the tasks are honest (the oracle passes every one, the null agent none),
// the verifier judges files and is out of the agent's reach (tried as an attacker would: planted
// tests, an early exit, a symlink, paths out of the jail, commands in the sandbox), the numbers
// obey their definitions (properties), the results file is the same for the same seed, and a
// recorded run replays with no network and names what drifted when it cannot.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fc, test as prop } from "@fast-check/vitest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type Contestant,
  contestant,
  DEFAULT_HARNESSES,
  HARNESS_NAMES,
  resultsFile,
  runEval,
  runOne,
  summarize,
  type RunRecord,
} from "../../chapters/a6-evals/agent.ts";
import {
  type Cassette,
  recordingClient,
  ReplayMiss,
  replayClient,
} from "../../chapters/a6-evals/replay.ts";
import * as stats from "../../chapters/a6-evals/stats.ts";
import { bootstrap, choose, passAtK, passHatK, wilson } from "../../chapters/a6-evals/stats.ts";
import { exercises } from "../../chapters/a6-evals/exercises/checks.ts";
import {
  loadTask,
  loadTasks,
  prepareWorkspace,
  removeWorkspace,
  selectTasks,
  type Task,
  TASKS_DIR,
} from "../../chapters/a6-evals/tasks.ts";
import { STAGE } from "../../chapters/_runner/eval.ts";
import { realClient } from "../../chapters/_runner/model.ts";
import scenario, { INSTRUCTION } from "../../chapters/a6-evals/scenario.ts";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { runCommand, sandboxFor } from "../../chapters/_shared/shell.ts";
import type { CreateParams } from "../../chapters/_shared/types.ts";
import { BASE_HANDLERS } from "../../chapters/s02-tool-use/agent.ts";
import { endTurn, startFakeApi, toolUse } from "../support/fake-api.ts";
import { budget } from "../support/budgets.ts";
import { tempDir, testKit, machineSandbox, toolAt } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

const SEED = 31;
const task = (id: string) => selectTasks(id)[0];
/** A contestant that does `work` to the workspace directly: the strongest agent there is (a
 *  sandboxed command can write the workspace too, and nothing else). */
const attacker = (work: (workspace: string) => void): Contestant => ({
  name: "attacker",
  async play({ workspace }) {
    work(workspace);
    return { calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  },
});

describe("a6 tasks", () => {
  it("ships at least 12 tasks in the folder format, covering the mechanisms the chapters teach", () => {
    const tasks = loadTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    for (const t of tasks) {
      expect(t.instruction.length, t.id).toBeGreaterThan(20);
      for (const file of ["instruction.md", "task.toml", "solution/solve.sh", "tests/test.sh"])
        expect(existsSync(path.join(t.dir, file)), `${t.id}/${file}`).toBe(true);
    }
    // fix a test, rename, a double edit, a denied command, a long output, delegation, a plan,
    // a skill, an undo, a merge, a secret
    expect(new Set(tasks.map((t) => t.chapter))).toEqual(
      new Set(["s02", "a3", "s07", "s05", "s06", "s03", "s04", "a4", "s12"]),
    );
  });

  it("a broken task.toml is an error that names the task and the field", () => {
    const dir = path.join(tempDir(), "broken");
    mkdirSync(path.join(dir, "solution"), { recursive: true });
    mkdirSync(path.join(dir, "tests"));
    writeFileSync(path.join(dir, "instruction.md"), "Do it.");
    writeFileSync(path.join(dir, "solution", "solve.sh"), "true");
    writeFileSync(path.join(dir, "tests", "test.sh"), "true");
    writeFileSync(path.join(dir, "task.toml"), 'version = "1.0"\n[metadata]\nchapter = "s02"\n');
    expect(() => loadTask(dir)).toThrow(/task broken: task\.toml is not valid.*mechanism/s);
    writeFileSync(path.join(dir, "task.toml"), "version = ");
    expect(() => loadTask(dir)).toThrow(/task broken: task\.toml is not valid/);
  });

  it("the chapter's scenario plays a shipped task: its instruction, word for word", () => {
    expect(INSTRUCTION).toBe(task("add-a-function").instruction);
    expect(scenario.prompts).toEqual([INSTRUCTION]);
  });

  it("an unknown task or harness is named, with the ones there are", () => {
    expect(() => selectTasks("fix-failing-test,nope")).toThrow(
      /unknown task "nope".*add-a-function/,
    );
    expect(() => contestant("s99")).toThrow(
      /unknown harness "s99".*oracle, null, s02, s07, a2, a3/,
    );
  });

  it("a workspace holds neither the solution nor the verifier, and starts the same every time", async () => {
    const t = task("fix-failing-test");
    const [one, two] = [await prepareWorkspace(t), await prepareWorkspace(t)];
    try {
      const files = (dir: string): string[] =>
        readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && !path.join(e.parentPath, e.name).includes("/.git/"))
          .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
          .sort();
      expect(files(one)).toEqual(files(two));
      expect(files(one)).not.toContain("tests/test.sh");
      expect(files(one).some((f) => /solve\.sh|mean\.test/.test(f))).toBe(false);
      const head = (dir: string) =>
        readFileSync(path.join(dir, ".git", "refs", "heads", "main"), "utf8");
      expect(head(one)).toBe(head(two)); // a fixed commit date: the same commit id
    } finally {
      removeWorkspace(one);
      removeWorkspace(two);
    }
  });
});

describe("a6 gates: the tasks and their verifiers are honest", () => {
  let records: RunRecord[];
  beforeAll(
    async () => {
      records = await runEval({
        stage: STAGE,
        harnesses: ["oracle", "null"],
        tasks: "all",
        trials: 1,
        seed: SEED,
      });
    },
    budget({ command: 3 * 2 * 12 }),
  );

  it("the oracle, which applies each reference solution, passes every task", () => {
    const oracle = records.filter((r) => r.harness === "oracle");
    expect(oracle).toHaveLength(loadTasks().length);
    for (const r of oracle)
      expect(r, `${r.task}: ${r.verifierOutput}`).toMatchObject({ passed: true });
  });

  it("the null agent, which does nothing, passes none", () => {
    const none = records.filter((r) => r.harness === "null");
    expect(none).toHaveLength(loadTasks().length);
    for (const r of none) expect(r.passed, r.task).toBe(false);
  });
});

describe("a6 the verifier judges the files, never the agent's word", () => {
  const fix = () => task("fix-failing-test");

  it(
    "a tests/ folder the agent planted (its own test.sh: exit 0) is replaced by the hidden one",
    async () => {
      const record = await runOne(
        attacker((ws) => {
          mkdirSync(path.join(ws, "tests"));
          writeFileSync(path.join(ws, "tests", "test.sh"), "exit 0\n");
          writeFileSync(
            path.join(ws, "tests", "mean.test.ts"),
            'import test from "node:test";\ntest("ok", () => {});\n',
          );
        }),
        fix(),
        1,
        STAGE,
      );
      expect(record.passed).toBe(false);
    },
    budget({ command: 3 }),
  );

  it(
    "deleting the visible failing test does not make the task pass",
    async () => {
      const record = await runOne(
        attacker((ws) => writeFileSync(path.join(ws, "test", "math.test.ts"), "")),
        fix(),
        1,
        STAGE,
      );
      expect(record.passed).toBe(false);
    },
    budget({ command: 3 }),
  );

  it(
    "a module that exits 0 as soon as it is imported does not pass (every hidden test must report ok)",
    async () => {
      const record = await runOne(
        attacker((ws) =>
          writeFileSync(
            path.join(ws, "src", "math.ts"),
            "process.exit(0);\nexport const sum = () => 0;\nexport const mean = () => 0;\n",
          ),
        ),
        fix(),
        1,
        STAGE,
      );
      expect(record.passed).toBe(false);
      expect(record.verifierOutput).toMatch(/# pass 1/); // node counted the file as one passing test
    },
    budget({ command: 3 }),
  );

  it(
    "a symlink to a correct file outside the workspace is not followed",
    async () => {
      const outside = path.join(tempDir(), "math.ts");
      writeFileSync(
        outside,
        "export const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);\n" +
          "export const mean = (v: number[]) => (v.length ? sum(v) / v.length : 0);\n",
      );
      const record = await runOne(
        attacker((ws) => {
          const file = path.join(ws, "src", "math.ts");
          symlinkSync(outside, `${file}.link`);
          renameSync(`${file}.link`, file); // the file is now a link to the correct code outside
        }),
        fix(),
        1,
        STAGE,
      );
      expect(record.passed).toBe(false);
    },
    budget({ command: 3 }),
  );

  it(
    "the same fix made for real passes: the attacks above fail for what they did, not by accident",
    async () => {
      const record = await runOne(
        attacker((ws) => {
          const file = path.join(ws, "src", "math.ts");
          writeFileSync(
            file,
            readFileSync(file, "utf8").replace(
              "return sum(values) / values.length;",
              "return values.length ? sum(values) / values.length : 0;",
            ),
          );
        }),
        fix(),
        1,
        STAGE,
      );
      expect(record, record.verifierOutput).toMatchObject({ passed: true });
    },
    budget({ command: 3 }),
  );

  it(
    "the scripted s02 says it is done on the double edit, and the verifier says it is not",
    async () => {
      const record = await runOne(contestant("s02"), task("edit-occurs-twice"), 1, STAGE);
      expect(record.calls).toBeGreaterThan(0);
      expect(record.passed).toBe(false);
      expect(record.verifierOutput).toMatch(/not ok .*dev still waits 1000 ms/);
    },
    budget({ command: 3, chapterRun: 1 }),
  );
});

describe("a6 the verifier is out of the agent's reach", () => {
  const t = () => task("fix-failing-test");
  let workspace: string;
  beforeAll(async () => {
    workspace = await prepareWorkspace(t());
  });
  afterAll(() => removeWorkspace(workspace));

  it("the file tools refuse the task's tests and solution, by a relative or an absolute path", () => {
    const hidden = path.join(t().dir, "tests", "test.sh");
    for (const requested of [
      hidden,
      path.relative(workspace, hidden),
      path.join(TASKS_DIR, "..", "tasks"),
    ]) {
      expect(() => BASE_HANDLERS.read({ path: requested }, toolAt(workspace)), requested).toThrow(
        /escapes the workspace/,
      );
    }
    expect(() =>
      BASE_HANDLERS.write(
        { path: path.relative(workspace, hidden), content: "exit 0" },
        toolAt(workspace),
      ),
    ).toThrow(/escapes the workspace/);
    expect(readFileSync(hidden, "utf8")).not.toBe("exit 0");
  });

  it(
    "no verifier folder exists while the agent plays: it is made after the agent stops",
    async () => {
      let seen: string[] = [];
      const spy: Contestant = {
        name: "spy",
        async play() {
          seen = readdirSync(tmpdir()).filter((name) => name.startsWith(`lah-verify-${t().id}-`));
          return { calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
        },
      };
      await runOne(spy, t(), 1, STAGE);
      expect(seen).toEqual([]);
    },
    budget({ command: 3 }),
  );

  const sandboxed = machineSandbox().kind === "bubblewrap";
  it.runIf(!sandboxed)(
    "NOT RUN: bubblewrap is missing, so the sandbox half of this is skipped",
    () => {
      console.warn(`a6 sandbox attacks skipped: ${machineSandbox().summary}`);
    },
  );
  it.runIf(sandboxed)(
    "a command in the sandbox sees neither the tasks folder nor a verifier's copy",
    async () => {
      const hidden = path.join(t().dir, "tests", "test.sh");
      const run = (command: string) =>
        runCommand(command, {
          sandbox: sandboxFor(workspace),
          cwd: workspace,
          timeoutMs: budget("command"),
        });
      expect((await run(`cat ${JSON.stringify(hidden)}`)).exitCode).not.toBe(0);
      expect(
        (await run(`ls -A ${JSON.stringify(TASKS_DIR)} 2>/dev/null | wc -l`)).stdout.trim(),
      ).toBe("0");
      // The repository is an empty folder in the sandbox but for the tools on PATH (node_modules/.bin).
      expect((await run(`ls -A ${JSON.stringify(REPO_ROOT)}`)).stdout).not.toMatch(/chapters/);
      expect((await run(`ls /tmp | grep -c lah-verify || true`)).stdout.trim()).toBe("0");
      expect((await run(`echo 'exit 0' > ${JSON.stringify(hidden)}`)).exitCode).not.toBe(0);
      expect(readFileSync(hidden, "utf8")).not.toBe("exit 0\n");
    },
    budget({ command: 6 }),
  );
});

describe("a6 estimators", () => {
  /** n trials, c passes, k ≤ n. */
  const counts = fc
    .integer({ min: 1, max: 20 })
    .chain((n) =>
      fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })),
    );

  prop.prop([counts], { seed: SEED })(
    "pass@k and pass^k are rates, and pass^k ≤ pass@1 ≤ pass@k",
    ([n, c, k]) => {
      const at = passAtK(n, c, k);
      const all = passHatK(n, c, k);
      for (const x of [at, all]) expect(x >= 0 && x <= 1).toBe(true);
      expect(all).toBeLessThanOrEqual(c / n + 1e-12);
      expect(at).toBeGreaterThanOrEqual(c / n - 1e-12);
    },
  );

  prop.prop([counts], { seed: SEED })(
    "more tries: pass@k never falls, pass^k never rises",
    ([n, c, k]) => {
      if (k === n) return;
      expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(passAtK(n, c, k) - 1e-12);
      expect(passHatK(n, c, k + 1)).toBeLessThanOrEqual(passHatK(n, c, k) + 1e-12);
    },
  );

  prop.prop([counts], { seed: SEED })(
    "at k = 1 both are c/n; all passes give 1, none give 0",
    ([n, c]) => {
      expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 12);
      expect(passHatK(n, c, 1)).toBeCloseTo(c / n, 12);
      expect(passAtK(n, n, n)).toBe(1);
      expect(passHatK(n, n, n)).toBe(1);
      expect(passAtK(n, 0, 1)).toBe(0);
      expect(passHatK(n, 0, 1)).toBe(0);
    },
  );

  prop.prop([counts], { seed: SEED })(
    "pass@k is the share of k-subsets of the trials that hold a pass",
    ([n, c, k]) => {
      fc.pre(n <= 10);
      // Count the subsets directly: trials 0..c-1 passed.
      let withPass = 0;
      let allPass = 0;
      let total = 0;
      for (let mask = 0; mask < 1 << n; mask++) {
        let size = 0;
        let passes = 0;
        for (let i = 0; i < n; i++) {
          if (!(mask & (1 << i))) continue;
          size++;
          if (i < c) passes++;
        }
        if (size !== k) continue;
        total++;
        if (passes > 0) withPass++;
        if (passes === k) allPass++;
      }
      expect(passAtK(n, c, k)).toBeCloseTo(withPass / total, 10);
      expect(passHatK(n, c, k)).toBeCloseTo(allPass / total, 10);
    },
  );

  // The numbers' rules, defined once with the exercises (exercises/checks.ts beside the chapter) and run here
  // against the appendix's own stats.ts.
  for (const check of exercises.find((e) => e.id === "a6")!.checks)
    it(`behaviour: ${check.id}`, () => check.run(stats as never, testKit()));

  it("known values: 1 pass in 3 trials", () => {
    expect(passAtK(3, 1, 2)).toBeCloseTo(2 / 3, 12);
    expect(passHatK(3, 1, 2)).toBe(0);
    expect(passAtK(3, 2, 3)).toBe(1);
    expect(passHatK(3, 2, 2)).toBeCloseTo(1 / 3, 12);
    expect(choose(5, 2)).toBe(10);
  });

  it("bad counts are errors that say what is needed", () => {
    expect(() => passAtK(3, 4, 1)).toThrow(/0 ≤ c ≤ n/);
    expect(() => passHatK(3, 1, 4)).toThrow(/run at least k trials/);
    expect(() => passAtK(2.5, 1, 1)).toThrow(/whole numbers/);
  });

  prop.prop([fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true })], {
    seed: SEED,
  })("Wilson: inside [0, 1], around the observed rate, narrower with more tasks", (n, rate) => {
    const { low, high } = wilson(rate, n);
    expect(low).toBeGreaterThanOrEqual(0);
    expect(high).toBeLessThanOrEqual(1);
    expect(low).toBeLessThanOrEqual(rate + 1e-12);
    expect(high).toBeGreaterThanOrEqual(rate - 1e-12);
    const wider = wilson(rate, n * 4);
    expect(wider.high - wider.low).toBeLessThan(high - low);
  });

  it("Wilson's known values: 0 of 12 could be 24 %, 12 of 12 could be 76 %", () => {
    expect(wilson(0, 12).low).toBe(0);
    expect(wilson(0, 12).high).toBeCloseTo(0.2425, 4);
    expect(wilson(1, 12).low).toBeCloseTo(0.7575, 4);
    expect(wilson(0.5, 12).low).toBeCloseTo(0.2538, 3);
  });

  prop.prop(
    [
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }),
      fc.nat(),
    ],
    {
      seed: SEED,
      numRuns: 30,
    },
  )(
    "the bootstrap stays within the values and gives the same interval for the same seed",
    (values, seed) => {
      const one = bootstrap(values, seed, 300);
      expect(bootstrap(values, seed, 300)).toEqual(one);
      expect(one.low).toBeGreaterThanOrEqual(Math.min(...values) - 1e-12);
      expect(one.high).toBeLessThanOrEqual(Math.max(...values) + 1e-12);
      expect(one.low).toBeLessThanOrEqual(one.high);
    },
  );

  it("a harness's rates: the mean of its tasks' rates, each with its interval", () => {
    const run = (taskId: string, trial: number, passed: boolean): RunRecord => ({
      harness: "h",
      task: taskId,
      trial,
      passed,
      exitCode: passed ? 0 : 1,
      calls: 2,
      input_tokens: 100,
      output_tokens: 10,
      ms: 1,
      verifierOutput: "",
    });
    // task a: 3/3, task b: 1/3, task c: 0/3
    const records = [
      ...[1, 2, 3].map((i) => run("a", i, true)),
      ...[1, 2, 3].map((i) => run("b", i, i === 1)),
      ...[1, 2, 3].map((i) => run("c", i, false)),
    ];
    const [s] = summarize(records, SEED, "claude-sonnet-5-5");
    expect(s.trials).toBe(3);
    expect(s.pass1.value).toBeCloseTo((1 + 1 / 3 + 0) / 3, 4);
    expect(s.passAtK.value).toBeCloseTo(2 / 3, 4); // a and b have a pass in 3 tries
    expect(s.passHatK.value).toBeCloseTo(1 / 3, 4); // only a passes all 3
    expect(s.pass1.low).toBeLessThan(s.pass1.value);
    expect(s.tokens).toBe(110);
  });
});

describe("a6 the results file", () => {
  it(
    "is byte-identical across two runs with the same seed",
    async () => {
      const once = async () => {
        const records = await runEval({
          stage: STAGE,
          harnesses: ["s02", "s07"],
          tasks: "denied-command,secret-stays-secret,keep-a-plan",
          trials: 1,
          seed: SEED,
        });
        return resultsFile(records, {
          seed: SEED,
          trials: 1,
          mode: "scripted",
          model: "claude-sonnet-5-5",
        });
      };
      const first = await once();
      expect(await once()).toBe(first);
      expect(first).not.toMatch(/lah-eval-|"ms"|duration_ms/); // no paths, no times
      const parsed = JSON.parse(first);
      expect(parsed.runs.map((r: RunRecord) => `${r.harness} ${r.task} ${r.passed}`)).toEqual([
        "s02 denied-command false",
        "s02 keep-a-plan false",
        "s02 secret-stays-secret false",
        "s07 denied-command true",
        "s07 keep-a-plan false",
        "s07 secret-stays-secret true",
      ]);
    },
    budget({ command: 3 * 12, chapterRun: 12 }),
  );

  it("lists every harness the CLI offers; the course's three run by default", () => {
    expect(HARNESS_NAMES).toEqual(["s02", "s07", "a2", "a3"]);
    expect(DEFAULT_HARNESSES).toEqual(["s02", "s07", "a2"]);
  });
});

describe("a6 npm run eval, as a learner starts it", () => {
  const EVAL = ["--import", "tsx", path.join(REPO_ROOT, "chapters/_runner/eval.ts")];

  it(
    "bad input is one sentence and exit code 2, and nothing is written",
    async () => {
      const out = path.join(tempDir(), "results.json");
      for (const [args, message] of [
        [
          ["--harness", "s99"],
          /eval: unknown harness "s99"; the harnesses are: oracle, null, s02, s07, a2, a3/,
        ],
        [["--tasks", "nope"], /eval: unknown task "nope"; the tasks are: add-a-function/],
        [["--trials", "0"], /eval: --trials must be a whole number ≥ 1, not "0"/],
        [["--frobnicate"], /eval: Unknown option '--frobnicate'/],
      ] as const) {
        const { code, stderr } = await runCli([...args, "--offline", "--out", out], {
          program: EVAL,
        });
        expect(code, args.join(" ")).toBe(2);
        expect(stderr).toMatch(message);
        expect(existsSync(out)).toBe(false);
      }
    },
    budget({ cli: 4 }),
  );

  it(
    "runs the oracle on one task and writes the results file",
    async () => {
      const out = path.join(tempDir(), "results.json");
      const { code, stdout } = await runCli(
        ["--harness", "oracle", "--tasks", "undo-a-change", "--offline", "--out", out],
        { program: EVAL },
      );
      expect(code).toBe(0);
      expect(stdout).toMatch(/undo-a-change\s+✓/);
      expect(stdout).toMatch(/pass@1 100 % \[21 %–100 %\]/); // Wilson for 1 of 1
      const results = JSON.parse(readFileSync(out, "utf8"));
      expect(results.runs).toEqual([expect.objectContaining({ harness: "oracle", passed: true })]);
      expect(existsSync(out.replace(/\.json$/, ".timings.json"))).toBe(true);
    },
    budget({ cli: 1, command: 3 }),
  );
});

describe("a6 record and replay", () => {
  const t = () => task("fix-failing-test");
  let cassette: Cassette;
  let recorded: RunRecord;

  beforeAll(
    async () => {
      const api = await startFakeApi([
        toolUse("read", { path: "src/math.ts" }),
        toolUse("edit", {
          path: "src/math.ts",
          old_text: "return sum(values) / values.length;",
          new_text: "return values.length ? sum(values) / values.length : 0;",
        }),
        endTurn("Fixed."),
      ]);
      try {
        const client = await realClient({
          ANTHROPIC_API_KEY: "sk-test",
          ANTHROPIC_BASE_URL: api.url,
        });
        cassette = {
          version: 1,
          harness: "s02",
          task: t().id,
          trial: 1,
          model: "claude-sonnet-5-5",
          calls: [],
        };
        recorded = await runOne(contestant("s02"), t(), 1, STAGE, {
          kind: "real",
          client,
          modelId: "claude-sonnet-5-5",
          cassette,
        });
        expect(api.requests).toHaveLength(3);
      } finally {
        await api.close();
      }
    },
    budget({ command: 3, chapterRun: 1 }),
  );

  it("records every request with its answer, and the verifier judges the real run", () => {
    expect(recorded.error).toBeUndefined();
    expect(recorded.passed).toBe(true);
    expect(cassette.calls.map((c) => c.agent)).toEqual(["lead", "lead", "lead"]);
    expect(recorded.input_tokens).toBe(3); // the fake API's real counts: 1 per call
  });

  it(
    "replays offline with no network call and the same verdict",
    async () => {
      const fetchSpy = vi.spyOn(globalThis, "fetch").mockRejectedValue(new Error("network used"));
      try {
        const replayed = await runOne(contestant("s02"), t(), 1, STAGE, {
          kind: "replay",
          cassette,
          modelId: "claude-sonnet-5-5",
        });
        expect(replayed.error).toBeUndefined();
        expect(replayed.passed).toBe(recorded.passed);
        expect(replayed.calls).toBe(3);
        expect(fetchSpy).not.toHaveBeenCalled();
      } finally {
        fetchSpy.mockRestore();
      }
    },
    budget({ command: 3, chapterRun: 1 }),
  );

  it(
    "a changed prompt, tool list or model is a miss that names what drifted",
    async () => {
      const changed: Task = { ...t(), instruction: `${t().instruction} Please.` };
      const prompt = await runOne(contestant("s02"), changed, 1, STAGE, {
        kind: "replay",
        cassette,
        modelId: "claude-sonnet-5-5",
      });
      expect(prompt.error).toMatch(
        /replay miss at lead's request 1: the prompt \(system prompt or messages\) changed/,
      );

      const tools = await runOne(contestant("a2"), t(), 1, STAGE, {
        kind: "replay",
        cassette,
        modelId: "claude-sonnet-5-5",
      });
      expect(tools.error).toMatch(/the tool list changed/);

      const model = await runOne(contestant("s02"), t(), 1, STAGE, {
        kind: "replay",
        cassette,
        modelId: "claude-opus-5",
      });
      expect(model.error).toMatch(/replay miss at lead's request 1: the model changed/);
    },
    budget({ command: 9, chapterRun: 3 }),
  );

  it("each drifted part alone is named alone; the workspace's path is not a drift", async () => {
    const answer = cassette.calls[0].response;
    const fake = { messages: { create: async () => answer } };
    const body = (over: Partial<CreateParams>): CreateParams => ({
      model: "claude-sonnet-5-5",
      max_tokens: 8000,
      system: "work in /ws",
      messages: [{ role: "user", content: "x" }],
      ...over,
    });
    const tape: Cassette = { ...cassette, calls: [] };
    await recordingClient(fake, tape, "lead", "/ws").messages.create(body({}));
    const drift = async (b: CreateParams, workspace = "/ws") => {
      try {
        await replayClient(tape, "lead", workspace).messages.create(b);
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(ReplayMiss);
        return (err as ReplayMiss).drifted;
      }
    };
    expect(await drift(body({}))).toEqual([]);
    expect(await drift(body({}), "/elsewhere")).toEqual(["prompt"]);
    expect(await drift(body({ system: "work in /elsewhere" }), "/elsewhere")).toEqual([]);
    expect(await drift(body({ model: "other" }))).toEqual(["model"]);
    expect(await drift(body({ system: "t" }))).toEqual(["prompt"]);
    const tools = [{ name: "x", input_schema: { type: "object" as const } }];
    expect(await drift(body({ tools }))).toEqual(["tools"]);
    expect(await drift(body({ tools, model: "other" }))).toEqual(["model", "tools"]);
  });
});
