// The "Open a recording…" page (OpenRecording.astro): a learner's own run, chosen with the file
// picker or dropped on the page, shown in the same player as a chapter's recorded run. Nothing is
// uploaded: the file is read in a worker (recording-worker.ts), which sends the steps in plain
// words in batches, then the panels' data. This script builds the player from the page's
// <template> (the markup Player.astro renders) and the steps as they come, every piece of the
// recording set as text (textContent), never as HTML: a recording is untrusted input. The
// sequence diagram is drawn by mermaid (loaded only when a run has one), in its strict mode.
import "./lah-player";
import type { PlayerStep } from "../../lib/player";
import type { MeterPoint } from "../../lib/run-state";
import { translator, type Strings } from "../../lib/ui-text";
import type { ReadReport, ReadRequest } from "./recording-worker";
import { linkSequence } from "./sequence-links";

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
                started: report.header.started,
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

type T = ReturnType<typeof translator>;
type Done = Extract<ReadReport, { type: "done" }>;

/** How long the page builds steps before it lets the browser paint and answer (ms), and how
 *  often the player takes in the steps built so far. */
const SLICE_MS = 8;
const TAKE_IN_MS = 400;
/** More model requests than this, and each bar of the meter stands for a run of them. */
const METER_BARS = 600;
/** A long run is shown a part at a time, so the page holds a few thousand steps, not 100,000. */
const PART = 2000;

/** One recording: every step in plain words as the worker sends them, and the part of the run
 *  the player shows (all of it, up to PART steps). */
class RecordingView {
  count = 0;
  readonly #template: HTMLTemplateElement;
  readonly #stage: HTMLElement;
  readonly #t: T;
  readonly #all: PlayerStep[] = [];
  #chapter = "";
  #agents: string[] = [];
  #part: PlayerPart | undefined;
  #stopped = false;

  constructor(template: HTMLTemplateElement, stage: HTMLElement, t: T) {
    this.#template = template;
    this.#stage = stage;
    this.#t = t;
  }

  /** Steps `from`… in plain words, as the worker read them; the first part is shown as they come. */
  add({ chapter, steps, agents }: Extract<ReadReport, { type: "steps" }>): void {
    this.#chapter = chapter;
    this.#agents = agents;
    const from = this.#all.length;
    for (const step of steps) this.#all.push(step);
    this.count = this.#all.length;
    if (this.#stopped) return;
    this.#part ??= this.#newPart(0);
    if (from < PART) this.#part.take(steps.slice(0, PART - from), this.count);
    else this.#part.intro(this.count);
  }

  stop(): void {
    this.#stopped = true;
    this.#part?.stop();
  }

  /** Everything is read: the first part's panels, and a choice of parts for a long run. */
  async finish(done: Done): Promise<void> {
    this.#chapter = done.chapter;
    this.#agents = done.agents;
    this.#part ??= this.#newPart(0);
    if (this.count > PART) this.#picker(done);
    await this.#part.complete(done, this.count);
  }

  #newPart(from: number): PlayerPart {
    return new PlayerPart(this.#template, this.#stage, this.#t, this.#chapter, this.#agents, from);
  }

  // "Steps 1–2000 of 104,790": the parts of a long run, one shown at a time.
  #picker(done: Done): void {
    const label = document.createElement("label");
    label.className = "lah-open-parts";
    label.append(this.#t("recording.part"), " ");
    const select = label.appendChild(document.createElement("select"));
    for (let from = 0; from < this.count; from += PART)
      select.add(
        new Option(
          this.#t("recording.steps", {
            from: from + 1,
            to: Math.min(this.count, from + PART),
            total: this.count,
          }),
          String(from),
        ),
      );
    select.addEventListener("change", () => {
      this.#part?.stop();
      const from = Number(select.value);
      const part = (this.#part = this.#newPart(from));
      part.take(this.#all.slice(from, from + PART), this.count);
      void part.complete(done, this.count);
    });
    this.#stage.before(label);
    this.#stage.dataset.parts = "";
  }
}

/** The player for steps from…from+PART of a recording, built from the page's template in slices
 *  of a few milliseconds, so the page answers a click while a long run comes in. */
class PlayerPart {
  readonly #t: T;
  readonly #player: HTMLElement & { stepsAdded(): void; supply(data: Done["data"]): void };
  readonly #root: HTMLElement;
  readonly #list: HTMLElement;
  readonly #stage: HTMLElement;
  readonly #from: number;
  #copy: DocumentFragment | undefined;
  #agents: string[];
  #queue: { steps: PlayerStep[]; at: number }[] = [];
  #built = 0;
  #pumping = false;
  #stopped = false;
  #takenIn = 0;
  #drained: (() => void) | undefined;

