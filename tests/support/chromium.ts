// Debian's chromium driven by playwright-core (never a downloaded browser); found the same way
// the site build finds it for mermaid diagrams (site/lib/chromium.ts).
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../site/lib/chromium.ts";

export { CHROMIUM };
export const hasChromium = CHROMIUM !== undefined && existsSync(CHROMIUM);

export function launch(): Promise<Browser> {
  // playwright gives each launch a fresh, empty profile
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
