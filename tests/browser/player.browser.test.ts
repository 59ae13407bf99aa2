// The player as a beginner uses it (site/components/Player.astro): the notes beside the steps,
// the code that handled the current step, "story only", the parts of the run, one agent's steps,
// a notice when a locale's notes are missing or older than the English ones, the same run
// readable without JavaScript, and two players on one page that keep to themselves (each
// <lah-player> element holds its own state).
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { allRunnable } from "../../chapters/_runner/chapters.ts";
import { readNotes } from "../../chapters/_runner/notes-files.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { machineFocus } from "../../site/lib/state-machines.ts";
import { notesStatus } from "../../site/lib/translation.ts";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { scriptsReady, siteForSuite, visit } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";

const site = siteForSuite();

const dirOf = (id: string) => allRunnable().find((c) => c.id === id)!.dir;
const flat = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();

async function openPlayer(page: Page, path: string) {
  expect(await visit(page, `${site.server.url}${path}`)).toEqual([]);
  const player = page.locator(".lah-player").first();
  await player.scrollIntoViewIfNeeded();
  await scriptsReady(page);
  return player;
}
const currentIndex = (player: ReturnType<Page["locator"]>) =>
  player.locator('.lah-step[aria-current="step"]').getAttribute("data-index").then(Number);