  constructor(
    template: HTMLTemplateElement,
    stage: HTMLElement,
    t: T,
    chapter: string,
    agents: string[],
    from: number,
  ) {
    this.#t = t;
    this.#agents = agents;
    this.#from = from;
    this.#stage = stage;
    const copy = (this.#copy = template.content.cloneNode(true) as DocumentFragment);
    this.#player = copy.querySelector("lah-player")!;
    this.#root = copy.querySelector<HTMLElement>(".lah-player")!;
    this.#list = copy.querySelector<HTMLElement>(".lah-steps")!;
    // The chapter (its own code is named as such), and its state machine if it has one, before
    // the player is wired to them.
    this.#root.dataset.chapter = chapter;
    for (const machine of copy.querySelectorAll<HTMLElement>(".lah-machine"))
      if (machine.dataset.chapter !== chapter) machine.remove();
  }

  /** More steps of this part; `total`: how many the recording has so far. */
  take(steps: PlayerStep[], total: number): void {
    this.intro(total);
    if (steps.length) this.#queue.push({ steps, at: 0 });
    this.#pump();
  }

  intro(total: number): void {
    const intro = this.#root.querySelector(".lah-player-summary");
    if (intro) intro.textContent = this.#t("recording.intro", { steps: total });
  }

  stop(): void {
    this.#stopped = true;
  }

  #pump(): void {
    if (this.#pumping || this.#stopped) return;
    this.#pumping = true;
    const slice = () => {
      if (this.#stopped) return;
      const until = performance.now() + SLICE_MS;
      const fragment = document.createDocumentFragment();
      while (this.#queue.length && performance.now() < until) {
        const batch = this.#queue[0];
        const end = Math.min(batch.steps.length, batch.at + 25);
        for (; batch.at < end; batch.at++)
          fragment.append(this.#step(batch.steps[batch.at], this.#built++));
        if (batch.at >= batch.steps.length) this.#queue.shift();
      }
      this.#list.append(fragment);
      const now = performance.now();
      if (this.#copy) {
        // The first steps: the player goes on the page (connecting it wires it up).
        this.#stage.replaceChildren(this.#copy);
        this.#copy = undefined;
        this.#takenIn = now;
      } else if (now - this.#takenIn > TAKE_IN_MS || !this.#queue.length) {
        this.#player.stepsAdded();
        this.#takenIn = performance.now();
      }
      if (this.#queue.length) setTimeout(slice, 0);
      else {
        this.#pumping = false;
        this.#drained?.();
      }
    };
    slice();
  }

  /** Once every step of the part is built: the panels, the meter and the diagram, for this part. */
  async complete(done: Done, total: number): Promise<void> {
    this.take([], total);
    if (this.#pumping) await new Promise<void>((resolve) => (this.#drained = resolve));
    if (this.#stopped) return;
    const [from, to] = [this.#from, this.#from + this.#built];
    const whole = from === 0 && to === total;
    this.#agents = done.agents;
    this.#filters(done.agents);
    this.#meter(
      done.meter
        .filter((p) => p.step >= from && p.step < to)
        .map((p) => ({ ...p, step: p.step - from })),
    );
    this.#machine(done);
    this.#player.stepsAdded();
    const d = done.data;
    this.#player.supply({
      ...d,
      spots: d.spots.slice(from, to),
      state: d.state.slice(from, to),
      focus: d.focus.slice(from, to),
    });
    const sequence = done.sequence;
    if (!whole || !sequence) return;
    if ("tooBig" in sequence) {
      const note = document.createElement("p");
      note.className = "lah-open-sequence-note";
      note.textContent = this.#t("recording.sequenceTooBig", { count: sequence.tooBig });
      this.#player.after(note);
    } else void this.#sequence(sequence);
  }

  #agentIndex(agent: string): number {
    const lead = this.#agents.includes("lead");
    const order = lead ? ["lead", ...this.#agents.filter((a) => a !== "lead")] : this.#agents;
    return Math.max(0, order.indexOf(agent)) % 5;
  }

  // The markup of Player.astro's steps, each piece of the recording as text.
  #step(step: PlayerStep, i: number): HTMLLIElement {
    const li = document.createElement("li");
    li.className = "lah-step";
    li.dataset.kind = step.kind;
    li.dataset.index = String(i);
    if (step.error) li.dataset.error = "";
    if (step.minor) li.dataset.minor = "";
    const agent = li.appendChild(document.createElement("span"));
    agent.className = "lah-agent";
    agent.dataset.agent = String(this.#agentIndex(step.agent));
    agent.textContent = step.agent;
    const title = li.appendChild(document.createElement("span"));
    title.className = "lah-step-title";
    title.textContent = step.title;
    if (step.body) {
      const body = li.appendChild(document.createElement(step.code ? "pre" : "p"));
      body.className = "lah-step-body";
      body.textContent = step.body;
    }
    if (step.raw) {
      const details = li.appendChild(document.createElement("details"));
      details.className = "lah-raw";
      details.appendChild(document.createElement("summary")).textContent = this.#t("player.raw");
      const pre = details.appendChild(document.createElement("pre"));
      pre.className = "lah-step-body";
      pre.textContent = step.raw;
    }
    return li;
  }

  #filters(agents: string[]): void {
    const select = this.#root.querySelector<HTMLSelectElement>("[data-action=agent]");
    if (!select) return;
    for (const agent of agents) select.add(new Option(agent, agent));
    select.closest("label")!.hidden = agents.length < 2;
  }

  // The context meter: one bar per model request, the API's count when the recording has it.
  #meter(points: MeterPoint[]): void {
    const figure = this.#root.querySelector<HTMLElement>(".lah-meter");
    if (!figure || !points.some((p) => p.tokens > 0)) return figure?.remove();
    const measured = points.some((p) => p.measured);
    const [W, H] = [640, 120];
    const max = points.reduce((m, p) => Math.max(m, p.tokens), 1);
    // Each request's number among its agent's requests.
    const requests = new Map<string, number>();
    const numbered = points.map((p) => {
      const n = (requests.get(p.agent) ?? 0) + 1;
      requests.set(p.agent, n);
      return { ...p, n };
    });
    // A long run: a bar per run of requests, the largest of them (its step the run's first).
    const per = Math.ceil(numbered.length / METER_BARS);
    const bars = [];
    for (let i = 0; i < numbered.length; i += per) {
      const run = numbered.slice(i, i + per);
      const top = run.reduce((a, b) => (b.tokens > a.tokens ? b : a));
      bars.push({ ...top, step: run[0].step });
    }
    const width = W / bars.length;
    const svg = figure.querySelector("svg")!;
    const NS = "http://www.w3.org/2000/svg";
    bars.forEach((p, i) => {
      const n = p.n;
      const height = Math.max(1, (p.tokens / max) * (H - 18));
      const bar = document.createElementNS(NS, "rect");
      bar.classList.add("lah-bar");
      bar.dataset.step = String(p.step);
      bar.dataset.agent = String(this.#agentIndex(p.agent));
      bar.setAttribute("x", String(i * width + width * 0.1));
      bar.setAttribute("y", String(H - height));
      bar.setAttribute("width", String(width * 0.8));
      bar.setAttribute("height", String(height));
      const messages = this.#t("player.messages", { count: p.messages });
      bar.appendChild(document.createElementNS(NS, "title")).textContent = this.#t(
        p.measured ? "meter.barMeasured" : "meter.bar",
        { agent: p.agent, n, messages, tokens: p.tokens },
      );
      svg.append(bar);
    });
    figure.querySelector(".lah-meter-caption")!.textContent = this.#t(
      measured ? "meter.captionMeasured" : "meter.caption",
    );
    figure.querySelector(".lah-meter-max")!.textContent = this.#t(
      measured ? "meter.maxMeasured" : "meter.max",
      { tokens: max },
    );
    figure.hidden = false;
  }

  // The chapter's state machine stays when its drawing came with the chapter's data.
  #machine(done: Done): void {
    if (!done.data.machineSvg) this.#root.querySelector(".lah-machine")?.remove();
  }

  async #sequence(sequence: Extract<Done["sequence"], { code: string }>): Promise<void> {
    const figure = document.createElement("figure");
    figure.className = "lah-mermaid lah-open-sequence not-content";
    figure.dataset.error = this.#t("mermaid.error", { error: "{error}" });
    const wrapper = figure.appendChild(document.createElement("div"));
    wrapper.className = "lah-trace-sequence";
    wrapper.dataset.goto = this.#t("sequence.goto");
    const block = wrapper.appendChild(document.createElement("pre"));
    block.className = "mermaid-source";
    block.dataset.source = sequence.code;
    block.textContent = sequence.code;
    figure.appendChild(document.createElement("figcaption")).textContent =
      this.#t("recording.sequence");
    this.#player.after(figure);
    const { renderInBrowser } = await import("../../lib/mermaid-draw");
    await renderInBrowser([block]);
    block.classList.add("lah-mermaid-svg");
    linkSequence(wrapper, this.#root, sequence.links);
  }
}
