// The offline demo for s11: a slow build runs in the background while the model keeps working.
import { say, use } from "../_shared/scripted.ts";
import type { CreateParams, Scenario } from "../_shared/types.ts";

/** The text of the newest <background-results> block the harness injected into the request. */
function backgroundResults(request: CreateParams): string {
  const texts = request.messages.flatMap((m) =>
    typeof m.content === "string"
      ? [m.content]
      : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])),
  );
  return texts.filter((t) => t.startsWith("<background-results>")).at(-1) ?? "(none)";
}

// The build packs the release notes, so it waits for them, then takes one more second. What the
// model does after writing the notes (check_background, "nothing else to do") fits in that second
// however slowly the build started, so the check shows it running and the loop visibly waits.
const BUILD =
  "until [ -f RELEASE_NOTES.md ]; do sleep 0.1; done; sleep 1; " +
  "mkdir -p dist && cp RELEASE_NOTES.md dist/ && echo 'bundle v1' > dist/app.js && echo 'build ok: dist/app.js'";

export default {
  summary:
    "a slow build starts in the background; the model writes docs meanwhile, then gets the build result injected",
  prompts: ["Run the (slow) build in the background, and write the release notes while it runs."],
  script: {
    lead: [
      use(
        "background_run",
        { command: BUILD },
        "The build is slow (and packs RELEASE_NOTES.md, so it waits for that file). I'll start it in the background.",
      ),
      use(
        "write",
        {
          path: "RELEASE_NOTES.md",
          content: "# Release 1.0\n\n- First build of the app bundle.\n",
        },
        "While it runs, I'll write the release notes.",
      ),
      use("check_background", { id: "bg_1" }, "Notes written. Is the build done yet?"),
      // Answer what the check really showed, so the demo never claims a state that is not true.
      ({ lastResult }) =>
        lastResult().includes("] running")
          ? say("The build is still running. I have nothing else to do until its result arrives.")
          : say(`The build has already finished:\n${lastResult()}\nSo the release is ready.`),
      ({ request }) =>
        say(
          `The build result arrived by itself:\n${backgroundResults(request)}\n` +
            "dist/app.js is built and RELEASE_NOTES.md is written, so the release is ready.",
        ),
    ],
  },
} satisfies Scenario;
