// Debian's chromium driven by playwright-core (never a downloaded browser).
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true, // playwright gives each launch a fresh, empty profile
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
