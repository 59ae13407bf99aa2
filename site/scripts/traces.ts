// `npm run traces [-- s03 s13 a1 ...]`: plays every chapter's and appendix's scripted scenario
// offline and writes what happened to site/traces/<id>.json (sNN.json, aN.json) — the recorded runs the site's step-through player and
// generated sequence diagrams show. tests/site/traces.test.ts fails when a committed trace no longer
// matches what the chapter does; then run this again and commit the result.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { allRunnable, findChapter, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { TRACE_VERSION } from "../../chapters/_trace/contract.ts";
import {
  readTrace,
  recordTrace,
  serializeTrace,
  traceFile,
  TRACES_DIR,
} from "../lib/record-trace.ts";
import { traceDifference } from "../lib/trace-compare.ts";
import { teamDifference } from "../lib/trace-counts.ts";

const all = allRunnable();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const chapters = wanted.length
  ? wanted.map((q) => findChapter(q, all) ?? fail(`unknown chapter "${q}"`))
  : all;

/** The committed trace, if it is written in this version of the format (one of an older
 *  version, even one the contract still reads, is written again). */
function readable(id: string) {
  try {
    const { version } = JSON.parse(readFileSync(traceFile(id), "utf8")) as { version?: number };
    return version === TRACE_VERSION ? readTrace(id) : undefined;
  } catch {
    return undefined;
  }
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

mkdirSync(TRACES_DIR, { recursive: true });
let failed = 0;
for (const info of chapters) {
  const started = Date.now();
  try {
    const trace = await recordTrace(info);
    // A trace of an older format cannot be compared: it is simply written again.
    const before = readable(info.id);
    const file = traceFile(info.id);
    // A team run may interleave differently each time; keep the committed file if it is still right
    // (the same comparison tests/site/traces.test.ts makes).
    const same =
      before !== undefined &&
      traceDifference(before, trace) === null &&
      teamDifference(before, trace) === null;
    if (!same) writeFileSync(file, serializeTrace(trace));
    console.log(
      `${info.id}  ${String(trace.steps.length).padStart(4)} steps  ${trace.agents.join(", ").padEnd(20)} ` +
        `${same ? "unchanged" : `written  ${path.relative(REPO_ROOT, file)}`}  (${Date.now() - started} ms)`,
    );
  } catch (err) {
    failed++;
    console.error(`${info.id}  failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
process.exit(failed ? 1 : 0);
