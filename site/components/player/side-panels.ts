// The panels beside a player's steps: the code that handled the current step, the state after it
// and, on s10/s13/s15, the state machine with the subject of the step lit. Their data is one file,
// /player/<id>.json (written by site/pages/player/[chapter].json.ts), fetched once per player.
// One SidePanels per player: it holds that player's data and knows nothing of any other.

import type { ModelCall } from "../../lib/model-calls";
import { stateWording, type Cell } from "../../lib/state-words";

interface RegionData {
  chapter: string;
  file: string;
  region: string;
  start: number;
  lines: string[];
}
type Snapshot = Record<string, Cell[][]>;
interface Focus {
  who: string;
  state: string;
  from?: string;
}
/** What /player/<id>.json holds. */
export interface PlayerData {
  regions: Record<string, RegionData>;
  spots: ([string, number] | null)[];
  snapshots: Snapshot[];
  state: number[];
  machineSvg?: string;
  focus: (Focus | null)[];
  /** The "Open a recording…" link's label by locale (a chapter's player links to that page). */
  open?: Record<string, string>;
  /** The state panels' words (`state.value.*`) by locale: the snapshots' phrases are worded in the
   *  page's language, English where it has no string (state-words.ts). */
  words?: Record<string, Record<string, string>>;
  /** Each model call as the recording holds it, and per step the call it belongs to (inspector.ts). */
  calls?: ModelCall[];
  callOf?: (number | null)[];
}

type CodeLabels = Record<"from" | "imported" | "none" | "loading", string>;
type StateLabels = Record<string, { title: string; cols: string[] }>;
interface MachineLabels {
  moved: string;
  where: string;
  edges: string[];
}

const labelsOf = <T>(element: HTMLElement | null | undefined): Partial<T> =>
  JSON.parse(element?.dataset.labels ?? "{}") as Partial<T>;

export class SidePanels {
  #data: PlayerData | undefined;
  #failed = false;
  #loading: Promise<void> | undefined;
  #step = 0;
  // The panels open once the reader uses the player, never while the page is only scrolled
  // past: content appearing under a reader who did not ask for it is a layout shift.
  #open = false;

  readonly #root: HTMLElement;
  readonly #code: HTMLElement;
  readonly #codeWhere: HTMLElement;
  readonly #codeLines: HTMLElement;
  readonly #codeLabels: Partial<CodeLabels>;
  readonly #state: HTMLElement;
  readonly #stateLabels: Partial<StateLabels>;
  #word: ReturnType<typeof stateWording> | undefined;
  readonly #machine: HTMLElement | null;
  readonly #machineLabels: Partial<MachineLabels>;

  /** `root` is the player's section: its data-src, data-chapter and code labels, and its panels. */
  constructor(root: HTMLElement) {
    this.#root = root;
    this.#code = root.querySelector<HTMLElement>(".lah-code")!;
    this.#codeWhere = this.#code.querySelector<HTMLElement>(".lah-code-where")!;
    this.#codeLines = this.#code.querySelector<HTMLElement>(".lah-code-lines")!;
    this.#codeLabels = labelsOf<CodeLabels>(root);
    this.#state = root.querySelector<HTMLElement>(".lah-state")!;
    this.#stateLabels = labelsOf<StateLabels>(this.#state);
    this.#machine = root.querySelector<HTMLElement>(".lah-machine");
    this.#machineLabels = labelsOf<MachineLabels>(this.#machine);
  }

