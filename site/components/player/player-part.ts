// One part of a recording in the player (recording-view.ts): up to PART steps, built from the
// page's <template> in slices of a few milliseconds, every piece of the recording set as text.
import type { PlayerStep } from "../../lib/player";
import type { MeterPoint } from "../../lib/run-state";
import type { translator } from "../../lib/ui-text";
import type { ReadReport } from "./recording-worker";
import { linkSequence } from "./sequence-links";

export type T = ReturnType<typeof translator>;
export type Done = Extract<ReadReport, { type: "done" }>;

/** How long the page builds steps before it lets the browser paint and answer (ms), and how
 *  often the player takes in the steps built so far. */
const SLICE_MS = 8;
const TAKE_IN_MS = 400;
/** More model requests than this, and each bar of the meter stands for a run of them. */
const METER_BARS = 600;

/** The player for steps from…from+PART of a recording, built from the page's template in slices
 *  of a few milliseconds, so the page answers a click while a long run comes in. */
export class PlayerPart {
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
