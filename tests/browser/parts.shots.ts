// `npm run screenshots`: pictures for a person to look at, not a test (nothing here can fail but
// the site or the browser): one chapter's parts in every locale at a phone's, a projector's and a
// wide screen's width, written to artifacts/screenshots/. Kept out of `npm test`, which checks what
// the pictures show (tests/browser/chapter-parts.browser.test.ts and the others).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { hasChromium } from "../support/chromium.ts";
import {
  CHAPTER_PARTS,
  LOCALES,
  screenshot,
  siteForSuite,
  scriptsReady,
} from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

const CHAPTER = "s13-agent-teams";
const SHOTS = path.join(REPO_ROOT, "artifacts/screenshots");

describe.skipIf(!hasChromium)("screenshots", { timeout: budget({ page: 60 }) }, () => {
  const site = siteForSuite();

  it("s13: each part in each locale at 390 px, 1280×720 and 1920 px", async () => {
    mkdirSync(SHOTS, { recursive: true });
    const page = await site.tab();
    // The player scrolls its step list smoothly; a picture taken mid-way showed step 9 of the run
    // with steps 1–2 in view. A reader who asks for less motion gets the scroll at once.
    await page.emulateMedia({ reducedMotion: "reduce" });
    for (const screen of [
      { width: 390, height: 844 },
      { width: 1280, height: 720 },
      { width: 1920, height: 1080 },
    ]) {
      await page.setViewportSize(screen);
      for (const [locale, prefix] of Object.entries(LOCALES))
        for (const [part, suffix] of Object.entries(CHAPTER_PARTS)) {
          await page.goto(`${site.server.url}${prefix}/${CHAPTER}/${suffix}`, {
            waitUntil: "load",
          });
          await scriptsReady(page);
          if (part === "run") {
            // the player's controls at the top of the screen, eight steps in: what a room sees
            const player = page.locator(".lah-player").first();
            await player.locator(".lah-player-controls").evaluate((el) => {
              const header = document.querySelector("header.header")!.getBoundingClientRect();
              scrollTo({
                top: el.getBoundingClientRect().top + scrollY - header.bottom,
                behavior: "instant",
              });
            });
            for (let i = 0; i < 8; i++) await player.locator("button[data-action=next]").click();
          }
          const file = `${CHAPTER}.${part}.${locale}.${screen.width}.png`;
          await screenshot(page, path.join(SHOTS, file));
        }
    }
  });
});
