// Generated text in the reader's language, in chromium: on a chapter page in ja, zh and de, the
// tool table's descriptions are the translations (i18n/tools.<locale>.json) of what the chapter's
// TOOLS says, and the sequence diagram drawn from the recorded run says "claims task 1" and
// "spawn" in the page's language (sequence.* in i18n/ui.<locale>.json), while what the run itself
// wrote (a message's type) stays as it was. The player's state panels word their values in the
// page's language too (state.value.* in i18n/ui.<locale>.json): a ja chapter's player, stepped,
// and a learner's own recording opened on the ja recording page.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { findChapter, REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import type { ChapterModule } from "../../chapters/_shared/types.ts";
import { hasChromium } from "../support/chromium.ts";
import { LOCALES, siteForSuite } from "../support/browser.ts";
import { budget } from "../support/budgets.ts";
import { recordingHeader } from "../support/recordings.ts";
import { readTrace } from "../../site/lib/record-trace.ts";
import { stateTimeline } from "../../site/lib/run-state.ts";
import { snapshotText, stateStrings, stateWording } from "../../site/lib/state-words.ts";

const strings = (file: string) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, "i18n", file), "utf8")) as Record<string, string>;

/** The state panels after step `index` of a chapter's recorded run, as a reader of `locale` should
 *  see them: the timeline worded with that locale's strings (the English where it has none). */
function expectedState(id: string, index: number, locale: "ja" | "zh" | "de") {
  const english = stateStrings(strings("ui.en.json"));
  const word = stateWording(stateStrings(strings(`ui.${locale}.json`)), english, locale);
  return Object.values(snapshotText(stateTimeline(readTrace(id)!)[index], word));
}
/** The state panels the player shows: each table's rows of cell texts. */
const shownState = (player: Locator) =>
  player
    .locator(".lah-state-panels table")
    .evaluateAll((tables) =>
      tables.map((t) =>
        [...t.querySelectorAll("tbody tr")].map((tr) =>
          [...tr.querySelectorAll("td")].map((td) => td.textContent ?? ""),
        ),
      ),
    );
const currentIndex = (player: Locator) =>
  player.locator('.lah-step[aria-current="step"]').getAttribute("data-index").then(Number);
/** English words of the state panels: a status, or the words around a name. */
const ENGLISH_STATE =
  /\b(pending|approved|rejected|working|idle|shutdown|running|completed|open|removed|owner:|blocked by|lane:)\b/;

