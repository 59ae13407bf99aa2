// `npm run exercise` as a learner uses it, in a workbench of the test's own (LAH_WORKBENCH): start,
// check, the reference answer, progress, and every mistake answered with a sentence.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { EXERCISE_CLI, runCli } from "../support/run-cli.ts";
import { tempDir } from "../support/helpers.ts";
import { budget } from "../support/budgets.ts";
import { REPO_ROOT } from "../../chapters/_shared/paths.ts";
import { findChapter } from "../../chapters/_runner/discovery.js";
import { answerOf } from "../../chapters/_exercises/blanks.ts";
import { chapterOf, EXERCISES } from "../../chapters/_exercises/catalog.ts";
import { regionText } from "../../chapters/_exercises/workbench.ts";

/** How many checks s03 has: the counts below follow the catalog, not a number typed here. */
const S03_CHECKS = EXERCISES.find((e) => e.id === "s03")!.checks.length;

interface StatusRow {
  exercise: string;
  state: string;
  passed: number;
  total: number;
  typeErrors: number;
  solutionUsed: boolean;
}

/** The learner's copy with the stub's throw of `name` replaced by `body`. */
function replaceStub(file: string, name: string, body: string): void {
  const text = readFileSync(file, "utf8");
  const stub = `throw new Error("not started: ${name}");`;
  if (!text.includes(stub)) throw new Error(`no stub of ${name} in ${file}`);
  writeFileSync(file, text.replace(stub, body));
}

function workbench() {
  const root = tempDir("lah-workbench-");
  const run = (args: string[], input?: string) =>
    runCli(args, {
      program: EXERCISE_CLI,
      input,
      env: { LAH_WORKBENCH: root, LANG: "en_US.UTF-8" },
    });
  return { root, run, file: (id: string) => path.join(root, id, "agent.ts") };
}

// Each test starts the command line several times (and --check a child of its own): on a busy
// 2-core machine that is seconds per start, so the tests get the time end-to-end tests need.
/** A stub body's start that lets only the first check through to what follows it (a marker
 *  file beside the copy remembers it; every check runs in a process of its own). */
const ONLY_THE_FIRST_CHECK =
  'const fs = process.getBuiltinModule("node:fs"); const mark = `${import.meta.dirname}/.first-check`;' +
  ' if (!fs.existsSync(mark)) { fs.writeFileSync(mark, "");';

