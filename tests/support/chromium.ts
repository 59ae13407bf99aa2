// Debian's chromium driven by playwright-core (never a downloaded browser); found the same way
// the site build finds it for mermaid diagrams (site/lib/chromium.ts).
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../site/lib/chromium.ts";
import { budget } from "./budgets.ts";

export { CHROMIUM };
export const hasChromium = CHROMIUM !== undefined && existsSync(CHROMIUM);

/** A chromium whose every page waits (goto, click, waitFor...) a page's budget by default
 *  (tests/support/budgets.ts) instead of playwright's fixed 30 s. */
export async function launch(): Promise<Browser> {
  // playwright gives each launch a fresh, empty profile
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: budget("browser"),
  });
  // browser.newPage() opens its page through browser.newContext(), so this covers both.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(budget("page"));
    return context;
  };
  return browser;
}
