// Where a Chromium is on this machine, for drawing mermaid diagrams at build time and for the
// browser tests: CHROMIUM_PATH if set, else Debian's chromium, else a Chrome (GitHub's runners).
// Never a downloaded browser.
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export const CHROMIUM = process.env.CHROMIUM_PATH || CANDIDATES.find((file) => existsSync(file));

/** Flags for a headless Chromium in a container: no sandbox of its own, no GPU, no phoning home. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
