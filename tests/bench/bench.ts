// `npm run bench`: measures, never asserts. Prints one table of figures for the README.
//   --skip-build   reuse dist/ (built under the base path, as the tests build it) instead of a clean build
//   --skip-tests   do not time the test suite (npm test, npm run test:quick)
//   --test-runs=N  time the suite N times and report the median (default 3)
//   --ci           also time `CI=true bash .ci/run` in a fresh clone of the last commit
//   --ci-busy      the same, beside two busy loops of the bench's own (a shared machine)
//   --save         keep the README's figures measured in docs/bench.json, with the day and the
//                  load; then paste `performanceTable()` into the README (tests/bench/figures.ts)
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { listChapters, playChapter, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import type { Browser, Page } from "playwright-core";
import { hasChromium, launch } from "../support/chromium.ts";
import { longTeamRecording } from "../support/recordings.ts";
import { type FigureId, type Figures, performanceTable, saveFigures } from "./figures.ts";
import { serve } from "../support/serve.ts";
import { snapshotRow } from "./checkpoints.ts";
import { exerciseCheckRow } from "./exercise-checks.ts";
import { BASE, buildEnv, DIST } from "../support/site-build.ts";

const args = new Set(process.argv.slice(2));
const rows: [string, string][] = [];
const add = (what: string, value: string) => {
  rows.push([what, value]);
  console.error(`  ${what}: ${value}`);
};
/** How fast this machine is: the CPU-seconds of a fixed loop (3 × 10⁸ additions) in a node of its
 *  own, the least of three. Machines of one kind are not equally fast: the same suite took 500
 *  CPU-s on one and 990 on another, whose loop took 2.5 s. */
function referenceLoop(): number {
  const code =
    "const t = process.cpuUsage(); let s = 0; for (let i = 0; i < 3e8; i++) s += i;" +
    "const u = process.cpuUsage(t); console.log((u.user + u.system) / 1e6, s > 0);";
  const runs = [0, 1, 2].map(() =>
    parseFloat(execFileSync(process.execPath, ["-e", code], { encoding: "utf8" })),
  );
  return Math.round(Math.min(...runs) * 100) / 100;
}

// The README's figures (tests/bench/figures.ts), each from the row measured here.
const startLoad = loadavg()[0];
const loop = referenceLoop();
const figures: Figures = {};
const figure = (id: FigureId, value: string) =>
  (figures[id] = {
    value,
    measured: new Date().toISOString().slice(0, 10),
    load: Math.round(startLoad * 10) / 10,
    loop,
  });
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** The same load traced: blocking time counted in main-thread CPU time instead of wall time
 *  (a task's time beyond 50 ms, top-level tasks only). On a machine other processes keep busy,
 *  wall time counts their turns as well; this counts the page's own work. */
async function blockingCpuTime(browser: Browser, url: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await browser.startTracing(page, { categories: ["toplevel", "devtools.timeline"] });
  await page.goto(url, { waitUntil: "load" });
  await diagramsVisible(page);
  await page.evaluate(() => new Promise((r) => requestIdleCallback(() => setTimeout(r, 2_000))));
  type Event = {
    name: string;
    ph: string;
    pid: number;
    tid: number;
    ts: number;
    dur: number;
    tdur?: number;
    args?: { beginData?: { url?: string } };
  };
  const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: Event[] })
    .traceEvents;
  await page.close();
  const parse = events.find((e) => e.name === "ParseHTML" && e.args?.beginData?.url === url);
  if (!parse) return NaN;
  const tasks = events
    .filter(
      (e) => e.pid === parse.pid && e.tid === parse.tid && e.ph === "X" && /RunTask$/.test(e.name),
    )
    .sort((a, b) => a.ts - b.ts);
  let end = 0;
  let blocking = 0;
  for (const task of tasks) {
    if (task.ts < end) continue; // nested in the task before
    end = task.ts + task.dur;
    blocking += Math.max(0, (task.tdur ?? task.dur) / 1000 - 50);
  }
  return blocking;
}

