// The site's code blocks in less markup (site/lib/ec-plugins.mjs) look exactly as Expressive Code
// draws them: the same code rendered with and without the plugin, in the site's own themes and
// theme switch, shows every character in the same colour, weight, style and decoration in
// chromium, in the dark and the light theme.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { createRenderer, ExpressiveCodeTheme } from "rehype-expressive-code";
import { toHtml } from "rehype-expressive-code/hast";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../chapters/_runner/chapters.ts";
import { compactTokens } from "../../site/lib/ec-plugins.mjs";
import { hasChromium, launch } from "../support/chromium.ts";
import { budget } from "../support/budgets.ts";

const THEMES = path.join(
  REPO_ROOT,
  "node_modules/@astrojs/starlight/integrations/expressive-code/themes",
);
const theme = (file: string) =>
  ExpressiveCodeTheme.fromJSONString(readFileSync(path.join(THEMES, file), "utf8"));

/** Draws a whole page of code blocks as the site renders them, with or without the plugin. */
async function renderer(plugins: ReturnType<typeof compactTokens>[], warmUp: string) {
  const { ec, baseStyles, themeStyles } = await createRenderer({
    themes: [theme("night-owl-dark.jsonc"), theme("night-owl-light.jsonc")],
    // Starlight's switch: the theme's type on the root element (integrations/expressive-code)
    themeCssSelector: (t) => `[data-theme='${t.type}']`,
    plugins,
  });
  // A fresh engine's first long block can come out with fewer colours (the highlighter's time limit
  // per line, on a cold start): draw it once before the blocks compared.
  await ec.render({ code: warmUp, language: "ts" });
  return async (code: string) => {
    const blocks: string[] = [];
    for (const input of [
      { code, language: "ts" },
      // a block that wraps its lines keeps its indent wrappers
      { code: code.split("\n").slice(80, 180).join("\n"), language: "ts", props: { wrap: true } },
    ])
      blocks.push(toHtml((await ec.render(input)).renderedGroupAst));
    return { styles: baseStyles + themeStyles, blocks };
  };
}

// Up to four renders of 300 lines each way, and two pages drawn.
const RENDERS = budget({ page: 6 });

describe.skipIf(!hasChromium)("code blocks in less markup", { timeout: RENDERS }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  it("show every character of a chapter's code as Expressive Code does, in both themes", async () => {
    const source = readFileSync(path.join(REPO_ROOT, "chapters/s13-agent-teams/agent.ts"), "utf8");
    const code = source.split("\n").slice(0, 300).join("\n"); // imports, the message bus, tool schemas
    // The highlighter gives up on a line that takes it over 500 ms (Shiki's limit, which Expressive
    // Code does not expose), and then colours it less: on a busy machine two renders of the same
    // code can differ whatever the plugin does. So the baseline must first agree with itself.
    const [drawPlain, drawCompact] = [
      await renderer([], code),
      await renderer([compactTokens()], code),
    ];
    let plain = await drawPlain(code);
    let compact = await drawCompact(code);
    for (let attempt = 1; attempt < 4; attempt++) {
      const again = await drawPlain(code);
      if (again.blocks.join("") === plain.blocks.join("")) break;
      console.log(
        `attempt ${attempt}: the highlighter was not repeatable (a busy machine); rendering again`,
      );
      plain = again;
      compact = await drawCompact(code);
    }
    const [before, after] = [plain.blocks.join(""), compact.blocks.join("")];
    expect(compact.blocks[0].length).toBeLessThan(plain.blocks[0].length * 0.6);
    expect(compact.blocks[0]).not.toContain('class="indent"');
    expect(compact.blocks[1]).toContain('class="indent"');

    const page = await browser.newPage();
    const looks = async (styles: string, html: string, dark: boolean) => {
      await page.setContent(
        `<!doctype html><html data-theme="${dark ? "dark" : "light"}"><head><style>${styles}</style></head><body>${html}</body></html>`,
      );
      return page.evaluate(() =>
        [...document.querySelectorAll(".ec-line .code")].map((line) => {
          const runs: string[] = [];
          const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
          while (walker.nextNode()) {
            const text = walker.currentNode as Text;
            const s = getComputedStyle(text.parentElement!);
            const look = `${s.color} ${s.fontStyle} ${s.fontWeight} ${s.textDecorationLine}`;
            for (const char of text.data) runs.push(`${char}\t${look}`);
          }
          return runs.join("\n");
        }),
      );
    };
    for (const dark of [true, false]) {
      const expected = await looks(plain.styles, before, dark);
      const actual = await looks(compact.styles, after, dark);
      expect(actual.length).toBe(expected.length);
      expect(
        new Set(
          expected
            .join("\n")
            .split("\n")
            .map((r) => r.split("\t")[1]),
        ).size,
      ).toBeGreaterThan(8);
      for (let i = 0; i < expected.length; i++)
        expect(actual[i], `line ${i + 1}, ${dark ? "dark" : "light"}`).toBe(expected[i]);
    }
    await page.close();
  });
});
