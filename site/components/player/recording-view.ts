// A recording on the page (open-recording.ts): every step in plain words as the worker sends
// them, and the part of the run the player shows (player-part.ts).
import type { PlayerStep } from "../../lib/player";
import { PlayerPart, type Done, type T } from "./player-part";
import type { ReadReport } from "./recording-worker";

/** A long run is shown a part at a time, so the page holds a few thousand steps, not 100,000. */
const PART = 2000;

/** One recording: every step in plain words as the worker sends them, and the part of the run
 *  the player shows (all of it, up to PART steps). */
export class RecordingView {
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