/** Opens `file` with the page's "Open a recording…" input: when its first steps are shown, when
 *  it is all read, and the longest main-thread task meanwhile (milliseconds). */
async function openRecording(browser: Browser, url: string, file: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url, { waitUntil: "load" });
  await page.evaluate(() => {
    const w = window as unknown as Record<string, number>;
    w.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longest = Math.max(w.__longest, e.duration);
    }).observe({ type: "longtask" });
  });
  const start = performance.now();
  await page.setInputFiles(".lah-open input[type=file]", file);
  await page.locator(".lah-open .lah-step").first().waitFor({ timeout: 600_000 });
  const firstSteps = performance.now() - start;
  await page.waitForFunction(
    () => document.querySelector<HTMLElement>(".lah-open")!.dataset.state === "done",
    null,
    { timeout: 600_000 },
  );
  const done = performance.now() - start;
  const longest = await page.evaluate(
    () => (window as unknown as Record<string, number>).__longest,
  );
  await page.close();
  return { firstSteps, done, longest };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function timed(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** The CPU-seconds the whole machine has spent since it started (user, nice, system, irq and
 *  softirq in /proc/stat), or undefined where there is none. It counts what a test run starts and
 *  nobody waits for (chromium's renderers), which `/usr/bin/time` misses (≈ 430 against ≈ 600 for
 *  one `npm test`), and every other process's work too: read it on an otherwise idle machine. */
function machineCpu(): number | undefined {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1);
    const [user, nice, system, , , irq, softirq] = f.map(Number);
    return (user + nice + system + irq + softirq) / 100; // USER_HZ, 100 on Linux
  } catch {
    return undefined;
  }
}

/** `fn`'s wall time in ms, and the machine's CPU-seconds meanwhile (see machineCpu). */
function timedOnMachine(fn: () => void): { ms: number; cpu?: number } {
  const before = machineCpu();
  const ms = timed(fn);
  const after = machineCpu();
  return { ms, cpu: before === undefined || after === undefined ? undefined : after - before };
}

const onMachine = (cpu: number | undefined) =>
  cpu === undefined ? "" : `, ${Math.round(cpu)} CPU-s on the machine`;

/** Milliseconds from spawn to the first byte on stdout, and to the end of the offline banner
 *  (its last line, "scenario: …", when `argv` starts a chapter): medians of `runs`. */
async function startTimes(cmd: string, argv: string[], runs = 5) {
  const first: number[] = [];
  const banner: number[] = [];
  for (let i = 0; i < runs; i++) {
    await new Promise<void>((resolve) => {
      const start = performance.now();
      const child = spawn(cmd, argv, {
        cwd: REPO_ROOT,
        env: { ...process.env, ANTHROPIC_API_KEY: "", NO_COLOR: "1" },
      });
      let out = "";
      child.stdout.on("data", (chunk) => {
        if (child.killed) return;
        if (!out) first.push(performance.now() - start);
        out += chunk;
        if (/^scenario: .*\n/m.test(out)) {
          banner.push(performance.now() - start);
          child.kill();
        }
      });
      child.on("close", () => resolve());
      child.stdin.end();
    });
  }
  const mid = (list: number[]) => (list.length ? median(list) : NaN);
  return { first: mid(first), banner: mid(banner) };
}

/** Waits until every diagram of the page is drawn (a build-time SVG, or mermaid's in the browser)
 *  and every picture has loaded. */
async function diagramsVisible(page: Page) {
  await page.waitForFunction(
    () =>
      !document.querySelector("pre.mermaid-source:not([data-rendered])") &&
      [...document.querySelectorAll("figure.lah-mermaid svg")].every(
        (svg) => svg.getBoundingClientRect().width > 0,
      ) &&
      [...document.images].every((img) => img.complete),
    null,
    { timeout: 60_000 },
  );
}

