// <lah-player>: playback for one recorded run rendered by Player.astro. Steps after the current
// one are hidden, the current one is marked aria-current="step". Filters ("story only", one
// agent) hide steps and playback skips them. Each element holds its own state and queries only
// inside itself, so two players on a page never touch each other. Other panels follow it through
// the `lah-step` event it dispatches on its section ({ detail: { index } }) and move it with
// `lah-goto` (the same detail) dispatched there.
import { Inspector } from "./inspector";
import { SidePanels, type PlayerData } from "./side-panels";

const BASE_DELAY_MS = 1400;
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

export interface StepEventDetail {
  index: number;
}

export class LahPlayer extends HTMLElement {
  #current = 0;
  #timer: number | undefined;
  #wired = false;
  #panels!: SidePanels;
  #inspector!: Inspector;
  #nearScreen: IntersectionObserver | undefined;

  #root!: HTMLElement;
  #list!: HTMLElement;
  #steps: HTMLLIElement[] = [];
  #phases: HTMLLIElement[] = [];
  #bars: SVGRectElement[] = [];
  #playButton!: HTMLButtonElement;
  #speed!: HTMLSelectElement;
  #jump: HTMLSelectElement | null = null;
  #agent: HTMLSelectElement | null = null;
  #story!: HTMLInputElement;
  #position!: HTMLElement;

  /** The step the player is at. */
  get current(): number {
    return this.#current;
  }

  connectedCallback(): void {
    if (!this.#wired) this.#wire();
    // The data is fetched when the player comes near the screen, not with the page.
    if (this.#wired && !this.#nearScreen) {
      this.#nearScreen = new IntersectionObserver(
        (entries, observer) => {
          if (!entries.some((e) => e.isIntersecting)) return;
          observer.disconnect();
          void this.#panels.load();
        },
        { rootMargin: "200px" },
      );
      this.#nearScreen.observe(this.#root);
    }
  }

  disconnectedCallback(): void {
    this.#setPlaying(false);
    this.#nearScreen?.disconnect();
    this.#nearScreen = undefined;
  }

  // Finds the parts of the player rendered at build time, shows the controls (hidden for a
  // reader without JavaScript) and listens to them. A <lah-player> without steps stays as it is.
  #wire(): void {
    const root = this.querySelector<HTMLElement>(".lah-player");
    const steps = [...(root?.querySelectorAll<HTMLLIElement>(".lah-step") ?? [])];
    if (!root || steps.length === 0) return;
    this.#wired = true;
    this.#root = root;
    this.#steps = steps;
    this.#phases = [...root.querySelectorAll<HTMLLIElement>(".lah-phase")];
    this.#bars = [...root.querySelectorAll<SVGRectElement>(".lah-bar")];
    this.#list = root.querySelector<HTMLElement>(".lah-steps")!;
    this.#playButton = root.querySelector<HTMLButtonElement>("[data-action=play]")!;
    this.#speed = root.querySelector<HTMLSelectElement>("[data-action=speed]")!;
    this.#jump = root.querySelector<HTMLSelectElement>("[data-action=jump]");
    this.#agent = root.querySelector<HTMLSelectElement>("[data-action=agent]");
    this.#story = root.querySelector<HTMLInputElement>("[data-action=story]")!;
    this.#position = root.querySelector<HTMLElement>(".lah-position")!;
    this.#numberSteps();
    this.#panels = new SidePanels(root);
    this.#inspector = new Inspector(root, () => this.#panels.data);
    for (const part of root.querySelectorAll<HTMLElement>(
      ".lah-player-controls, .lah-player-filters, .lah-player-keys, .lah-player-tabs",
    ))
      part.hidden = false;

