// What a reader sees when s14 retries an answer that broke off mid-stream (issue 37): the partial
// text of each failed try is marked where it stops, so the answer printed after the retry is not
// read as a second answer. Run through the CLI against the local fake Messages API.
import { afterEach, describe, expect, it } from "vitest";
import { budget } from "../support/budgets.ts";
import {
  endTurn,
  errorMidStream,
  startFakeApi,
  streamed,
  type FakeApi,
} from "../support/fake-api.ts";
import { tempDir } from "../support/helpers.ts";
import { runCli } from "../support/run-cli.ts";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("s14 on screen: a retried answer", { timeout: budget({ cli: 3 }) }, () => {
  it("marks each try's partial text as cut off, then prints the whole answer once", async () => {
    api = await startFakeApi([
      errorMidStream("overloaded_error", "Overloaded"),
      streamed(endTurn("the full answer at last")),
    ]);
    const { code, stdout } = await runCli(["s14", "--workspace", tempDir()], {
      input: "go\n",
      env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "sk-test", MODEL_ID: "m" },
    });
    expect(code).toBe(0);
    const answers = stdout.split("\n").filter((l) => l.startsWith("assistant ›"));
    expect(answers).toEqual([
      expect.stringMatching(/^assistant › \S.* ⟨cut off⟩$/),
      "assistant › the full answer at last",
    ]);
  });
});
