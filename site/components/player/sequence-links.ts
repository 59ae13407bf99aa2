// A generated sequence diagram that follows a player (TraceSequence.astro's, and the one the
// "Open a recording…" page draws): each arrow and note knows its step (trace-sequence.ts's
// sequenceLinks). The player says where it is with a `lah-step` event; an arrow chosen here asks
// it to go there with `lah-goto`.
export function linkSequence(
  wrapper: HTMLElement,
  player: HTMLElement,
  links: { messages: number[]; notes: number[] },
): void {
  const svg = wrapper.querySelector("svg");
  if (!svg) return;
  const texts = [...svg.querySelectorAll<SVGTextElement>("text.messageText")];
  const lines = [...svg.querySelectorAll<SVGLineElement>('line[class^="messageLine"]')];
  const noteTexts = [...svg.querySelectorAll<SVGTextElement>("text.noteText")];
  const noteBoxes = [...svg.querySelectorAll<SVGRectElement>("rect.note")];
  // Arrows and notes in step order, with the elements that draw each.
  const marks = [
    ...links.messages.map((step, k) => ({ step, parts: [texts[k], lines[k]] })),
    ...links.notes.map((step, k) => ({ step, parts: [noteTexts[k], noteBoxes[k]] })),
  ]
    .filter((m) => m.parts.every(Boolean))
    .sort((a, b) => a.step - b.step);
  for (const mark of marks) {
    const text = mark.parts[0];
    text.dataset.step = String(mark.step);
    text.setAttribute("tabindex", "0");
    text.setAttribute("role", "button");
    text.setAttribute(
      "aria-label",
      `${wrapper.dataset.goto ?? ""} ${mark.step + 1}: ${text.textContent ?? ""}`,
    );
  }
  player.addEventListener("lah-step", (event) => {
    const index = (event as CustomEvent<{ index: number }>).detail.index;
    const current = marks.filter((m) => m.step <= index).at(-1);
    for (const mark of marks)
      for (const part of mark.parts) part.toggleAttribute("data-current", mark === current);
  });
  const goto = (target: EventTarget | null) => {
    const step = (target as Element | null)
      ?.closest?.("text[data-step]")
      ?.getAttribute("data-step");
    if (step === null || step === undefined) return false;
    player.dispatchEvent(new CustomEvent("lah-goto", { detail: { index: Number(step) } }));
    player.scrollIntoView({ block: "nearest" });
    return true;
  };
  svg.addEventListener("click", (event) => goto(event.target));
  svg.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && goto(event.target)) event.preventDefault();
  });
}
