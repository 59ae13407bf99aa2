// `npm run bench`: measures, never asserts. Prints one table of figures for the README.
//   --skip-build   reuse dist/ instead of a clean build     --skip-tests   do not time the test suite
//   --test-runs=N  time the suite N times and report the median (default 3)
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { listChapters, playChapter, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { hasChromium, launch } from "../browser/chromium.ts";
import { serve } from "../browser/serve.ts";

const args = new Set(process.argv.slice(2));
const rows: [string, string][] = [];
const add = (what: string, value: string) => {
  rows.push([what, value]);
  console.error(`  ${what}: ${value}`);
};
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function timed(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

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
  const median = (list: number[]) =>
    list.length ? [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] : NaN;
  return { first: median(first), banner: median(banner) };
}

/** JS the browser fetches for a page: at DOMContentLoaded and after everything has loaded. */
async function pageJs(url: string) {
  const browser = await launch();
  const page = await browser.newPage();
  const bodies: { t: number; raw: number; gz: number }[] = [];
  let domReady = Infinity;
  page.on("response", async (r) => {
    if (!r.url().endsWith(".js") && !(r.headers()["content-type"] ?? "").includes("javascript"))
      return;
    const t = performance.now();
    const body = await r.body().catch(() => Buffer.alloc(0));
    bodies.push({ t, raw: body.length, gz: gzipSync(body).length });
  });
  const html = await (await fetch(url)).text();
  await page.goto(url, { waitUntil: "domcontentloaded" });
  domReady = performance.now();
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  await browser.close();
  const sum = (list: typeof bodies) =>
    list.reduce((a, b) => ({ raw: a.raw + b.raw, gz: a.gz + b.gz }), { raw: 0, gz: 0 });
  return {
    html: { raw: html.length, gz: gzipSync(html).length },
    initial: sum(bodies.filter((b) => b.t <= domReady)),
    all: sum(bodies),
  };
}

async function main() {
  add(
    "machine",
    `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );

  if (!args.has("--skip-build")) {
    rmSync(path.join(REPO_ROOT, "dist"), { recursive: true, force: true });
    rmSync(path.join(REPO_ROOT, ".astro"), { recursive: true, force: true });
    const ms = timed(() =>
      execFileSync("npx", ["astro", "build"], { cwd: REPO_ROOT, stdio: "ignore" }),
    );
    add("clean site build (astro build)", secs(ms));
  }

  if (hasChromium) {
    const server = await serve(path.join(REPO_ROOT, "dist"));
    const first = listChapters()[0].name;
    for (const [label, url] of [
      ["home page (no diagram)", "/"],
      [`chapter page ${first} (mermaid diagram)`, `/${first}/`],
    ] as const) {
      const js = await pageJs(server.url + url);
      add(`${label}: HTML`, `${kb(js.html.raw)} (gzip ${kb(js.html.gz)})`);
      add(
        `${label}: JS before a diagram is visible`,
        `${kb(js.initial.raw)} (gzip ${kb(js.initial.gz)})`,
      );
      add(`${label}: JS after everything loaded`, `${kb(js.all.raw)} (gzip ${kb(js.all.gz)})`);
    }
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

  for (const info of listChapters()) {
    const ws = mkdtempSync(path.join(tmpdir(), `bench-${info.id}-`));
    const start = performance.now();
    try {
      await playChapter(info, ws);
      add(`scenario ${info.id} (${info.slug})`, secs(performance.now() - start));
    } catch (err) {
      add(`scenario ${info.id} (${info.slug})`, `failed: ${(err as Error).message}`);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  }

  if (!args.has("--skip-tests")) {
    // The median of several runs (--test-runs N, default 3): one run on a shared machine says little.
    const runs = Number(process.argv.find((a) => a.startsWith("--test-runs="))?.split("=")[1] ?? 3);
    const times: number[] = [];
    let failed = 0;
    for (let i = 0; i < runs; i++)
      times.push(
        timed(() => {
          try {
            execFileSync("npx", ["vitest", "run"], { cwd: REPO_ROOT, stdio: "ignore" });
          } catch {
            failed++; // timed all the same; the row says how many failed
          }
        }),
      );
    const median = [...times].sort((a, b) => a - b)[Math.floor(runs / 2)];
    add(
      `test suite (npx vitest run, includes a site build), median of ${runs}`,
      `${secs(median)} (runs: ${times.map(secs).join(", ")}${failed ? `; ${failed} failed` : ""})`,
    );
  }

  const width = Math.max(...rows.map(([w]) => w.length));
  console.log(`\n| measurement | value |\n|${"-".repeat(width + 2)}|-------|`);
  for (const [what, value] of rows) console.log(`| ${what.padEnd(width)} | ${value} |`);
  console.log(
    `\nmeasured ${new Date().toISOString().slice(0, 10)}; ${readFileSync(path.join(REPO_ROOT, "package.json"), "utf8").match(/"astro": "([^"]+)"/)?.[1] ?? ""} astro`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