describe("npm run exercise", { timeout: budget({ cli: 8 }) }, () => {
  it("a copy of a file other than agent.ts (a6's stats.ts) is offered --check, not --mine", async () => {
    const { run, root } = workbench();
    const started = await run(["a6"]);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/Your copy: .*a6-evals\/stats\.ts/);
    expect(started.stdout).toContain("npm run exercise a6 -- --check");
    expect(started.stdout).not.toContain("npm run chapter a6 -- --mine");
    expect(readFileSync(path.join(root, "a6-evals", "stats.ts"), "utf8")).toContain(
      'throw new Error("not started: passAtK")',
    );
    // an agent.ts copy still is
    expect((await run(["a6.2"])).stdout).toContain("npm run chapter a6 -- --mine");
  });

  it("starts s03 with the stub, checks it as not started, then passes on the reference answer", async () => {
    const { run, file } = workbench();
    const started = await run(["s03"]);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/Your copy: .*s03-todo-write\/agent\.ts/);
    const copy = readFileSync(file("s03-todo-write"), "utf8");
    expect(copy).toContain('throw new Error("not started: reminderDue")');
    expect(copy).toContain(
      'from "../../../../work'.slice(0, 0) + "/chapters/s02-tool-use/agent.ts",
    );

    const stub = await run(["s03", "--check"]);
    expect(stub.code).toBe(1);
    expect(stub.stdout).toMatch(/✗ the reminder is injected after 3 rounds/);
    expect(stub.stdout).toMatch(/not started: reminderDue is still the stub that throws/);
    expect(stub.stdout).toMatch(/hint 1\/3:/);
    expect(stub.stdout).toMatch(new RegExp(`0 of ${S03_CHECKS} checks pass`));

    expect((await run(["s03", "--solution"])).code).toBe(1); // no TTY, no --yes: asks for --yes
    expect((await run(["s03", "--solution", "--yes"])).code).toBe(0);
    const passing = await run(["s03", "--check"]);
    expect(passing.stdout).toMatch(/Every check passes/);
    expect(passing.code).toBe(0);

    const status = JSON.parse((await run(["--status", "--json"])).stdout) as {
      exercise: string;
      state: string;
      passed: number;
      total: number;
    }[];
    expect(status.find((s) => s.exercise === "s03")).toMatchObject({
      state: "passing",
      passed: S03_CHECKS,
      total: S03_CHECKS,
    });
    expect(status.find((s) => s.exercise === "s03.1")).toMatchObject({ state: "not started" });
  });

  it("never overwrites a learner's work when the exercise is started again", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    writeFileSync(file("s03-todo-write"), "// my own work\n");
    const again = await run(["s03"]);
    expect(again.stdout).toMatch(/already there, as you left it/);
    expect(readFileSync(file("s03-todo-write"), "utf8")).toBe("// my own work\n");
  });

  it("a syntax error is a sentence with the file and line, not a stack", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    const f = file("s03-todo-write");
    writeFileSync(
      f,
      readFileSync(f, "utf8").replace(
        "export const REMIND_AFTER = 3;",
        "export const REMIND_AFTER = = 3;",
      ),
    );
    const out = await run(["s03", "--check"]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/your code does not load: agent\.ts:\d+:\d+: Unexpected "="/);
    expect(out.stdout + out.stderr).not.toMatch(/\n\s+at /); // no stack frames
  });

  it("a type error is a line with the file, line and TypeScript's message, and the check fails", async () => {
    const { run, file } = workbench();
    await run(["s03", "--solution", "--yes"]);
    const f = file("s03-todo-write");
    const text = readFileSync(f, "utf8").replace(
      "export const REMIND_AFTER = 3;",
      'export const REMIND_AFTER: number = "3" as unknown as string;',
    );
    writeFileSync(f, text);
    const line = text.split("\n").findIndex((l) => l.includes("REMIND_AFTER: number")) + 1;
    const out = await run(["s03", "--check"]);
    expect(out.stdout).toContain(
      `type error at agent.ts:${line}:14: Type 'string' is not assignable to type 'number'.`,
    );
    expect(out.code).toBe(1);
    // Every behaviour holds, but a type error is a failure: never "Every check passes", and
    // --status does not count it as passing.
    expect(out.stdout).not.toMatch(/Every check passes/);
    expect(out.stdout).toMatch(/TypeScript finds 1 type error\(s\): it does not pass/);
    const status = JSON.parse((await run(["--status", "--json"])).stdout) as StatusRow[];
    expect(status.find((s) => s.exercise === "s03")).toMatchObject({
      state: "in progress",
      passed: S03_CHECKS,
      typeErrors: 1,
    });
  });

  it("an exception names the line of the learner's file", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    const f = file("s03-todo-write");
    const text = readFileSync(f, "utf8").replace(
      'throw new Error("not started: reminderDue");',
      "return (planning as unknown as { x: { y: string } }).x.y;",
    );
    writeFileSync(f, text);
    const line = text.split("\n").findIndex((l) => l.includes(".x.y;")) + 1;
    const out = await run(["s03", "--check"]);
    expect(out.stdout).toContain(
      `your code threw at agent.ts:${line}: Cannot read properties of undefined`,
    );
  });

  it("what the learner's code said is shown, never obeyed: an escape in an error is printed as text", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    const f = file("s03-todo-write");
    writeFileSync(
      f,
      readFileSync(f, "utf8").replace(
        'throw new Error("not started: reminderDue");',
        'throw new Error("boom \\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J");',
      ),
    );
    const out = await run(["s03", "--check"]);
    expect(out.stdout).toContain("boom");
    expect(out.stdout).not.toContain("\x1b]52");
    expect(out.stdout).not.toContain("\x1b[2J");
  });

  it("answers in the learner's language, from --lang or LANG", async () => {
    const { run } = workbench();
    const ja = await run(["s03", "--lang", "ja"]);
    expect(ja.stdout).toMatch(/あなたのコピー/);
    const de = await runCli(["s03", "--check"], {
      program: EXERCISE_CLI,
      env: { LAH_WORKBENCH: tempDir("lah-workbench-"), LANG: "de_DE.UTF-8" },
    });
    expect(de.stderr).toMatch(/ist noch nicht begonnen/);
  });

  it("an unknown exercise is one sentence naming the known ones", async () => {
    const { run } = workbench();
    const out = await run(["s99"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/there is no exercise "s99" \(known: s01, .*s03\.1/);
  });

  it("a time limit that is not a number of seconds, or an unknown option, is one sentence", async () => {
    const { run } = workbench();
    for (const value of ["soon", "0", "-3"]) {
      const out = await run(["s01", "--check", `--time-limit=${value}`]);
      expect(out.code).toBe(2);
      expect(out.stderr.trim()).toBe(
        `--time-limit takes a number of seconds greater than 0, not "${value}"`,
      );
    }
    const unknown = await run(["s01", "--chek"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      'there is no option "--chek" (npm run exercise -- --help lists every option)',
    );
  });

  it("lists every exercise with its state, and writes nothing in the repository", async () => {
    const { root, run } = workbench();
    const out = await run([]);
    expect(out.stdout).toMatch(/^s01\s+rebuild\s+not started/m);
    expect(out.stdout).toMatch(/^s03\.1\s+extend/m);
    expect(existsSync(path.join(root, "s01-agent-loop"))).toBe(false);
  });

  it("npm run chapter s03 -- --mine runs the learner's copy with the chapter's scenario", async () => {
    const { root, run } = workbench();
    const none = await runCli(["s03", "--mine", "--demo"], { env: { LAH_WORKBENCH: root } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no copy of s03 yet: start one with npm run exercise s03/);
    await run(["s03"]);
    await run(["s03", "--solution", "--yes"]);
    const ws = tempDir("lah-ws-");
    const out = await runCli(["s03", "--mine", "--demo", "--workspace", ws], {
      env: { LAH_WORKBENCH: root },
    });
    expect(out.stdout).toMatch(/code: your copy, .*s03-todo-write\/agent\.ts/);
    expect(out.stdout).toMatch(/reminder injected/);
    expect(out.code).toBe(0);
  });
});

describe("npm run exercise says truly what happened", { timeout: budget({ cli: 12 }) }, () => {
  it("a copy deleted after it was started is missing, not 'not started yet'", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    rmSync(file("s03-todo-write"));
    const out = await run(["s03", "--check"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/your copy .*s03-todo-write\/agent\.ts is missing/);
    expect(out.stderr).toMatch(/npm run exercise s03 -- --reset/);
    expect(out.stderr).not.toMatch(/not started yet/);
    const status = JSON.parse((await run(["--status", "--json"])).stdout) as StatusRow[];
    expect(status.find((s) => s.exercise === "s03")?.state).toBe("missing");
  });

  it("an await that never settles says so, not 'the check process stopped'", async () => {
    const { run, file } = workbench();
    await run(["s01"]);
    replaceStub(file("s01-agent-loop"), "agentLoop", "await new Promise<void>(() => {});");
    const out = await run(["s01", "--check"]);
    expect(out.code).toBe(1);
    expect(out.stdout).not.toMatch(/the check process stopped/);
    const said = out.stdout.match(/awaiting something that can never settle/g) ?? [];
    expect(said.length).toBe((out.stdout.match(/✗/g) ?? []).length); // every check, each said
    expect(said.length).toBeGreaterThan(0);
  });

  // Six check processes and six 10 s limits: minutes on a busy machine.
  it(
    "out of time, an idle wait and a busy loop are told apart (with --time-limit 5)",
    { timeout: budget({ cli: 12 }) },
    async () => {
      const { run, file } = workbench();
      await run(["s01"]);
      // A timer keeps the process alive, so only the time limit ends the wait.
      replaceStub(
        file("s01-agent-loop"),
        "agentLoop",
        `${ONLY_THE_FIRST_CHECK} await new Promise<void>(() => setInterval(() => {}, 1000)); }`,
      );
      const waiting = await run(["s01", "--check", "--time-limit", "5"]);
      expect(waiting.stdout).toMatch(
        /your code did not finish within 5 s, though the process was idle \(an await that never settles\?\)/,
      );
      expect(waiting.stdout).not.toMatch(/a loop that never ends/);

      const { run: run2, file: file2 } = workbench();
      await run2(["s03"]);
      replaceStub(file2("s03-todo-write"), "reminderDue", `${ONLY_THE_FIRST_CHECK} for (;;) {} }`);
      const busy = await run2(["s03", "--check", "--time-limit", "5"]);
      expect(busy.stdout).toMatch(/did not stop within 5 s, and kept the process busy/);
      expect(busy.stdout).not.toMatch(/an await that never settles/);
    },
  );

  it("a check process killed by a signal, or ended by the code, says which", async () => {
    const { run, file } = workbench();
    await run(["s03"]);
    replaceStub(file("s03-todo-write"), "reminderDue", 'process.kill(process.pid, "SIGTERM");');
    const killed = await run(["s03", "--check"]);
    expect(killed.code).toBe(1);
    expect(killed.stdout).toMatch(/the check process was killed by the signal SIGTERM/);
    expect(killed.stdout).not.toMatch(/the check process stopped/);

    const { run: run2, file: file2 } = workbench();
    await run2(["s03"]);
    replaceStub(file2("s03-todo-write"), "reminderDue", "process.exit(3);");
    const exited = await run2(["s03", "--check"]);
    expect(exited.stdout).toMatch(/your code ended the check process \(exit code 3\)/);
  });

  it("the hint shown is the failing check's own, and a pass says why and what is next", async () => {
    const { run, file } = workbench();
    await run(["s02", "--solution", "--yes"]);
    const f = file("s02-tool-use");
    const answer = readFileSync(f, "utf8");
    const guard = "if (malformed) return { output: `Error: ${malformed}`, isError: true };";
    expect(answer).toContain(guard);
    writeFileSync(f, answer.replace(guard, ""));
    const words = parse(
      readFileSync(path.join(REPO_ROOT, "chapters/s02-tool-use/exercises/en.yaml"), "utf8"),
    ) as { checkHints: Record<string, string>; why: string };
    const failing = await run(["s02", "--check"]);
    expect(failing.stdout).toMatch(/✗ a call whose input does not fit/);
    expect(failing.stdout).toContain(`hint for this check: ${words.checkHints["input-checked"]}`);
    expect(failing.stdout).not.toMatch(/hint 1\/\d/);

    writeFileSync(f, answer);
    const passing = await run(["s02", "--check"]);
    expect(passing.code).toBe(0);
    expect(passing.stdout).toContain(`Why it is built this way: ${words.why}`);
    expect(passing.stdout).toMatch(/Next, in the suggested order: npm run exercise s02\.1/);
  });

  it("--solution keeps the learner's version beside it and shows the difference", async () => {
    const { root, run, file } = workbench();
    await run(["s03"]);
    const f = file("s03-todo-write");
    replaceStub(f, "reminderDue", "return undefined; // my own try");
    const mine = readFileSync(f, "utf8");
    const out = await run(["s03", "--solution", "--yes"]);
    expect(out.code).toBe(0);
    const kept = readdirSync(path.join(root, "s03-todo-write")).filter((n) =>
      /^agent\.mine-\d{4}-\d\d-\d\d-\d{6}\.ts$/.test(n),
    );
    expect(kept).toHaveLength(1);
    expect(readFileSync(path.join(root, "s03-todo-write", kept[0]), "utf8")).toBe(mine);
    expect(out.stdout).toContain(`Your version is kept as`);
    expect(out.stdout).toMatch(/^-.*return undefined; \/\/ my own try$/m);
    expect(out.stdout).toMatch(/^\+.*REMIND_AFTER/m);
    expect(readFileSync(f, "utf8")).not.toContain("my own try");

    const status = JSON.parse((await run(["--status", "--json"])).stdout) as StatusRow[];
    expect(status.find((s) => s.exercise === "s03")).toMatchObject({ solutionUsed: true });
    const text = (await run(["--status"])).stdout;
    expect(text).toMatch(/^s03\s.*\(solution used\)/m);
    // As many as the catalog holds (a new chapter's exercises count too).
    const total = EXERCISES.length;
    expect(text).toContain(
      `0 of ${total} passing, 1 in progress, ${total - 1} not started; the solution was used in 1.`,
    );
    expect(text).toMatch(/Next, in the suggested order: npm run exercise s01$/m);
  });

  it("--reset asks, and gives a fresh stub back with the learner's version kept", async () => {
    const { root, run, file } = workbench();
    await run(["s03"]);
    const f = file("s03-todo-write");
    const stub = readFileSync(f, "utf8");
    replaceStub(f, "reminderDue", "return undefined; // my own try");
    const mine = readFileSync(f, "utf8");
    const refused = await run(["s03", "--reset"]); // no terminal to ask on, no --yes
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/say --yes/);
    expect(readFileSync(f, "utf8")).toBe(mine);
    const reset = await run(["s03", "--reset", "--yes"]);
    expect(reset.code).toBe(0);
    expect(readFileSync(f, "utf8")).toBe(stub);
    const kept = readdirSync(path.join(root, "s03-todo-write")).filter((n) => n.includes(".mine-"));
    expect(kept.map((n) => readFileSync(path.join(root, "s03-todo-write", n), "utf8"))).toEqual([
      mine,
    ]);
  });

  it("--help explains every option", async () => {
    const { run } = workbench();
    const out = await run(["--help"]);
    expect(out.code).toBe(0);
    for (const option of [
      "--check",
      "--solution",
      "--reset",
      "--yes",
      "--status",
      "--json",
      "--lang",
      "--time-limit",
      "--help",
    ])
      expect(out.stdout).toMatch(new RegExp(`^\\s+${option}\\b.*\\S`, "m"));
  });

  it("npm run exercise works from inside a copy's folder, which names the exercise", async () => {
    const { run, file } = workbench();
    await run(["s03", "--solution", "--yes"]);
    const dir = path.dirname(file("s03-todo-write"));
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn("npm", ["run", "exercise", "--", "--check"], {
          cwd: dir,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: process.env.HOME ?? "/tmp",
            NO_COLOR: "1",
            LANG: "en_US.UTF-8",
            LAH_WORKBENCH: path.dirname(dir),
          },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      },
    );
    expect(out.stderr).not.toMatch(/Missing script/);
    expect(out.stdout).toMatch(/^s03 · /m);
    expect(out.stdout).toMatch(/Every check passes/);
    expect(out.code).toBe(0);
  });
});

