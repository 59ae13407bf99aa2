// "Open a recording…" (site/components/OpenRecording.astro): a learner's own run, chosen with the
// page's file input, in the chapter player — read in a worker, its steps set as text. A team's
// run with its code, state, machine and sequence diagram; a hostile recording whose text stays
// text (no script runs); wrong files refused in the page's language; a chapter's player linking
// to the page; and a 50 MB recording read while the page goes on answering.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { budget } from "../support/budgets.ts";
import {
  longTeamRecording,
  recordFailureAndInterrupt,
  recordingHeader,
} from "../support/recordings.ts";
import { TRACE_VERSION, type TraceEvent, type TraceFile } from "../../chapters/_trace/contract.ts";
import de from "../../i18n/ui.de.json";
import ja from "../../i18n/ui.ja.json";
import { readTrace } from "../../site/lib/record-trace.ts";
import { translator } from "../../site/lib/ui-text.ts";
import { hasChromium } from "../support/chromium.ts";
import { siteForSuite, visit } from "../support/browser.ts";
import { BASE } from "../support/site-build.ts";

const site = siteForSuite({ when: hasChromium });
const dir = mkdtempSync(path.join(tmpdir(), "lah-open-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const header = (trace: Pick<TraceFile, "chapter" | "name">, extra: Record<string, unknown> = {}) =>
  recordingHeader({ chapter: trace.chapter, name: trace.name, title: trace.name, ...extra });
/** A recording file of these steps, as --record writes it. */
const recording = (
  name: string,
  trace: Pick<TraceFile, "chapter" | "name">,
  steps: unknown[],
  extra = {},
) => {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    [header(trace, extra), ...steps.map((s) => JSON.stringify(s))].join("\n") + "\n",
  );
  return file;
};

/** Opens the page in a locale ("", "/ja" …) and a file in its file input; waits until it is read. */
async function openFile(page: Page, locale: string, file: string, query = "") {
  expect(await visit(page, `${site.server.url}${locale}/open/${query}`)).toEqual([]);
  await page.setInputFiles(".lah-open input[type=file]", file);
  await page.waitForFunction(
    () =>
      ["done", "failed"].includes(
        document.querySelector<HTMLElement>(".lah-open")!.dataset.state ?? "",
      ),
    null,
    { timeout: budget({ evaluate: 10 }) }, // a recording of a few hundred steps
  );
  return page.locator(".lah-open");
}
/** Reading 50 MB in the page's worker: 2.4 s alone on the CI machine kind (npm run bench). */
const READ_50_MB = budget({ evaluate: 50 });
const next = (page: Page) => page.locator(".lah-open button[data-action=next]").click();

// Each test opens a recording or a few, in a page or four.
describe.skipIf(!hasChromium)("Open a recording…", { timeout: budget({ page: 5 }) }, () => {
  it("shows a team's run as the chapter player does: steps, code, state, machine, meter, sequence diagram", async () => {
    const s13 = readTrace("s13")!;
    const page = await site.tab({ width: 1280, height: 900 });
    const open = await openFile(page, "", recording("s13.jsonl", s13, s13.steps));
    expect(await open.getAttribute("data-state")).toBe("done");
    expect(await open.locator(".lah-step").count()).toBe(s13.steps.length);
    const status = await open.locator(".lah-open-status").textContent();
    expect(status).toContain(`${s13.steps.length} steps, model scripted`);
    // When it was recorded, as a reader writes a date (the header's ISO timestamp is not shown).
    expect(status).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    expect(status).toMatch(/recorded (Dec 31, 2025|Jan 1, 2026),? \d{1,2}:\d\d/);
    // The code that handled the step, s13's own (not "imported").
    await next(page);
    await next(page);
    const code = open.locator(".lah-code");
    await expect.poll(() => code.locator(".ln[data-here]").count()).toBe(1);
    expect(await code.locator(".lah-code-where").textContent()).toMatch(
      /^chapters\/s13-agent-teams\/[\w-]+\.ts, region/,
    );
    expect(await code.locator(".ln[data-here]").textContent()).toMatch(/messages\.create\(/);
    // At the end: the board, the roster, the lifecycle drawn with a state lit, the agents.
    await open.locator("button[data-action=last]").click();
    const state = open.locator(".lah-state-panels");
    expect(await state.textContent()).toContain("Greeting library");
    expect(await state.locator("caption").allTextContents()).toEqual(
      expect.arrayContaining(["Task board", "Team roster"]),
    );
    expect(await open.locator(".lah-machine svg").count()).toBe(1);
    expect(
      await open
        .locator(".lah-agent")
        .evaluateAll((els) => [...new Set(els.map((e) => e.textContent))]),
    ).toEqual(["lead", "alice", "bob"]);
    expect(await open.locator("select[data-action=agent] option").allTextContents()).toEqual([
      "all agents",
      "lead",
      "alice",
      "bob",
    ]);
    expect(await open.locator(".lah-meter .lah-bar").count()).toBe(
      s13.steps.filter((s) => s.kind === "request").length,
    );
    // The sequence diagram, drawn by mermaid in the page, follows the player.
    const sequence = page.locator(".lah-open-sequence svg");
    await sequence.waitFor();
    expect(await sequence.locator("text.messageText").count()).toBeGreaterThan(3);
    await open.locator("button[data-action=first]").click();
    await open.locator("button[data-action=last]").click();
    expect(await sequence.locator("[data-current]").count()).toBeGreaterThan(0);
    // In another language, the diagram's own words are that language's (as on a chapter page).
    const tJa = translator(ja, "ja");
    const inJa = await openFile(page, "/ja", recording("s13.jsonl", s13, s13.steps));
    const drawnJa = page.locator(".lah-open-sequence svg");
    await drawnJa.waitFor();
    expect(await inJa.getAttribute("data-state")).toBe("done");
    expect(await drawnJa.locator("text").allTextContents()).toContain(
      tJa("sequence.claims", { task: 1 }),
    );
  });

  it("uses the API's token counts in the context meter when the responses carry usage", async () => {
    const s01 = readTrace("s01")!;
    const steps = s01.steps.map((s) =>
      s.kind === "response"
        ? {
            ...s,
            usage: {
              input_tokens: 50,
              output_tokens: 9,
              cache_read_input_tokens: 1000,
              cache_creation_input_tokens: 200,
            },
          }
        : s,
    );
    const page = await site.tab();
    const open = await openFile(
      page,
      "",
      recording("usage.jsonl", s01, steps, { model: "claude-test" }),
    );
    expect(await open.locator(".lah-meter-caption").textContent()).toContain(
      "as the API counted it",
    );
    expect(await open.locator(".lah-meter .lah-bar title").first().textContent()).toContain(
      "1250 tokens (counted by the API)",
    );
    expect(await open.locator(".lah-open-status").textContent()).toContain("model claude-test");
  });

  it("shows a hostile recording's text as text: no script runs, in the steps or the diagram", async () => {
    const attack = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><svg onload="window.__pwned = 3">`;
    const steps: TraceEvent[] = [
      { kind: "user", agent: "lead", text: `hello ${attack}` },
      { kind: "request", agent: "lead", messages: 1, tools: ["bash"], system: attack },
      { kind: "response", agent: "lead", stop_reason: "tool_use", text: attack, calls: ["bash"] },
      { kind: "tool_call", agent: "lead", id: "t1", name: "bash", input: { command: attack } },
      {
        kind: "tool_result",
        agent: "lead",
        id: "t1",
        name: "bash",
        output: `out ${attack}`,
        is_error: false,
      },
      { kind: "note", agent: "lead", text: attack },
      {
        kind: "event",
        agent: "lead",
        type: "mailbox_send",
        data: { id: "m1", type: attack, from: "lead", to: `bob${attack}`, content: attack },
      },
      {
        kind: "event",
        agent: `bob${attack}`,
        type: "member_state",
        data: { name: `bob${attack}`, state: "shutdown", task: null },
      },
      // A state no machine has, that would be a broken regular expression.
      {
        kind: "event",
        agent: "alice",
        type: "member_state",
        data: { name: "alice", state: "([+", task: null },
      },
      {
        kind: "event",
        agent: "lead",
        type: "protocol",
        data: { request_id: attack, type: "shutdown", from: "lead", to: "bob", status: attack },
      },
    ];
    const page = await site.tab();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    let dialogs = 0;
    page.on("dialog", (d) => {
      dialogs++;
      void d.dismiss();
    });
    const open = await openFile(
      page,
      "",
      recording("hostile.jsonl", { chapter: "s13", name: "s13-agent-teams" }, steps),
    );
    expect(await open.getAttribute("data-state")).toBe("done");
    await open.locator("button[data-action=last]").click();
    // The text is there, as text.
    const result = open.locator('.lah-step[data-kind="tool_result"] .lah-step-body');
    expect(await result.textContent()).toBe(`out ${attack}`);
    expect(await result.isVisible()).toBe(true);
    expect(await open.locator(".lah-step-body", { hasText: "hello <script>" }).count()).toBe(1);
    // The diagram is drawn, its labels text too.
    await page.locator(".lah-open-sequence svg").waitFor();
    expect(await page.locator(".lah-open-sequence").textContent()).toContain("<img src=x");
    // The inspector shows the model call as the recording has it, as text too.
    await open.locator("button[data-action=first]").click();
    await open.locator("button[data-action=next]").click();
    await open.locator("button[data-action=next]").click();
    await open.locator('.lah-step[aria-current="step"] button.lah-inspect').click();
    const inspector = page.locator("dialog.lah-inspector[open]");
    expect(await inspector.textContent()).toContain(JSON.stringify(attack));
    await page.keyboard.press("Escape");
    // Nothing ran, and nothing of the recording became an element.
    await page.waitForTimeout(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toBe(0);
    expect(errors).toEqual([]);
    expect(
      await page
        .locator(".lah-open img, .lah-open [onerror], .lah-open [onload], .lah-open-stage script")
        .count(),
    ).toBe(0);
  });

  it("shows a real run's failed call and its Ctrl-C between the request and the next prompt", async () => {
    // Made as a learner makes one: s01 against the local fake API, with --record, on a terminal.
    const { file, api } = await recordFailureAndInterrupt();
    await api.close();
    const page = await site.tab({ width: 1280, height: 900 });
    const open = await openFile(page, "", file);
    expect(await open.getAttribute("data-state")).toBe("done");
    const steps = open.locator(".lah-step");
    const kinds = await steps.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.kind));
    expect(kinds).toEqual(["user", "request", "event", "user", "request", "event"]);
    const titles = await open.locator(".lah-step .lah-step-title").allTextContents();
    expect(titles[2]).toBe("◇ model call failed (529): Overloaded");
    expect(titles[5]).toBe(
      "◇ you interrupted (Ctrl-C): the turn keeps 0 finished result(s) and the answer so far",
    );
    // Both are the story, not bookkeeping: they stay when the player shows the story only.
    for (const i of [2, 5]) expect(await steps.nth(i).getAttribute("data-minor")).toBeNull();
    // The failed call's code is the loop's model call, the line it failed on.
    await open.locator("button[data-action=first]").click();
    await next(page);
    await next(page);
    await expect.poll(() => steps.nth(2).getAttribute("aria-current")).toBe("step");
    const here = open.locator(".lah-code .ln[data-here]");
    await expect.poll(() => here.count()).toBe(1);
    expect(await here.textContent()).toMatch(/messages\.create\(/);
    // At the last step the recovery panel lists both.
    await open.locator("button[data-action=last]").click();
    const state = open.locator(".lah-state-panels");
    await expect.poll(() => state.textContent()).toContain("HTTP 529: Overloaded");
    expect(await state.textContent()).toContain("kept 0 results + partial answer");
  });

  it("refuses a wrong file in the page's language, and shows a cut-short run's steps", async () => {
    const s01 = readTrace("s01")!;
    const page = await site.tab();
    const tJa = translator(ja, "ja");
    const text = path.join(dir, "notes.txt");
    writeFileSync(text, "just some notes\n");
    let open = await openFile(page, "/ja", text);
    expect(await open.locator(".lah-open-problem").textContent()).toBe(
      tJa("recording.notRecording", { file: "notes.txt" }),
    );
    expect(await open.locator(".lah-step").count()).toBe(0);
    open = await openFile(
      page,
      "/ja",
      recording("newer.jsonl", s01, s01.steps, { version: TRACE_VERSION + 1 }),
    );
    expect(await open.locator(".lah-open-problem").textContent()).toBe(
      tJa("recording.newer", { version: TRACE_VERSION + 1, supported: TRACE_VERSION }),
    );
    const tDe = translator(de, "de");
    const wrong = structuredClone(s01.steps) as unknown[];
    wrong[2] = { ...s01.steps[2], agent: 7 };
    open = await openFile(page, "/de", recording("wrong.jsonl", s01, wrong));
    expect(await open.locator(".lah-open-problem").textContent()).toBe(
      tDe("recording.invalidStep", { step: 3, reason: "agent: expected string, received number" }),
    );
    // A run that crashed: its last line cut short, the steps before it shown, and said so.
    const full = recording("cut.jsonl", s01, s01.steps);
    const { readFileSync } = await import("node:fs");
    const body = readFileSync(full, "utf8");
    writeFileSync(full, body.slice(0, body.length - 30));
    open = await openFile(page, "/de", full);
    const n = s01.steps.length;
    expect(await open.locator(".lah-open-warning").textContent()).toBe(
      tDe("recording.truncated", { step: n, shown: n - 1 }),
    );
    expect(await open.locator(".lah-step").count()).toBe(n - 1);
    // A trace file opens too.
    open = await openFile(page, "", path.resolve("site/traces/s01.json"));
    expect(await open.locator(".lah-step").count()).toBe(n);
  });

  it("is linked from a chapter's player, with the chapter chosen, in the reader's language", async () => {
    const page = await site.tab();
    // The link comes once the reader uses the player (as its panels do: no layout shift while
    // the page is only scrolled), with the player's data.
    const linkOf = async (url: string) => {
      expect(await visit(page, `${site.server.url}${url}`)).toEqual([]);
      const player = page.locator(".lah-player").first();
      await player.scrollIntoViewIfNeeded();
      expect(await page.locator(".lah-player-open").count()).toBe(0);
      await player.locator("button[data-action=next]").click();
      const link = page.locator(".lah-player-open");
      await link.waitFor();
      return link;
    };
    expect(await (await linkOf("/s01-agent-loop/run/")).getAttribute("href")).toBe(
      `${BASE}open/?chapter=s01`,
    );
    const link = await linkOf("/ja/s13-agent-teams/run/");
    expect(await link.textContent()).toBe(ja["player.open"]);
    await link.click();
    await page.waitForURL(/\/ja\/open\/\?chapter=s13$/);
    expect(await page.locator("h1").textContent()).toBe("記録を開く…");
    expect(await page.locator("[data-chapter-command]").textContent()).toBe(
      "npm run chapter s13 -- --record run.jsonl",
    );
  });

  // What it takes (first steps, all shown, the longest task) is a figure, not a pass mark: it
  // depends on the machine and what else runs on it, so `npm run bench` measures it.
  it(
    "reads a 50 MB recording while the page goes on answering",
    async () => {
      const { text, steps } = longTeamRecording(50 * 1024 * 1024);
      const file = path.join(dir, "big.jsonl");
      writeFileSync(file, text);

      const page = await site.tab({ width: 1280, height: 900 });
      expect(await visit(page, `${site.server.url}/open/`)).toEqual([]);
      // A timer every 50 ms on the main thread counts its ticks while the file is being read.
      await page.evaluate(() => {
        const w = window as unknown as Record<string, number>;
        w.__ticksWhileReading = 0;
        setInterval(() => {
          if (document.querySelector<HTMLElement>(".lah-open")?.dataset.state === "reading")
            w.__ticksWhileReading++;
        }, 50);
      });
      await page.setInputFiles(".lah-open input[type=file]", file);
      await page
        .locator(".lah-open .lah-step")
        .first()
        .waitFor({ timeout: budget("page") });
      // The first steps are shown before the whole file is read, and the player answers a click.
      const open = page.locator(".lah-open");
      expect(await open.getAttribute("data-state"), "shown before the file is read").toBe(
        "reading",
      );
      await next(page);
      await expect
        .poll(() => open.locator(".lah-step[aria-current=step]").getAttribute("data-index"), {
          timeout: budget("page"),
        })
        .toBe("1");
      await page.waitForFunction(
        () => document.querySelector<HTMLElement>(".lah-open")!.dataset.state === "done",
        null,
        { timeout: READ_50_MB },
      );
      const ticks = await page.evaluate(
        () => (window as unknown as Record<string, number>).__ticksWhileReading,
      );
      expect(ticks, "the main thread's timer ran while the file was read").toBeGreaterThan(0);
      // A long run is shown a part of 2,000 steps at a time; the last part has the rest.
      expect(await open.locator(".lah-step").count()).toBe(2000);
      const parts = page.locator(".lah-open-parts select");
      expect(await parts.locator("option").count()).toBe(Math.ceil(steps / 2000));
      const lastPart = await parts.locator("option").last().getAttribute("value");
      await parts.selectOption(lastPart!);
      const rest = steps - Number(lastPart);
      await expect.poll(() => open.locator(".lah-step").count()).toBe(rest);
      // The player moves through it.
      await open.locator("button[data-action=last]").click();
      await expect
        .poll(() => open.locator(".lah-position").textContent())
        .toContain(`${rest} of ${rest}`);
    },
    budget({ page: 3 }) + READ_50_MB,
  );
});
