// The player's inspector (site/components/player/inspector.ts), in chromium: from a step of a
// model call, one click opens the call as the recording holds it (request, response, the tool
// calls it made: the very values of site/traces/<id>.json), as JSON that folds; the dialog lies
// above everything, the arrow keys inside it do not step the player, and Escape, the close button
// and a click beside it close it, giving the focus back to the step's button.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import type { TraceEvent } from "../../chapters/_trace/contract.ts";
import { hasChromium } from "../support/chromium.ts";
import { siteForSuite, scriptsReady } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

const trace = (id: string) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, "site/traces", `${id}.json`), "utf8")) as {
    steps: TraceEvent[];
  };

describe.skipIf(!hasChromium)("the player's inspector", { timeout: budget({ page: 12 }) }, () => {
  const site = siteForSuite();

  /** s13's Run it part at a step of the given kind, the nth of that kind. */
  async function atStep(locale: string, kind: TraceEvent["kind"], nth: number) {
    const page = await site.tab({ width: 1280, height: 720 });
    await page.goto(`${site.server.url}${locale}/s13-agent-teams/run/`, { waitUntil: "load" });
    await scriptsReady(page);
    const steps = trace("s13").steps;
    const index = steps.map((s, i) => [s.kind, i] as const).filter(([k]) => k === kind)[nth][1];
    const player = page.locator(".lah-player").first();
    await player.locator("button[data-action=first]").click();
    // step there by keyboard, as a teacher does
    await player.focus();
    for (let i = 0; i < index; i++) await page.keyboard.press("ArrowRight");
    await expect
      .poll(() => player.locator('.lah-step[aria-current="step"]').getAttribute("data-index"))
      .toBe(String(index));
    return { page, player, steps, index };
  }

  it("opens the model call a response step belongs to, with the recording's own values, in one click", async () => {
    const { page, player, steps, index } = await atStep("", "response", 1);
    const button = player.locator('.lah-step[aria-current="step"] button.lah-inspect');
    await button.click();
    const dialog = page.locator("dialog.lah-inspector[open]");
    await dialog.waitFor();
    const text = (await dialog.textContent())!;
    // the request before it and this response, as recorded
    const response = steps[index] as Extract<TraceEvent, { kind: "response" }>;
    const request = steps
      .slice(0, index)
      .findLast((s) => s.kind === "request" && s.agent === response.agent);
    expect(request?.kind).toBe("request");
    expect(text).toContain(JSON.stringify(response.text));
    if (request?.kind === "request") {
      expect(text).toContain(`messages: ${request.messages}`);
      expect(text).toContain(`tokens: ${request.tokens}`);
    }
    // the tool calls it made, with their inputs
    const toolCall = steps
      .slice(index)
      .find((s) => s.kind === "tool_call" && s.agent === response.agent);
    if (toolCall?.kind === "tool_call") expect(text).toContain(JSON.stringify(toolCall.id));
    // above everything: its close button takes the click at its place
    const close = dialog.locator(".lah-inspector-close");
    const onTop = await close.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return el === top || el.contains(top);
    });
    expect(onTop).toBe(true);
    // it folds: the tool list is a <details> one click closes and opens
    const folds = dialog.locator("details.lah-json-node");
    expect(await folds.count()).toBeGreaterThan(3);
    // the arrow keys inside it do not step the player
    await page.keyboard.press("ArrowRight");
    expect(await player.locator('.lah-step[aria-current="step"]').getAttribute("data-index")).toBe(
      String(index),
    );
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("dialog.lah-inspector[open]").count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("lah-inspect");
  });

  it("closes by its button and by a click beside it; a step outside any model call has no button", async () => {
    const { page, player } = await atStep("/ja", "request", 2);
    const button = player.locator('.lah-step[aria-current="step"] button.lah-inspect');
    await button.click();
    const dialog = page.locator("dialog.lah-inspector[open]");
    expect(await dialog.locator("h3").allTextContents()).toContain("リクエスト");
    await dialog.locator(".lah-inspector-close").click();
    await expect.poll(() => page.locator("dialog.lah-inspector[open]").count()).toBe(0);
    await button.click();
    await page.mouse.click(5, 360); // beside the box, on the backdrop
    await expect.poll(() => page.locator("dialog.lah-inspector[open]").count()).toBe(0);
    // the first step is the user's prompt: no model call
    await player.locator("button[data-action=first]").click();
    expect(await player.locator("button.lah-inspect").count()).toBe(0);
  });
});
