// Mermaid drawing diagrams in the reader's browser: the fallback when the build had no Chromium
// (through mermaid-client.ts, which a build that draws its diagrams leaves empty), and the
// sequence diagram of a learner's own recording ("Open a recording…", imported from here
// directly, so it is there in every build). securityLevel "strict": a label is text, never HTML.
// Each diagram fails alone (its error and source stay in its place), and a theme switch waits
// for the drawing in progress instead of starting a second one over it.

export async function renderInBrowser(blocks: HTMLElement[]): Promise<void> {
  const { default: mermaid } = await import("mermaid");
  let counter = 0;
  let drawing = Promise.resolve();
  const drawAll = async () => {
    const dark = document.documentElement.dataset.theme === "dark";
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: "strict",
      theme: dark ? "dark" : "default",
    });
    for (const block of blocks) {
      const source = block.dataset.source ?? "";
      try {
        const { svg } = await mermaid.render(`lah-mermaid-${counter++}`, source);
        block.innerHTML = svg;
        block.dataset.rendered = dark ? "dark" : "light";
      } catch (err) {
        const template = block.closest("figure")?.dataset.error ?? "{error}";
        const message = document.createElement("p");
        message.className = "lah-mermaid-error";
        message.setAttribute("role", "alert");
        message.textContent = template.replace(
          "{error}",
          err instanceof Error ? err.message : String(err),
        );
        block.before(message);
        block.textContent = source;
        block.dataset.rendered = "error";
        document.getElementById(`dlah-mermaid-${counter - 1}`)?.remove(); // mermaid's error drawing
      }
    }
  };
  drawing = drawing.then(drawAll);
  await drawing;
  new MutationObserver(() => (drawing = drawing.then(drawAll))).observe(document.documentElement, {
    attributes: true,
    attributeFilter: ["data-theme"],
  });
}
