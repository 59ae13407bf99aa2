// `npm run notes -- s05 [--locale ja]`: the recorded run of a chapter (site/traces/<id>.json),
// one line per step with the keys a step note can use (chapters/_runner/notes.ts) and the note
// it has now — what a writer or translator of notes works from. Exits 1 if a note names no step.
import { allRunnable, findChapter } from "../../chapters/_runner/chapters.ts";
import { attachNotes } from "../../chapters/_runner/notes.ts";
import { readNotes } from "../../chapters/_runner/notes-files.ts";
import { LOCALES, type Locale } from "../../i18n/locales.ts";
import { readTrace } from "../lib/record-trace.ts";
import { stepView } from "../lib/trace-view.ts";

const args = process.argv.slice(2);
const at = args.indexOf("--locale");
const locale = (at >= 0 ? args[at + 1] : "en") as Locale;
if (!LOCALES.includes(locale)) throw new Error(`--locale must be one of ${LOCALES.join(", ")}`);
const wanted = args.filter((a, i) => !a.startsWith("-") && args[i - 1] !== "--locale");
if (wanted.length === 0) throw new Error("name a chapter: npm run notes -- s05");

let unusedTotal = 0;
for (const query of wanted) {
  const info = findChapter(query, allRunnable());
  if (!info) throw new Error(`unknown chapter "${query}"`);
  const trace = readTrace(info.id);
  if (!trace) throw new Error(`${info.id} has no recorded run: npm run traces -- ${info.id}`);
  const { byStep, unused } = attachNotes(trace.steps, readNotes(info.dir, locale));
  const labels = {
    user: "you ›",
    request: (m: number, t: number) => `→ model · ${m} messages · ${t} tools`,
    response: (stop: string) => `← model (${stop})`,
    system: "system:",
    note: "◆",
    result: "↳",
    error: "✗",
  };
  console.log(`# ${info.id} (${locale}) — ${trace.steps.length} steps`);
  trace.steps.forEach((step, i) => {
    const view = stepView(step, labels);
    const line = view.body ? view.body.replace(/\s+/g, " ").slice(0, 90) : "";
    const { keys, note, phase } = byStep[i];
    console.log(
      `${String(i + 1).padStart(4)} ${step.agent.padEnd(8)} ${view.title.slice(0, 48).padEnd(48)} ${line}`,
    );
    if (keys.length) console.log(`       keys: ${keys.join("  ")}`);
    if (phase) console.log(`       PHASE: ${phase}`);
    if (note) console.log(`       NOTE: ${note.trim().replace(/\s+/g, " ")}`);
  });
  for (const key of unused) console.log(`UNUSED KEY (names no step): ${key}`);
  unusedTotal += unused.length;
}
process.exit(unusedTotal ? 1 : 0);