/** HTML and JS of a page: JS fetched by DOMContentLoaded, and all of it once every diagram is
 *  visible and the page has been idle (Starlight loads its search UI when the page is idle). */
async function pageWeight(browser: Browser, url: string) {
  const page = await browser.newPage();
  const bodies: Promise<{ t: number; raw: number; gz: number }>[] = [];
  page.on("response", (r) => {
    if (!r.url().endsWith(".js") && !(r.headers()["content-type"] ?? "").includes("javascript"))
      return;
    const t = performance.now();
    bodies.push(
      r.body().then(
        (body) => ({ t, raw: body.length, gz: gzipSync(body).length }),
        () => ({ t, raw: 0, gz: 0 }),
      ),
    );
  });
  const html = Buffer.from(await (await fetch(url)).arrayBuffer());
  await page.goto(url, { waitUntil: "domcontentloaded" });
  const domReady = performance.now();
  await diagramsVisible(page);
  await page.evaluate(() => new Promise((r) => requestIdleCallback(() => setTimeout(r, 1_000))));
  await page.waitForLoadState("networkidle");
  const loaded = await Promise.all(bodies);
  await page.close();
  const sum = (list: typeof loaded) =>
    list.reduce((a, b) => ({ raw: a.raw + b.raw, gz: a.gz + b.gz }), { raw: 0, gz: 0 });
  return {
    html: { raw: html.length, gz: gzipSync(html).length },
    initial: sum(loaded.filter((b) => b.t <= domReady)),
    all: sum(loaded),
  };
}

/** Total blocking time of one load in chromium, unthrottled: every long task's time beyond 50 ms,
 *  from navigation until every diagram is visible and no long task has come for 2 s. Also the
 *  longest task, and the DOM's size. */
async function blockingTime(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const tasks: number[][] = [];
    (window as unknown as { lahLongTasks: number[][] }).lahLongTasks = tasks;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  });
  await page.goto(url, { waitUntil: "load" });
  await diagramsVisible(page);
  let seen = -1;
  for (;;) {
    const count = await page.evaluate(
      () => (window as unknown as { lahLongTasks: number[][] }).lahLongTasks.length,
    );
    if (count === seen) break;
    seen = count;
    await page.waitForTimeout(2_000);
  }
  const result = await page.evaluate(() => {
    const tasks = (window as unknown as { lahLongTasks: number[][] }).lahLongTasks;
    return {
      tbt: tasks.reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0),
      longest: Math.max(0, ...tasks.map(([, d]) => d)),
      tasks: tasks.length,
      nodes: document.getElementsByTagName("*").length,
    };
  });
  await context.close();
  return result;
}