// Each test loads a page or four (s15's in each locale) and steps through its player.
describe("the player", { timeout: budget({ page: 4 }) }, () => {
  it("s05: each step's note is beside it, and the code that handled it is shown and marked", async () => {
    const page = await site.tab({ width: 1280, height: 900 });
    const player = await openPlayer(page, "/s05-context-compact/run/");
    const notes = readNotes(dirOf("s05"), "en");
    // The compact call (lead#7): its note, and the part of the run it starts.
    const compact = player.locator(".lah-step", { hasText: "Compacting to free the context" });
    expect(flat(await compact.locator(".lah-step-note").textContent())).toBe(
      flat(notes.notes["lead#7"]),
    );
    expect(flat(await player.locator(".lah-phase").nth(1).textContent())).toBe(
      notes.phases["lead#7"],
    );
    // Step to the first model reply: the code panel shows the loop's model call, marked.
    await player.locator("button[data-action=next]").click();
    await player.locator("button[data-action=next]").click();
    const code = player.locator(".lah-code");
    await expect.poll(() => code.locator(".ln[data-here]").count()).toBe(1);
    expect(await code.locator(".ln[data-here]").textContent()).toMatch(/messages\.create\(/);
    expect(await code.locator(".lah-code-where").textContent()).toContain(
      "s05-context-compact/agent.ts",
    );
    // A tool handled by imported code is named as imported (s05's write is s02's).
    await player.locator("button[data-action=next]").click();
    expect(await player.locator('.lah-step[aria-current="step"]').getAttribute("data-kind")).toBe(
      "tool_call",
    );
    expect(await code.locator(".lah-code-where").textContent()).toMatch(
      /s02-tool-use\/agent\.ts.*s02/,
    );
    expect(await code.locator(".ln[data-here]").textContent()).toMatch(/write/);
  });

  it("s10: story only skips the harness's bookkeeping; jumping goes to a part of the run", async () => {
    const page = await site.tab();
    const player = await openPlayer(page, "/s10-task-system/run/");
    await player.locator("[data-action=story]").check();
    const kinds: string[] = [];
    for (let i = 0; i < 6; i++) {
      await player.locator("button[data-action=next]").click();
      kinds.push(
        (await player.locator('.lah-step[aria-current="step"]').getAttribute("data-kind"))!,
      );
    }
    expect(kinds).not.toContain("request");
    expect(await player.locator('.lah-step[data-kind="request"]:visible').count()).toBe(0);
    const jump = player.locator("select[data-action=jump]");
    const options = await jump
      .locator("option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options.length).toBeGreaterThanOrEqual(2);
    await jump.selectOption(options.at(-1)!);
    expect(await currentIndex(player)).toBeGreaterThanOrEqual(Number(options.at(-1)));
    expect(await player.locator(".lah-phase:visible").count()).toBe(options.length);
    // By the last part the board holds both tasks, and the machine shows a task's state.
    await player.locator("button[data-action=last]").click();
    const board = player.locator(".lah-state table", { hasText: "#2" });
    await expect.poll(() => board.locator("tbody tr").count()).toBe(2);
    expect(await board.locator("tbody").textContent()).toMatch(/\[x\]/);
    expect(flat(await player.locator(".lah-machine-where").textContent())).toMatch(/^#\d+ /);
    expect(await player.locator(".lah-machine g.node[data-current]").count()).toBe(1);
  });

  it("s13: one agent's steps only, and the phases of a team's run", async () => {
    const page = await site.tab();
    const player = await openPlayer(page, "/s13-agent-teams/run/");
    await player.locator("select[data-action=agent]").selectOption("alice");
    await player.locator("button[data-action=last]").click();
    const shown = await player
      .locator(".lah-step:visible .lah-agent")
      .evaluateAll((els) => [...new Set(els.map((e) => e.textContent))]);
    expect(shown).toEqual(["alice"]);
    // The numbers a filter leaves are the run's own, as the position counts them ("Step 51 of
    // 105"), not 1, 2, 3 … over the steps shown.
    const numbered = await player
      .locator(".lah-step:visible")
      .evaluateAll((els) =>
        els.map((e) => [e.querySelector(".lah-step-n")?.textContent, e.getAttribute("data-index")]),
      );
    expect(numbered.length).toBeGreaterThan(1);
    for (const [number, index] of numbered) expect(Number(number)).toBe(Number(index) + 1);
    const last = numbered.at(-1)![0];
    expect(flat(await player.locator(".lah-position").textContent())).toContain(`${last}`);
    // The teammate lifecycle (LIFECYCLE): at the end, alice has shut down. Waited for: the
    // machine panel is drawn after the step is shown, and on a busy machine that takes a while.
    await expect
      .poll(async () => flat(await player.locator(".lah-machine-where").textContent()))
      .toContain("shutdown");
    await expect
      .poll(() => player.locator(".lah-machine g.node[data-current]").getAttribute("id"))
      .toMatch(/-state-shutdown-\d+$/);
  });

  it("s15: the state panel, the request machine and the sequence diagram follow the player", async () => {
    const page = await site.tab({ width: 1280, height: 900 });
    const player = await openPlayer(page, "/s15-team-protocols/run/");
    // The first approval: the step where req_1 leaves pending.
    const focus = machineFocus("s15", readTrace("s15")!);
    const approved = focus.findIndex((f) => f?.from === "pending" && f.state === "approved");
    expect(approved).toBeGreaterThan(0);
    await player.focus();
    while ((await currentIndex(player)) < approved) await page.keyboard.press("ArrowRight");
    const machine = player.locator(".lah-machine");
    expect(flat(await machine.locator(".lah-machine-where").textContent())).toBe(
      `${focus[approved]!.who}: pending → approved`,
    );
    expect(await machine.locator("g.node[data-current]").getAttribute("id")).toMatch(
      /-state-approved-\d+$/,
    );
    expect(await machine.locator("path[data-current]").count()).toBe(1);
    // The request table holds the approval; the row that changed is marked.
    const requests = player.locator(".lah-state table", { hasText: "request_id" });
    await expect
      .poll(() => requests.locator("tr[data-changed]").textContent())
      .toContain("approved");
    // The sequence diagram lights the arrow of the current step, and an arrow takes the player to its step.
    const sequence = page.locator(".lah-trace-sequence");
    expect(await sequence.locator("text[data-current]").count()).toBe(1);
    const first = sequence.locator("text[data-step]").first();
    const step = Number(await first.getAttribute("data-step"));
    await first.click();
    expect(await currentIndex(player)).toBe(step);
    // The context meter marks the latest request at or before the current step.
    expect(
      Number(await player.locator(".lah-bar[data-current]").getAttribute("data-step")),
    ).toBeLessThanOrEqual(step);
  });

  it("s15 in each locale: the notes' status is said, never silent", async () => {
    const rows = notesStatus(REPO_ROOT).filter((r) => r.page.startsWith("s15-"));
    const page = await site.tab();
    for (const row of rows) {
      const player = await openPlayer(page, `/${row.locale}/s15-team-protocols/run/`);
      const notice = player.locator(".lah-player-notice");
      if (row.status === "fresh") expect(await notice.count()).toBe(0);
      else expect(await notice.count(), `${row.locale}: ${row.status}`).toBe(1);
    }
  });

  // A second player of the same run, from the page's own build-time markup (not a copy of the
  // first one as its script left it), after the first: the element upgrades it as a new player.
  const addSecondPlayer = (page: Page) =>
    page.evaluate(async () => {
      const built = new DOMParser().parseFromString(
        await (await fetch(location.href)).text(),
        "text/html",
      );
      const copy = document.importNode(built.querySelector("lah-player")!, true);
      for (const el of copy.querySelectorAll("[id]")) el.id += "-copy";
      document.querySelector("lah-player")!.after(copy);
    });

  it("two players on one page do not interfere: each steps, filters, plays and reports only itself", async () => {
    const page = await site.tab({ width: 1280, height: 900 });
    const first = await openPlayer(page, "/s13-agent-teams/run/");
    await addSecondPlayer(page);
    expect(await page.locator("lah-player").count()).toBe(2);
    const second = page.locator("lah-player").nth(1).locator(".lah-player");
    expect(await second.locator(".lah-player-controls").isVisible()).toBe(true);
    expect(await currentIndex(second)).toBe(0);
    // Each section's `lah-step` events, in order: who listens to one player hears only that one.
    await page.evaluate(() => {
      const heard: [number, number][] = [];
      (window as unknown as { heard: typeof heard }).heard = heard;
      document
        .querySelectorAll(".lah-player")
        .forEach((root, which) =>
          root.addEventListener("lah-step", (e) =>
            heard.push([which, (e as CustomEvent).detail.index]),
          ),
        );
    });
    const heard = () =>
      page.evaluate(() => (window as unknown as { heard: [number, number][] }).heard);

    await second.locator("button[data-action=next]").click();
    await second.locator("button[data-action=next]").click();
    expect(await currentIndex(second)).toBe(2);
    expect(await currentIndex(first)).toBe(0);
    expect(await heard()).toEqual([
      [1, 1],
      [1, 2],
    ]);
    // The code panel opens in the player the reader used, not in the other.
    const code = second.locator(".lah-code");
    await expect.poll(() => code.locator(".ln[data-here]").count()).toBe(1);
    expect(await first.locator(".lah-code").isHidden()).toBe(true);

    // One agent's steps in the first player filter the first player only.
    await first.locator("select[data-action=agent]").selectOption("alice");
    expect(await first.locator(".lah-step[data-filtered]").count()).toBeGreaterThan(0);
    expect(await second.locator(".lah-step[data-filtered]").count()).toBe(0);
    await second.locator("[data-action=story]").check();
    expect(await first.locator("[data-action=story]").isChecked()).toBe(false);
    await second.locator("[data-action=story]").uncheck();
    const secondAt = await currentIndex(second);

    // Playing the first leaves the second where it is, its button still saying "Play".
    const heardFromSecond = (await heard()).filter(([which]) => which === 1);
    await first.locator("select[data-action=speed]").selectOption("4");
    const before = await currentIndex(first);
    await first.locator("button[data-action=play]").click();
    await expect.poll(() => currentIndex(first)).toBeGreaterThan(before);
    await first.locator("button[data-action=play]").click();
    expect(await second.locator("button[data-action=play]").getAttribute("aria-label")).toBe(
      "Play",
    );
    expect(await currentIndex(second)).toBe(secondAt);
    expect((await heard()).filter(([which]) => which === 1)).toEqual(heardFromSecond);

    // The keyboard and `lah-goto` move the player they reach, not the other.
    await second.focus();
    await page.keyboard.press("End");
    const end = await currentIndex(second);
    expect(end).toBeGreaterThan(2);
    const firstAt = await currentIndex(first);
    await second.evaluate((root) =>
      root.dispatchEvent(new CustomEvent("lah-goto", { detail: { index: 5 } })),
    );
    expect(await currentIndex(second)).toBe(5);
    expect(await currentIndex(first)).toBe(firstAt);
  });

  it("a player's state belongs to its element: kept when the element moves, wired once", async () => {
    const page = await site.tab();
    await openPlayer(page, "/s05-context-compact/run/");
    await addSecondPlayer(page);
    const [first, second] = [0, 1].map((n) => page.locator("lah-player").nth(n));
    await second.locator("button[data-action=next]").click();
    await first.locator("button[data-action=last]").click();
    const at = () =>
      page.evaluate(() => [...document.querySelectorAll("lah-player")].map((p) => p.current));
    const last = (await first.locator(".lah-step").count()) - 1;
    expect(await at()).toEqual([last, 1]);
    // Moving an element (disconnected, connected again) keeps its step and does not wire it twice.
    await page.evaluate(() => {
      const [a, b] = document.querySelectorAll("lah-player");
      a.before(b);
    });
    expect(await at()).toEqual([1, last]);
    await page.locator("lah-player").first().locator("button[data-action=next]").click();
    expect(await at()).toEqual([2, last]);
    // A <lah-player> with nothing inside (made by a script) is left alone.
    expect(
      await page.evaluate(() => {
        const empty = document.body.appendChild(document.createElement("lah-player"));
        return empty.current;
      }),
    ).toBe(0);
  });

  it("without JavaScript the run reads as a list of steps with their notes", async () => {
    const context = await site.browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 800 },
    });
    const page = await context.newPage();
    await page.goto(`${site.server.url}/s05-context-compact/run/`);
    const player = page.locator(".lah-player").first();
    expect(await player.locator(".lah-step-note:visible").count()).toBeGreaterThanOrEqual(10);
    expect(await player.locator(".lah-player-controls").isHidden()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await context.close();
  });
});
