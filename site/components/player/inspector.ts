// The player's inspector: the model call the current step belongs to, as the recording holds it
// (site/lib/model-calls.ts): its request and its response, with the tool calls it made, as JSON
// that folds (nested <details>, the browser's own). One button, moved into the current step when
// that step is part of a model call: one click from the step. The dialog is modal: the page
// behind it is inert, Escape and a click beside it close it, and focus returns to the button.
import type { ModelCall } from "../../lib/model-calls";
import type { PlayerData } from "./side-panels";

type Labels = Record<
  | "inspect"
  | "title"
  | "request"
  | "response"
  | "toolCalls"
  | "systemFrom"
  | "noResponse"
  | "close",
  string
>;

/** Objects and arrays with more entries than this start folded below the top level. */
const FOLD_OVER = 6;

/** A JSON value as a tree a reader folds: objects and arrays in <details>, the rest as text. */
export function jsonTree(value: unknown, key?: string, depth = 0): HTMLElement {
  const name = (into: HTMLElement) => {
    if (key === undefined) return;
    const k = document.createElement("span");
    k.className = "lah-json-key";
    k.textContent = `${key}: `;
    into.append(k);
  };
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    const details = document.createElement("details");
    details.className = "lah-json-node";
    details.open = depth === 0 || entries.length <= FOLD_OVER;
    const summary = document.createElement("summary");
    name(summary);
    const shape = document.createElement("span");
    shape.className = "lah-json-shape";
    shape.textContent = Array.isArray(value) ? `[ ${entries.length} ]` : `{ ${entries.length} }`;
    summary.append(shape);
    details.append(summary);
    const list = document.createElement("div");
    list.className = "lah-json-children";
    for (const [k, v] of entries) list.append(jsonTree(v, k, depth + 1));
    details.append(list);
    return details;
  }
  const leaf = document.createElement("div");
  leaf.className = "lah-json-leaf";
  name(leaf);
  const text = document.createElement("span");
  text.className = `lah-json-${value === null ? "null" : typeof value}`;
  // A long string (a system prompt, a file's text) keeps its line breaks.
  text.textContent = JSON.stringify(value) ?? String(value);
  if (typeof value === "string" && value.includes("\n")) {
    text.classList.add("lah-json-lines");
    text.textContent = `"${value}"`;
  }
  leaf.append(text);
  return leaf;
}

export class Inspector {
  readonly #root: HTMLElement;
  readonly #dialog: HTMLDialogElement | null;
  readonly #body: HTMLElement | null;
  readonly #title: HTMLElement | null;
  readonly #labels: Partial<Labels>;
  readonly #button: HTMLButtonElement;
  readonly #data: () => PlayerData | undefined;
  #call: number | null = null;

  constructor(root: HTMLElement, data: () => PlayerData | undefined) {
    this.#root = root;
    this.#data = data;
    // (A player rendered without the dialog has no inspector: the button never comes.)
    this.#dialog = root.querySelector<HTMLDialogElement>("dialog.lah-inspector");
    this.#body = this.#dialog?.querySelector<HTMLElement>(".lah-inspector-body") ?? null;
    this.#title = this.#dialog?.querySelector<HTMLElement>(".lah-inspector-title") ?? null;
    this.#labels = JSON.parse(this.#dialog?.dataset.labels ?? "{}") as Partial<Labels>;
    this.#button = document.createElement("button");
    this.#button.type = "button";
    this.#button.className = "lah-inspect";
    this.#button.textContent = this.#labels.inspect ?? "Inspect";
    this.#button.addEventListener("click", (event) => {
      event.stopPropagation();
      this.open();
    });
    const dialog = this.#dialog;
    if (!dialog) return;
    // The player's keys (arrows step it) stay out of the dialog; Escape is the dialog's.
    dialog.addEventListener("keydown", (event) => event.stopPropagation());
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) dialog.close(); // beside the box
    });
    dialog
      .querySelector<HTMLButtonElement>(".lah-inspector-close")
      ?.addEventListener("click", () => dialog.close());
  }

  /** The player is at step `index`: the button goes into it when it is part of a model call. */
  follow(index: number): void {
    const data = this.#data();
    const call = data?.callOf?.[index] ?? null;
    this.#call = call;
    const step = this.#root.querySelector<HTMLElement>(`.lah-step[data-index="${index}"]`);
    if (call === null || !step || !this.#dialog) return this.#button.remove();
    const title = step.querySelector(".lah-step-title");
    if (title) title.after(this.#button);
    else step.append(this.#button);
  }

  /** Shows the current step's model call. */
  open(): void {
    const data = this.#data();
    const call = this.#call === null ? undefined : data?.calls?.[this.#call];
    const [dialog, title, body] = [this.#dialog, this.#title, this.#body];
    if (!data?.calls || !call || !dialog || !title || !body) return;
    title.textContent = (this.#labels.title ?? "{n} / {total} · {agent}")
      .replace("{n}", String(this.#call! + 1))
      .replace("{total}", String(data.calls.length))
      .replace("{agent}", call.agent);
    body.replaceChildren(...this.#sections(call));
    if (!dialog.open) dialog.showModal();
    dialog.querySelector<HTMLElement>(".lah-inspector-close")?.focus();
  }

  #sections(call: ModelCall): HTMLElement[] {
    const section = (heading: string, ...content: (HTMLElement | string)[]) => {
      const el = document.createElement("section");
      const h = document.createElement("h3");
      h.textContent = heading;
      el.append(h, ...content);
      return el;
    };
    const note = (text: string) => {
      const p = document.createElement("p");
      p.className = "lah-inspector-note";
      p.textContent = text;
      return p;
    };
    const request = section(
      this.#labels.request ?? "Request",
      jsonTree(call.request),
      ...(call.systemFrom === undefined
        ? []
        : [
            note(
              (this.#labels.systemFrom ?? "{step}").replace("{step}", String(call.systemFrom + 1)),
            ),
          ]),
    );
    const response = call.response
      ? section(this.#labels.response ?? "Response", jsonTree(call.response))
      : section(
          this.#labels.response ?? "Response",
          note(this.#labels.noResponse ?? "—"),
          ...(call.error ? [jsonTree(call.error)] : []),
        );
    const tools = call.toolCalls.length
      ? [section(this.#labels.toolCalls ?? "Tool calls", jsonTree(call.toolCalls))]
      : [];
    return [request, response, ...tools];
  }
}