async function main() {
  add(
    "machine",
    `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
      `load average ${loadavg()[0].toFixed(1)} at the start (a busy machine's figures are longer); ` +
      `the reference loop ${loop.toFixed(2)} CPU-s (a slower machine's figures are longer too)`,
  );

  // The suites first, before the rows below make and delete tens of thousands of files (a4's
  // snapshot of a 10,000-file workspace, the eval's and the checks' workspaces). Timed just after
  // them, test:quick took 60.7 and 61.7 s (97–100 CPU-s), a minute later 58.8 s, and on its own
  // 56–57 s (91 CPU-s): an ext4 without a journal, as this machine's, checks every new inode
  // against those deleted in the last minutes, and the suites make files by the thousand.
  if (!args.has("--skip-tests")) {
    // The edit–test loop: the chapters and the site's logic, no build, no browser (≤ 60 s).
    {
      const quick = timeSuite("npm", ["run", "-s", "test:quick", "--"]);
      const inside = [quick.counted, onMachine(quick.cpu).replace(/^, /, "")].filter(Boolean);
      const figures =
        `${secs(quick.ms)}${inside.length ? ` (${inside.join(", ")})` : ""}` +
        (quick.failed ? ` (failed: ${quick.failed})` : "");
      add("npm run test:quick", figures);
      figure("test-quick", figures);
    }
    // The median of several runs (--test-runs N, default 3): one run on a shared machine says little.
    const runs = Number(process.argv.find((a) => a.startsWith("--test-runs="))?.split("=")[1] ?? 3);
    const times: number[] = [];
    const spent: number[] = []; // the machine's CPU-seconds, run by run
    const failures: string[] = []; // timed all the same; the row names what failed
    let counted = "";
    for (let i = 0; i < runs; i++) {
      const run = timeSuite("npx", ["vitest", "run"]);
      times.push(run.ms);
      if (run.cpu !== undefined) spent.push(run.cpu);
      if (run.failed) failures.push(`run ${i + 1}: ${run.failed}`);
      counted ||= run.counted;
    }
    add(
      `test suite (npx vitest run, includes a site build), median of ${runs}`,
      `${secs(median(times))} (runs: ${times.map(secs).join(", ")}` +
        `${spent.length ? onMachine(median(spent)) : ""})` +
        (failures.length ? `; failed: ${failures.join(" | ")}` : ""),
    );
    figure(
      "npm-test",
      `${secs(median(times))}, median of ${runs} (${counted}` +
        `${spent.length ? onMachine(median(spent)) : ""})` +
        (failures.length ? `; ${failures.length} run(s) failed` : ""),
    );
  }

  if (!args.has("--skip-build")) {
    rmSync(DIST, { recursive: true, force: true });
    rmSync(path.join(REPO_ROOT, ".astro"), { recursive: true, force: true });
    const ms = timed(() =>
      execFileSync("npx", ["astro", "build"], { cwd: REPO_ROOT, stdio: "ignore", env: buildEnv() }),
    );
    add("clean site build (astro build)", secs(ms));
    const pages = htmlPages(DIST).length;
    figure("site-build", `${secs(ms)} (${pages} pages)`);
  }
  {
    // The largest chapter pages in any locale, as built under the base path.
    const slugs = new Set(listChapters().map((c) => c.name));
    const chapterPages = htmlPages(DIST)
      .filter((f) => slugs.has(path.basename(path.dirname(f))))
      .map((f) => ({ page: path.relative(DIST, path.dirname(f)), bytes: statSync(f).size }))
      .sort((a, b) => b.bytes - a.bytes);
    if (chapterPages.length) {
      const top = chapterPages
        .slice(0, 2)
        .map((p) => `${p.page} ${p.bytes.toLocaleString("en")} bytes`);
      add("largest chapter pages, HTML", top.join(", "));
      figure("page-html", top.join(", "));
    }
  }

  if (hasChromium) {
    // The site as GitHub Pages serves it: under its base path, the build the tests use.
    const server = await serve(DIST, { base: BASE });
    const browser = await launch();
    const first = listChapters()[0].name;
    const idleJs: string[] = [];
    for (const [label, url] of [
      ["home page (no diagram)", "/"],
      [`chapter page ${first}`, `/${first}/`],
      ["chapter page s13-agent-teams (the largest)", "/s13-agent-teams/"],
    ] as const) {
      const js = await pageWeight(browser, server.url + url);
      add(`${label}: HTML`, `${kb(js.html.raw)} (gzip ${kb(js.html.gz)})`);
      add(`${label}: JS by DOMContentLoaded`, `${kb(js.initial.raw)} (gzip ${kb(js.initial.gz)})`);
      add(
        `${label}: JS once every diagram is visible and the page idle`,
        `${kb(js.all.raw)} (gzip ${kb(js.all.gz)})`,
      );
      if (url !== "/") idleJs.push(`${kb(js.all.raw)} (gzip ${kb(js.all.gz)})`);
    }
    figure("page-js", idleJs.join(" and "));
    // Total blocking time: the median of five loads each (a shared machine's figure varies).
    for (const name of [first, "s13-agent-teams"]) {
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push(await blockingTime(browser, `${server.url}/${name}/`));
      const tbt = runs.map((r) => r.tbt);
      const cpu = [];
      for (let i = 0; i < 3; i++)
        cpu.push(await blockingCpuTime(browser, `${server.url}/${name}/`));
      add(
        `chapter page ${name}: total blocking time (chromium, unthrottled, median of 5)`,
        `${median(tbt).toFixed(0)} ms (runs ${tbt.map((t) => t.toFixed(0)).join(", ")}; ` +
          `longest task ${median(runs.map((r) => r.longest)).toFixed(0)} ms; ${runs[0].nodes} DOM elements); ` +
          `counted in main-thread CPU time, median of 3: ${median(cpu).toFixed(0)} ms`,
      );
      if (name === "s13-agent-teams")
        figure(
          "tbt",
          `${median(tbt).toFixed(0)} ms median of 5 (${median(cpu).toFixed(0)} ms in CPU time)`,
        );
    }
    // Opening a 50 MB recording on the site (the browser test checks that the page answers
    // while it is read; how long it takes is measured here).
    {
      const big = longTeamRecording(50 * 1024 * 1024);
      const dir = mkdtempSync(path.join(tmpdir(), "bench-open-"));
      const file = path.join(dir, "big.jsonl");
      writeFileSync(file, big.text);
      try {
        const t = await openRecording(browser, `${server.url}/open/`, file);
        add(
          `a ${(big.text.length / 2 ** 20).toFixed(0)} MB recording opened on the site (${big.steps} steps)`,
          `first steps ${secs(t.firstSteps)}, all shown ${secs(t.done)}, longest task ${secs(t.longest)}`,
        );
        figure(
          "recording",
          `first steps ${secs(t.firstSteps)}, all shown ${secs(t.done)}, longest task ${secs(t.longest)}`,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    await browser.close();
    await server.close();
  } else {
    add("page JS", "skipped (no /usr/bin/chromium)");
  }

  const { first: nodeStart } = await startTimes(process.execPath, ["-e", "console.log(1)"]);
  const chapterArgs = () => [
    "s01",
    "--offline",
    "--demo",
    "--workspace",
    mkdtempSync(path.join(tmpdir(), "bench-")),
  ];
  const direct = await startTimes(process.execPath, ["chapters/_runner/cli.js", ...chapterArgs()]);
  const npm = await startTimes("npm", ["run", "--silent", "chapter", "--", ...chapterArgs()]);
  const times = (t: { first: number; banner: number }) =>
    `${t.first.toFixed(0)} ms (${(t.first / nodeStart).toFixed(1)}× node -e); whole banner ${t.banner.toFixed(0)} ms`;
  add("first output: node -e", `${nodeStart.toFixed(0)} ms`);
  add("first output: node chapters/_runner/cli.js s01", times(direct));
  add("first output: npm run chapter s01", times(npm));
  figure(
    "first-output",
    `${secs(npm.first)} (\`node -e\` alone ${secs(nodeStart)}); the whole banner ${secs(npm.banner)}`,
  );
  const scenarioTimes: { id: string; ms: number }[] = [];

  for (const info of listChapters()) {
    const ws = mkdtempSync(path.join(tmpdir(), `bench-${info.id}-`));
    const start = performance.now();
    try {
      await playChapter(info, ws);
      const ms = performance.now() - start;
      add(`scenario ${info.id} (${info.slug})`, secs(ms));
      scenarioTimes.push({ id: info.id, ms });
    } catch (err) {
      add(`scenario ${info.id} (${info.slug})`, `failed: ${(err as Error).message}`);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  }

  // a6's eval offline: 12 tasks × 3 harnesses × 1 trial, each run in a fresh sandboxed workspace
  // and judged by its verifier (target: ≤ 2 min on the CI machine kind). The results file of two
  // runs with the same seed must be the same bytes; the row says whether it was.
  {
    const dir = mkdtempSync(path.join(tmpdir(), "bench-eval-"));
    const evalRun = (out: string) =>
      timed(() =>
        execFileSync(
          "npm",
          ["run", "--silent", "eval", "--", "--harness", "s02,s07,a2", "--tasks", "all"].concat([
            "--trials",
            "1",
            "--offline",
            "--out",
            path.join(dir, out),
          ]),
          { cwd: REPO_ROOT, stdio: "ignore" },
        ),
      );
    try {
      const ms = evalRun("one.json");
      evalRun("two.json");
      const same =
        readFileSync(path.join(dir, "one.json"), "utf8") ===
        readFileSync(path.join(dir, "two.json"), "utf8");
      const value = `${secs(ms)}; results file ${same ? "byte-identical" : "DIFFERS"} across two runs`;
      add("npm run eval: 12 tasks × 3 harnesses × 1 trial, offline", value);
      figure("eval", value);
    } catch (err) {
      add("npm run eval", `failed: ${(err as Error).message.split("\n")[0]}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  if (scenarioTimes.length) {
    const sorted = [...scenarioTimes].sort((a, b) => a.ms - b.ms);
    const [fast, slow] = [sorted[0], sorted.at(-1)!];
    figure(
      "scenarios",
      `${secs(fast.ms)} (${fast.id}) – ${secs(slow.ms)} (${slow.id}), ${sorted.length} chapters`,
    );
  }

  try {
    const [what, value] = snapshotRow();
    add(what, value);
    figure("snapshot", value);
  } catch (err) {
    add("a4 snapshot of a 10,000-file workspace", `failed: ${(err as Error).message}`);
  }

  // The exercises: `--check` on every reference answer (target ≤ 5 s each on the CI machine kind),
  // and `--status` over every exercise (≤ 30 s), each in a workbench of the bench's own.
  try {
    const [what, value] = exerciseCheckRow();
    add(what, value);
    figure("exercise-check", value);
    const workbench = mkdtempSync(path.join(tmpdir(), "bench-workbench-"));
    try {
      const status = timed(() =>
        execFileSync("npm", ["run", "--silent", "exercise", "--", "--status"], {
          cwd: REPO_ROOT,
          env: { ...process.env, LAH_WORKBENCH: workbench },
          stdio: "ignore",
        }),
      );
      add("npm run exercise -- --status (every exercise)", secs(status));
    } finally {
      rmSync(workbench, { recursive: true, force: true });
    }
  } catch (err) {
    add("exercises", `failed: ${(err as Error).message.split("\n")[0]}`);
  }

  // Reading a recording (site/lib/recording.ts, as the page's worker does, in 64 KiB chunks): 24 MB
  // as one line and as 384 lines should take about the same time (one line once took 3.5 s).
  {
    const { RecordingReader } = await import("../../site/lib/recording.ts");
    const { recordingHeader, toolResultLine: result } = await import("../support/recordings.ts");
    const header = recordingHeader();
    const read = (text: string) =>
      timed(() => {
        const reader = new RecordingReader();
        for (let i = 0; i < text.length; i += 65_536) reader.push(text.slice(i, i + 65_536));
        reader.finish();
      });
    const size = 24 * 1024 * 1024;
    const one = read(`${header}\n${result("x".repeat(size))}\n`);
    const many = read(
      `${header}\n${Array.from({ length: 384 }, () => result("x".repeat(size / 384))).join("\n")}\n`,
    );
    add("read a 24 MB recording: one line / 384 lines", `${secs(one)} / ${secs(many)}`);
  }

  // What CI does: a fresh clone of the last commit, then `.ci/run` (install, check, test); with
  // --ci-busy, again beside two processes that keep both cores busy, as a shared machine is.
  if (args.has("--ci")) timeCi("ci");
  if (args.has("--ci-busy")) timeCi("ci-busy");

  const width = Math.max(...rows.map(([w]) => w.length));
  console.log(`\n| measurement | value |\n|${"-".repeat(width + 2)}|-------|`);
  for (const [what, value] of rows) console.log(`| ${what.padEnd(width)} | ${value} |`);
  console.log(
    `\nmeasured ${new Date().toISOString().slice(0, 10)}; ${readFileSync(path.join(REPO_ROOT, "package.json"), "utf8").match(/"astro": "([^"]+)"/)?.[1] ?? ""} astro`,
  );
  if (args.has("--save")) {
    const saved = saveFigures(figures);
    console.log(
      `\nThe README's performance table (docs/bench.json updated):\n\n${performanceTable(saved)}`,
    );
  }
}

/** Every built page's index.html under `dir`. */
function htmlPages(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((f) => f === "index.html" || f.endsWith(`${path.sep}index.html`))
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** One run of a vitest suite (`argv` ends where vitest's own options go): its wall time, the
 *  machine's CPU-seconds meanwhile, "N files, M tests", and the tests that failed, if any. */
function timeSuite(program: string, argv: string[]) {
  const report = path.join(tmpdir(), `lah-bench-${process.pid}-${Date.now()}.json`);
  let failed = "";
  const { ms, cpu } = timedOnMachine(() => {
    try {
      execFileSync(program, [...argv, "--reporter=json", `--outputFile=${report}`], {
        cwd: REPO_ROOT,
        stdio: "ignore",
      });
    } catch {
      failed = failedTests(report).join("; ") || "no report";
    }
  });
  const counted = testCount(report);
  rmSync(report, { force: true });
  return { ms, cpu, counted, failed };
}

/** Times `CI=true bash .ci/run` in a fresh clone of the last commit; for "ci-busy", with two
 *  busy loops of its own beside it, stopped (by their pids) when it ends. */
function timeCi(id: "ci" | "ci-busy") {
  const clone = mkdtempSync(path.join(tmpdir(), "bench-ci-"));
  const loops =
    id === "ci-busy"
      ? [1, 2].map(() => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }))
      : [];
  try {
    execFileSync("git", ["clone", "-q", REPO_ROOT, clone], { stdio: "ignore" });
    let failed = "";
    const ms = timed(() => {
      try {
        execFileSync("bash", [".ci/run"], {
          cwd: clone,
          stdio: "ignore",
          env: { ...process.env, CI: "true" },
        });
      } catch {
        failed = " (failed)";
      }
    });
    const min = Math.floor(ms / 60_000);
    const time = `${min} min ${Math.round((ms - min * 60_000) / 1000)} s`;
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: clone })
      .toString()
      .trim();
    const figures = `${time}${failed || ", green"} (at ${commit})`;
    add(
      `CI=true bash .ci/run on a fresh clone${id === "ci-busy" ? ", two busy loops beside it" : ""}`,
      figures,
    );
    figure(id, figures);
  } finally {
    for (const loop of loops) loop.kill("SIGKILL");
    rmSync(clone, { recursive: true, force: true });
  }
}

/** "N files, M tests" from a vitest JSON report. */
function testCount(report: string): string {
  try {
    const { numTotalTests, testResults } = JSON.parse(readFileSync(report, "utf8")) as {
      numTotalTests: number;
      testResults: unknown[];
    };
    return `${testResults.length} files, ${numTotalTests.toLocaleString("en")} tests`;
  } catch {
    return "";
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

/** The tests a vitest JSON report (--reporter=json) marks failed, as "file > test". */
function failedTests(report: string): string[] {
  type Report = {
    testResults: { name: string; assertionResults: { status: string; fullName: string }[] }[];
  };
  try {
    const { testResults } = JSON.parse(readFileSync(report, "utf8")) as Report;
    return testResults.flatMap((file) =>
      file.assertionResults
        .filter((t) => t.status === "failed")
        .map((t) => `${path.relative(REPO_ROOT, file.name)} > ${t.fullName}`),
    );
  } catch {
    return [];
  }
}