    root.addEventListener("click", (event) => this.#onClick(event));
    root.addEventListener("keydown", (event) => this.#onKey(event));
    // Another panel (the generated sequence diagram) asks for a step.
    root.addEventListener("lah-goto", (event) =>
      this.#go((event as CustomEvent<StepEventDetail>).detail.index),
    );
    this.#speed.addEventListener("change", () => this.#playing() && this.#setPlaying(true));
    this.#jump?.addEventListener("change", () => this.#go(Number(this.#jump!.value)));
    const refilter = () => {
      this.#use();
      this.#show(this.#nearest(this.#current, 1), false);
    };
    this.#agent?.addEventListener("change", refilter);
    this.#story.addEventListener("change", refilter);
    this.#show(0, false);
  }

  // The reader used the player: the panels open, and the link to "Open a recording…" comes.
  #use(): void {
    this.#panels.open();
    void this.#panels.load().then(() => {
      this.#openLink();
      this.#inspector.follow(this.#current);
    });
  }

  // A chapter's player links to the "Open a recording…" page with its chapter chosen: a reader
  // who ran the chapter themselves (`--record FILE`) can step through their own run. Made here,
  // once the reader uses the player and its data (with the label in each language) is here: not
  // in the page (without JavaScript that page cannot open anything, and every byte of a chapter
  // page counts), and not while the page is only scrolled past (a layout shift).
  #openLink(): void {
    const chapter = this.#root.dataset.chapter;
    const lang = document.documentElement.lang.toLowerCase().split("-")[0];
    const label = this.#panels.data?.open?.[lang] ?? this.#panels.data?.open?.en;
    const head = this.#root.querySelector(".lah-player-head");
    if (!chapter || !label || !head || head.querySelector(".lah-player-open")) return;
    // data-src is <base>/player/<id>.json; the page is under the page's own locale.
    const base = (this.#root.dataset.src ?? "").replace(/\/player\/[^/]*$/, "");
    const locale = lang !== "en" && lang in (this.#panels.data?.open ?? {}) ? `/${lang}` : "";
    const link = document.createElement("a");
    link.className = "lah-player-open";
    link.href = `${base}${locale}/open/?chapter=${encodeURIComponent(chapter)}`;
    link.textContent = label;
    head.append(link);
  }

  /** Each step's number as text, the run's own: a CSS counter (what a reader without JavaScript
   *  sees, with no filter) counts only the steps a filter shows, while the position says "Step 51
   *  of 105". */
  #numberSteps(): void {
    for (const step of this.#steps) {
      if (step.querySelector(":scope > .lah-step-n")) continue;
      const number = document.createElement("span");
      number.className = "lah-step-n";
      number.setAttribute("aria-hidden", "true");
      number.textContent = String(Number(step.dataset.index) + 1);
      step.prepend(number);
    }
    this.#root.toggleAttribute("data-numbered", true);
  }

  /** Steps were added to the list (a recording read in batches): the player takes them in. */
  stepsAdded(): void {
    if (!this.#wired) return this.#wire();
    this.#steps = [...this.#root.querySelectorAll<HTMLLIElement>(".lah-step")];
    this.#numberSteps();
    this.#phases = [...this.#root.querySelectorAll<HTMLLIElement>(".lah-phase")];
    this.#bars = [...this.#root.querySelectorAll<SVGRectElement>(".lah-bar")];
    this.#show(this.#current, false);
  }

  /** The panels' data, for a player that has no file to fetch it from (side-panels.ts). */
  supply(data: PlayerData): void {
    if (!this.#wired) this.#wire();
    if (!this.#wired) return;
    this.#panels.supply(data);
    this.#inspector.follow(this.#current);
  }

  #onClick(event: MouseEvent): void {
    const target = event.target as HTMLElement;
    const action = target.closest<HTMLElement>("button[data-action]")?.dataset.action;
    if (action === "play") {
      this.#use();
      this.#toggle();
    } else if (action === "next") this.#go(this.#current + 1);
    else if (action === "back") this.#go(this.#current - 1, -1);
    else if (action === "first") this.#go(0);
    else if (action === "last") this.#go(this.#steps.length - 1, -1);
  }

  // Arrows step, Home and End go to the ends, space or k plays and pauses; the keys of a control
  // the focus is in (a select, the checkbox, a summary) stay that control's.
  #onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    if (["SELECT", "INPUT", "SUMMARY"].includes(target.tagName)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key;
    if (key === "ArrowRight" || key === "ArrowDown") this.#go(this.#current + 1);
    else if (key === "ArrowLeft" || key === "ArrowUp") this.#go(this.#current - 1, -1);
    else if (key === "Home") this.#go(0);
    else if (key === "End") this.#go(this.#steps.length - 1, -1);
    else if ((key === " " || key === "k") && target.tagName !== "BUTTON") {
      this.#use();
      this.#toggle();
    } else return;
    event.preventDefault();
  }

  #agentOf(i: number): string | null | undefined {
    return this.#steps[i].querySelector(".lah-agent")?.textContent;
  }

  #included(i: number): boolean {
    const agent = this.#agent?.value;
    if (this.#story.checked && this.#steps[i].hasAttribute("data-minor")) return false;
    return !(agent && this.#agentOf(i) !== agent);
  }

  /** The nearest step the filters show, from `index` in direction `dir` (then the other way). */
  #nearest(index: number, dir: 1 | -1): number {
    const count = this.#steps.length;
    for (let i = index; i >= 0 && i < count; i += dir) if (this.#included(i)) return i;
    for (let i = index; i >= 0 && i < count; i -= dir) if (this.#included(i)) return i;
    return Math.max(0, Math.min(count - 1, index));
  }

  #show(index: number, announce = true): void {
    const current = (this.#current = Math.max(0, Math.min(this.#steps.length - 1, index)));
    this.#steps.forEach((step, i) => {
      step.toggleAttribute("data-future", i > current);
      step.toggleAttribute("data-filtered", !this.#included(i));
      if (i === current) step.setAttribute("aria-current", "step");
      else step.removeAttribute("aria-current");
    });
    for (const phase of this.#phases)
      phase.toggleAttribute("data-future", Number(phase.dataset.phaseOf) > current);
    if (this.#jump) {
      const reached = [...this.#jump.options].filter((o) => Number(o.value) <= current).at(-1);
      if (reached) this.#jump.value = reached.value;
    }
    const position = this.#position;
    position.setAttribute("aria-live", announce ? "polite" : "off");
    position.textContent = (position.dataset.template ?? "{n} / {total}")
      .replace("{n}", String(current + 1))
      .replace("{total}", String(this.#steps.length));
    this.#scrollToCurrent();
    this.#panels.follow(current);
    this.#inspector.follow(current);
    const reached = this.#bars.filter((bar) => Number(bar.dataset.step) <= current).at(-1);
    for (const bar of this.#bars) {
      bar.toggleAttribute("data-future", Number(bar.dataset.step) > current);
      bar.toggleAttribute("data-current", bar === reached);
    }
    const detail: StepEventDetail = { index: current };
    this.#root.dispatchEvent(new CustomEvent("lah-step", { detail }));
  }

  // Scroll the list (never the page) so the current step is in view.
  #scrollToCurrent(): void {
    const list = this.#list;
    const step = this.#steps[this.#current];
    const top = step.offsetTop;
    const bottom = top + step.offsetHeight;
    if (top >= list.scrollTop && bottom <= list.scrollTop + list.clientHeight) return;
    const behavior = reducedMotion() ? "auto" : "smooth";
    list.scrollTo({ top: Math.max(0, bottom - list.clientHeight + 8), behavior });
  }

  #playing(): boolean {
    return this.#timer !== undefined;
  }

  #setPlaying(playing: boolean): void {
    window.clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#wired) return;
    const button = this.#playButton;
    const label = playing ? button.dataset.pause! : button.dataset.play!;
    button.textContent = `${playing ? "‖" : "▶"} ${label}`;
    button.setAttribute("aria-label", label);
    if (playing) this.#tick();
  }

  #last(): number {
    return this.#nearest(this.#steps.length - 1, -1);
  }

  #tick(): void {
    this.#timer = window.setTimeout(
      () => {
        if (this.#current >= this.#last()) return this.#setPlaying(false);
        this.#show(this.#nearest(this.#current + 1, 1), false);
        this.#tick();
      },
      BASE_DELAY_MS / Number(this.#speed.value || 1),
    );
  }

  #toggle(): void {
    if (!this.#playing() && this.#current >= this.#last()) this.#show(this.#nearest(0, 1), false);
    this.#setPlaying(!this.#playing());
  }

  #go(index: number, dir: 1 | -1 = 1): void {
    this.#setPlaying(false);
    this.#use();
    this.#show(this.#nearest(index, dir));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    "lah-player": LahPlayer;
  }
}

if (!customElements.get("lah-player")) customElements.define("lah-player", LahPlayer);
