// The "Open a recording…" page (OpenRecording.astro): a learner's own run, chosen with the file
// picker or dropped on the page, shown in the same player as a chapter's recorded run. Nothing is
// uploaded: the file is read in a worker (recording-worker.ts), which sends the steps in plain
// words in batches, then the panels' data. This script builds the player from the page's
// <template> (the markup Player.astro renders) and the steps as they come, every piece of the
// recording set as text (textContent), never as HTML: a recording is untrusted input. The
// sequence diagram is drawn by mermaid (loaded only when a run has one), in its strict mode.
import "./lah-player";
import { translator, type Strings } from "../../lib/ui-text";
import type { ReadReport, ReadRequest } from "./recording-worker";
import { RecordingView } from "./recording-view";

const page = document.querySelector<HTMLElement>(".lah-open");
if (page) setUp(page);

function setUp(page: HTMLElement): void {
  const strings = JSON.parse(
    page.querySelector(".lah-open-strings")?.textContent ?? "{}",
  ) as Strings;
  const lang = document.documentElement.lang || "en";
  const t = translator(strings, lang);
  const input = page.querySelector<HTMLInputElement>("input[type=file]")!;
  const drop = page.querySelector<HTMLElement>(".lah-open-drop")!;
  const status = page.querySelector<HTMLElement>(".lah-open-status")!;
  const problem = page.querySelector<HTMLElement>(".lah-open-problem")!;
  const warning = page.querySelector<HTMLElement>(".lah-open-warning")!;
  const stage = page.querySelector<HTMLElement>(".lah-open-stage")!;
  const template = page.querySelector<HTMLTemplateElement>("template.lah-open-player")!;
  let worker: Worker | undefined;
  let shown: RecordingView | undefined;

  // A chapter's player links here with ?chapter=s13: the command to record that chapter.
  const wanted = new URLSearchParams(location.search).get("chapter");
  if (wanted && /^[a-z]\d{1,2}$/.test(wanted))
    for (const code of page.querySelectorAll<HTMLElement>("[data-chapter-command]"))
      code.textContent = (code.dataset.chapterCommand ?? "").replace("sNN", wanted);

  input.addEventListener("change", () => input.files?.[0] && open(input.files[0]));
  for (const type of ["dragenter", "dragover"])
    drop.addEventListener(type, (event) => {
      event.preventDefault();
      drop.dataset.over = "";
    });
  drop.addEventListener("dragleave", () => delete drop.dataset.over);
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    delete drop.dataset.over;
    const file = event.dataTransfer?.files[0];
    if (file) open(file);
  });

  function open(file: File): void {
    worker?.terminate();
    stage.replaceChildren();
    problem.hidden = warning.hidden = true;
    page.dataset.state = "reading";
    status.textContent = t("recording.reading", { file: file.name, steps: 0 });
    shown?.stop();
    page.querySelector(".lah-open-parts")?.remove();
    const view = (shown = new RecordingView(template, stage, t));
    const reader = (worker = new Worker(new URL("./recording-worker.ts", import.meta.url), {
      type: "module",
    }));
    reader.onmessage = ({ data: report }: MessageEvent<ReadReport>) => {
      if (worker !== reader) return; // another file was chosen since
      if (report.type === "progress") {
        const percent = file.size ? Math.round((report.bytes / file.size) * 100) : 100;
        status.textContent = `${t("recording.reading", { file: file.name, steps: report.steps })} ${percent}%`;
      } else if (report.type === "steps") view.add(report);
      else if (report.type === "done") {
        reader.terminate();
        void view.finish(report).then(() => {
          if (worker !== reader) return;
          status.textContent = report.header
            ? t("recording.summary", {
                file: file.name,
                chapter: report.chapter,
                steps: view.count,
                model: report.header.model,
                started: when(report.header.started, lang),
              })
            : t("recording.summaryTrace", {
                file: file.name,
                chapter: report.chapter,
                steps: view.count,
              });
          if (report.truncated) {
            warning.textContent = t("recording.truncated", {
              step: report.truncated.step,
              shown: report.truncated.shown,
            });
            warning.hidden = false;
          }
          page.dataset.state = "done";
        });
      } else {
        reader.terminate();
        view.stop();
        stage.replaceChildren();
        status.textContent = "";
        const p = report.problem;
        problem.textContent = !p
          ? t("recording.failed", { file: file.name, error: report.message ?? "" })
          : p.code === "not-recording"
            ? t("recording.notRecording", { file: file.name })
            : p.code === "invalid-step"
              ? t("recording.invalidStep", { step: p.step, reason: p.reason })
              : t(`recording.${p.code}`, { version: p.version, supported: p.supported });
        problem.hidden = false;
        page.dataset.state = "failed";
      }
    };
    const request: ReadRequest = { file, strings, lang, data: page.dataset.data ?? "" };
    reader.postMessage(request);
  }
}

/** When a run was recorded, as the reader's language writes a date and a time (the header holds
 *  an ISO timestamp); a value that is no date is shown as it is. */
function when(iso: string, lang: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(date);
}