describe.skipIf(!hasChromium)(
  "generated text in the reader's language",
  { timeout: budget({ page: 12 }) },
  () => {
    const site = siteForSuite();

    it("the player's state is in the page's words: ja s13's board and roster, stepped", async () => {
      const page = await site.tab({ width: 1280, height: 720 });
      const ja = strings("ui.ja.json");
      await page.goto(`${site.server.url}${LOCALES.ja}/s13-agent-teams/run/`, {
        waitUntil: "load",
      });
      const player = page.locator(".lah-player").first();
      await player.scrollIntoViewIfNeeded();
      // Step until the board shows an owner (a task was claimed), then on to the end.
      const steps = readTrace("s13")!.steps;
      const claimed = steps.findIndex((s) => s.kind === "event" && s.type === "task_claimed");
      expect(claimed).toBeGreaterThan(0);
      await player.focus();
      while ((await currentIndex(player)) < claimed) await page.keyboard.press("ArrowRight");
      const at = await currentIndex(player);
      await expect.poll(() => shownState(player)).toEqual(expectedState("s13", at, "ja"));
      const board = player.locator(".lah-state table", { hasText: "#1" }).first();
      expect(await board.textContent()).toContain(ja["state.value.owner"].split("{{")[0].trim());
      await player.locator("button[data-action=last]").click();
      await expect
        .poll(() => shownState(player))
        .toEqual(expectedState("s13", steps.length - 1, "ja"));
      const roster = player.locator(".lah-state table", {
        hasText: ja["state.value.is.shutdown"],
      });
      expect(await roster.count()).toBe(1);
      // Our words are Japanese; the names, ids and lanes the run recorded are as they were.
      const cells = (await shownState(player)).flat(2);
      expect(cells.filter((c) => ENGLISH_STATE.test(c))).toEqual([]);
      expect(cells).toEqual(expect.arrayContaining(["alice", "bob", "#1"]));
      // The code value of a worded status is a hover away.
      expect(await roster.locator("td[title=shutdown]").count()).toBeGreaterThan(0);
    });

    it("a state word a locale lacks is shown in English, marked, and the panel says so", async () => {
      const page = await site.tab({ width: 1280, height: 720 });
      const ja = strings("ui.ja.json");
      // the player's data as a build would serve it had a translator not yet added is.idle in ja
      await page.route("**/player/s13.json", async (route) => {
        const response = await route.fetch();
        const data = (await response.json()) as { words: Record<string, Record<string, string>> };
        delete data.words.ja["state.value.is.idle"];
        await route.fulfill({ response, json: data });
      });
      try {
        await page.goto(`${site.server.url}${LOCALES.ja}/s13-agent-teams/run/`, {
          waitUntil: "load",
        });
        const player = page.locator(".lah-player").first();
        await player.scrollIntoViewIfNeeded();
        const idle = readTrace("s13")!.steps.findIndex(
          (s) => s.kind === "event" && s.type === "member_state" && s.data.state === "idle",
        );
        await player.evaluate(
          (root, index) => root.dispatchEvent(new CustomEvent("lah-goto", { detail: { index } })),
          idle,
        );
        const english = player.locator('.lah-state-panels td[lang="en"]');
        await expect.poll(() => english.allTextContents()).toContain("idle");
        expect(await player.locator(".lah-state-english").textContent()).toBe(
          ja["state.value.english"],
        );
        // every other word is the Japanese one
        expect(new Set(await english.allTextContents())).toEqual(new Set(["idle"]));
        const lacking = stateStrings(ja);
        delete lacking["state.value.is.idle"];
        const word = stateWording(lacking, stateStrings(strings("ui.en.json")), "ja");
        const shown = snapshotText(stateTimeline(readTrace("s13")!)[idle], word);
        expect(await shownState(player)).toEqual(Object.values(shown));
      } finally {
        await page.unroute("**/player/s13.json");
      }
    });

    it("a learner's own recording shows the same words on the ja recording page", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "lah-words-"));
      try {
        const s15 = readTrace("s15")!;
        const file = path.join(dir, "s15.jsonl");
        const header = recordingHeader({ chapter: s15.chapter, name: s15.name, title: s15.name });
        writeFileSync(file, [header, ...s15.steps.map((s) => JSON.stringify(s))].join("\n") + "\n");
        const page: Page = await site.tab({ width: 1280, height: 900 });
        await page.goto(`${site.server.url}${LOCALES.ja}/open/`, { waitUntil: "load" });
        await page.setInputFiles(".lah-open input[type=file]", file);
        await page.waitForFunction(
          () => document.querySelector<HTMLElement>(".lah-open")!.dataset.state === "done",
          null,
          { timeout: budget({ evaluate: 10 }) },
        );
        const open = page.locator(".lah-open");
        // when it was recorded, as Japanese writes a date, not the header's ISO timestamp
        expect(await open.locator(".lah-open-status").textContent()).toMatch(
          /記録日時 20(25\/12\/31|26\/01\/01) \d{1,2}:\d\d/,
        );
        await open.locator("button[data-action=last]").click();
        await expect
          .poll(() => shownState(open))
          .toEqual(expectedState("s15", s15.steps.length - 1, "ja"));
        // The requests' statuses and the roster's states (a request's type, e.g. shutdown, is
        // the protocol's name and stays as it is).
        const rows = (await shownState(open)).flat();
        const statuses = [
          ...rows.filter((r) => /^req_/.test(r[0])).map((r) => r[3]),
          ...rows
            .filter((r) => ["lead", "alice", "bob", "charlie"].includes(r[0]))
            .map((r) => r[1]),
        ];
        expect(statuses).toContain(strings("ui.ja.json")["state.value.is.approved"]);
        expect(statuses.filter((c) => ENGLISH_STATE.test(c))).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("tool descriptions and the sequence diagram's words are the locale's, in ja, zh and de", async () => {
      const s13 = findChapter("s13")!;
      const { TOOLS } = (await import(path.join(s13.dir, "agent.ts"))) as ChapterModule;
      const page = await site.tab({ width: 1280, height: 720 });
      for (const locale of ["ja", "zh", "de"] as const) {
        const tools = strings(`tools.${locale}.json`);
        const ui = strings(`ui.${locale}.json`);
        await page.goto(`${site.server.url}${LOCALES[locale]}/${s13.name}/`, { waitUntil: "load" });
        const rows = await page
          .locator("table.lah-tools tbody tr")
          .evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll("td")[1].textContent!.trim()));
        // (a `code` span of the description is shown as code, without its backticks)
        expect(rows, locale).toEqual(
          TOOLS.map((tool) => tools[tool.description!].replace(/`/g, "")),
        );
        // the recorded run's diagram, on Run it
        await page.goto(`${site.server.url}${LOCALES[locale]}/${s13.name}/run/`, {
          waitUntil: "load",
        });
        const drawn = await page
          .locator(".lah-trace-sequence svg text")
          .evaluateAll((texts) => texts.map((t) => t.textContent ?? ""));
        const claims = ui["sequence.claims"].replace("{{task}}", "1");
        expect(drawn, locale).toContain(claims);
        expect(drawn, locale).toContain(ui["sequence.spawn"]);
        expect(
          drawn.some((text) => /claims task/.test(text)),
          locale,
        ).toBe(false);
        // a message's type is the run's own word
        expect(drawn, locale).toContain("result");
      }
      // the translation status counts the descriptions: every one translated, none left over
      await page.goto(`${site.server.url}/translation-status/`, { waitUntil: "load" });
      const counts = await page
        .locator("table.lah-status-tools tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.textContent))),
        );
      const descriptions = Object.keys(strings("tools.ja.json")).length;
      expect(counts).toEqual([
        [descriptions, 0, 0],
        [descriptions, 0, 0],
        [descriptions, 0, 0],
      ]);
      // and the player's state words, as the descriptions
      const stateCounts = await page
        .locator("table.lah-status-state tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.textContent))),
        );
      const words = Object.keys(stateStrings(strings("ui.en.json"))).length;
      expect(stateCounts).toEqual([
        [words, 0, 0],
        [words, 0, 0],
        [words, 0, 0],
      ]);
    });
  },
);