  /** Fetches the data, once; panels already open fill in when it comes. A player without a
   *  data-src (a recording opened in the page) waits for supply(). */
  load(): Promise<void> {
    if (!this.#root.dataset.src) return Promise.resolve();
    return (this.#loading ??= fetch(this.#root.dataset.src)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then((loaded: PlayerData) => void ((this.#data = loaded), (this.#word = undefined)))
      .catch(() => void (this.#failed = true))
      .then(() => this.#render()));
  }

  /** The data, once it is here. */
  get data(): PlayerData | undefined {
    return this.#data;
  }

  /** The data, made in the page rather than fetched. */
  supply(data: PlayerData): void {
    this.#data = data;
    this.#word = undefined;
    this.#loading = Promise.resolve();
    this.#render();
  }

  /** The reader used the player: from the next step shown on, the panels are shown too. */
  open(): void {
    this.#open = true;
    void this.load();
  }

  /** The player is at step `index`. */
  follow(index: number): void {
    this.#step = index;
    this.#render();
  }

  #render(): void {
    if (!this.#open) return;
    const figure = this.#machine?.querySelector<HTMLElement>(".lah-machine-figure");
    if (figure && this.#data?.machineSvg && !figure.firstElementChild)
      figure.innerHTML = this.#data.machineSvg;
    this.#showCode();
    this.#showState();
    this.#showMachine();
  }

  // The region that handled the step, its line marked and scrolled to a third of the panel.
  #showCode(): void {
    const [key, here] = this.#data?.spots[this.#step] ?? [undefined, 0];
    const labels = this.#codeLabels;
    this.#code.hidden = false;
    const region = key ? this.#data?.regions[key] : undefined;
    if (!region) {
      const loading = !this.#data && !this.#failed;
      this.#codeWhere.textContent = (loading ? labels.loading : labels.none) ?? "";
      this.#codeLines.replaceChildren();
      return;
    }
    const own = region.chapter === this.#root.dataset.chapter;
    this.#codeWhere.textContent =
      (labels.from ?? "").replace("{chapter}", region.file).replace("{region}", region.region) +
      (own ? "" : ` · ${(labels.imported ?? "").replace("{chapter}", region.chapter)}`);
    const rows = region.lines.map((text, i) => {
      const row = document.createElement("span");
      row.className = "ln";
      row.dataset.n = String(region.start + i);
      row.textContent = text || " ";
      if (region.start + i === here) row.dataset.here = "";
      return row;
    });
    this.#codeLines.replaceChildren(...rows);
    const mark = this.#codeLines.querySelector<HTMLElement>("[data-here]");
    if (mark)
      this.#codeLines.scrollTop = Math.max(0, mark.offsetTop - this.#codeLines.clientHeight / 3);
  }

  // The state after the step; rows that changed since the step before are marked.
  #showState(): void {
    const data = this.#data;
    if (!data) return;
    const lang = document.documentElement.lang.toLowerCase().split("-")[0] || "en";
    const english = data.words?.en ?? {};
    const word = (this.#word ??= stateWording(data.words?.[lang] ?? english, english, lang));
    let untranslated = false;
    const now = data.snapshots[data.state[this.#step]] ?? {};
    const before = this.#step > 0 ? (data.snapshots[data.state[this.#step - 1]] ?? {}) : {};
    const tables = Object.entries(now).map(([panel, rows]) => {
      const labels = this.#stateLabels[panel] ?? { title: panel, cols: [] };
      const table = document.createElement("table");
      table.createCaption().textContent = labels.title;
      const head = table.createTHead().insertRow();
      for (const col of labels.cols)
        head.appendChild(document.createElement("th")).textContent = col;
      const old = new Set((before[panel] ?? []).map((r) => JSON.stringify(r)));
      const body = table.createTBody();
      for (const row of rows) {
        const tr = body.insertRow();
        if (!old.has(JSON.stringify(row))) tr.dataset.changed = "";
        for (const cell of row) {
          const td = tr.insertCell();
          const { text, english } = word(cell);
          td.textContent = text;
          // A status is worded; its value as the code and the page name it is a hover away.
          const status = typeof cell === "string" ? undefined : /^is\.(.+)$/.exec(cell[0][0]);
          if (status && cell.length === 1) td.title = status[1];
          if (english) {
            td.lang = "en";
            untranslated = true;
          }
        }
      }
      return table;
    });
    this.#state.hidden = false;
    this.#state.querySelector<HTMLElement>(".lah-state-none")!.hidden = tables.length > 0;
    // A word shown in English says so, as an untranslated tool description does.
    let notice = this.#state.querySelector<HTMLElement>(".lah-state-english");
    if (untranslated && !notice) {
      notice = this.#state.appendChild(document.createElement("p"));
      notice.className = "lah-state-english";
    }
    if (notice) {
      notice.hidden = !untranslated;
      notice.textContent = word([["english"]]).text;
    }
    this.#state.querySelector<HTMLElement>(".lah-state-panels")!.replaceChildren(...tables);
  }

  // The step's subject lights up its state and, on the step that moved it, the arrow it took.
  #showMachine(): void {
    const machine = this.#machine;
    const { moved = "", where: at = "", edges = [] } = this.#machineLabels;
    if (!machine) return;
    const { who, state, from } = this.#data?.focus[this.#step] ?? {};
    for (const lit of machine.querySelectorAll("[data-current]"))
      lit.removeAttribute("data-current");
    const where = machine.querySelector<HTMLElement>(".lah-machine-where")!;
    if (!who || !state) return void (where.textContent = "");
    // Replaced by functions: a name is the recording's, and "$&" or "$'" in it is not a pattern.
    const fill = (text: string) =>
      text
        .replace("{who}", () => who)
        .replace("{state}", () => state)
        .replace("{from}", () => from ?? "");
    where.textContent = fill(from ? moved : at);
    for (const node of machine.querySelectorAll<SVGGElement>("g.node"))
      // (The state is compared, not put in a pattern: a recording's state may be any text.)
      if (/-state-(.+)-\d+$/.exec(node.id)?.[1] === state) node.setAttribute("data-current", "");
    const edge = from ? edges.indexOf(`${from}>${state}`) : -1;
    if (edge >= 0)
      machine.querySelector(`path[id$="-edge${edge}"]`)?.setAttribute("data-current", "");
  }
}