// The words the checker shows: a hint per check must name a real check, and no hint may be the
// answer's code (a run of 12 or more of the answer's tokens in a row: a statement, not a name).
describe("the exercises' hints", () => {
  const LOCALES = ["en", "ja", "zh", "de"] as const;
  type Words = { rebuild?: { hints: string[] }; checkHints?: Record<string, string> };
  const wordsOf = (dir: string, locale: string): Words | undefined => {
    const file = path.join(dir, "exercises", `${locale}.yaml`);
    return existsSync(file) ? (parse(readFileSync(file, "utf8")) as Words) : undefined;
  };
  const chapters = [...new Set(EXERCISES.map((e) => chapterOf(e.id)))].map((id) =>
    findChapter(id)!,
  );

  it("a hint per check names a check of the chapter, in every language the same ones", () => {
    for (const chapter of chapters) {
      const ids = new Set(
        EXERCISES.filter((e) => chapterOf(e.id) === chapter.id).flatMap((e) =>
          e.checks.map((c) => c.id),
        ),
      );
      const english = Object.keys(wordsOf(chapter.dir, "en")?.checkHints ?? {});
      for (const id of english) expect(ids, `${chapter.id} checkHints.${id}`).toContain(id);
      for (const locale of LOCALES)
        expect(Object.keys(wordsOf(chapter.dir, locale)?.checkHints ?? {}).sort(), locale).toEqual(
          [...english].sort(),
        );
    }
    // The chapters whose words this change wrote have a hint for every check.
    for (const id of ["s02", "s04", "s05", "s06", "s08", "s09", "s10", "s11", "s12"]) {
      const chapter = findChapter(id)!;
      const checks = EXERCISES.filter((e) => chapterOf(e.id) === id).flatMap((e) => e.checks);
      for (const check of checks)
        expect(
          wordsOf(chapter.dir, "en")?.checkHints?.[check.id],
          `${id} ${check.id}`,
        ).toBeTruthy();
    }
  });

  it("no hint is the answer's code", () => {
    const tokens = (s: string) => s.match(/[A-Za-z_$][\w$]*|\d+|[^\s\w]/g) ?? [];
    const longestRun = (a: string[], b: string[]) => {
      let best = 0;
      const row = new Array<number>(b.length + 1).fill(0);
      for (let i = 1; i <= a.length; i++) {
        let diagonal = 0;
        for (let j = 1; j <= b.length; j++) {
          const above = row[j];
          row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : 0;
          best = Math.max(best, row[j]);
          diagonal = above;
        }
      }
      return best;
    };
    const offenders: string[] = [];
    for (const chapter of chapters) {
      const exercises = EXERCISES.filter((e) => chapterOf(e.id) === chapter.id);
      const answer = tokens(
        exercises
          .map((e) => {
            const reference = readFileSync(path.join(chapter.dir, e.file), "utf8");
            const bodies = (e.blanks ?? []).map((b) => answerOf(reference, b.name));
            const regions = Object.entries(e.solution ?? {}).map(([name, answer]) =>
              typeof answer === "string" ? answer : answer(regionText(reference, name)),
            );
            return [...bodies, ...regions].join("\n");
          })
          .join("\n")
          .replace(/\/\/.*$/gm, ""),
      );
      for (const locale of LOCALES) {
        const words = wordsOf(chapter.dir, locale);
        const hints = [
          ...(words?.rebuild?.hints ?? []).map((h, i) => [`hints[${i}]`, h] as const),
          ...Object.entries(words?.checkHints ?? {}).map(
            ([k, h]) => [`checkHints.${k}`, h] as const,
          ),
        ];
        for (const [where, hint] of hints)
          if (longestRun(tokens(hint), answer) >= 12)
            offenders.push(`${chapter.id} ${locale} ${where}`);
      }
    }
    // Words being rewritten by their chapters' owners (issue 31, items 1–4) at the time of this
    // test; a chapter leaves this list when its hints stop quoting the answer.
    const rewrittenElsewhere = /^(s07|s13|s14|a1|a2) /;
    expect(offenders.filter((o) => !rewrittenElsewhere.test(o))).toEqual([]);
  });
});

describe("workbench/package.json", () => {
  it("is the checker's: a script planted in it is gone the next time the command line runs", async () => {
    const { root, run } = workbench();
    await run(["s03"]);
    const marker = path.join(root, "package.json");
    const pkg = JSON.parse(readFileSync(marker, "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.exercise).toMatch(/chapters\/_exercises\/cli\.ts$/);
    writeFileSync(
      marker,
      JSON.stringify({ ...pkg, scripts: { ...pkg.scripts, preexercise: "touch pwned" } }),
    );
    await run(["--status"]);
    expect(readFileSync(marker, "utf8")).not.toContain("preexercise");
    expect(JSON.parse(readFileSync(marker, "utf8"))).toEqual(pkg);
  });
});
