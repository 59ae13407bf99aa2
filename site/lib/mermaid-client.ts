// The fallback when the build had no Chromium: mermaid draws the diagrams in the reader's browser
// (mermaid-draw.ts). A build that draws them itself replaces this module with an empty one
// (mermaid-render.ts's withoutBrowserFallback), so no page of it carries mermaid.
export { renderInBrowser } from "./mermaid-draw";
