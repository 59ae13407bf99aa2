// The offline demo for s15, in three prompts:
//   1. alice writes a small module, then the lead asks her to shut down: she approves and stops;
//   2. bob is asked for a risky refactor: he submits a plan first, the lead rejects it with feedback;
//   3. charlie is asked for a plan (an ordinary message), submits one, gets it approved and does the work.
// At the end the lead runs charlie's tests itself. The roster and the request table live in the
// harness's state folder, out of the model's reach: /team and /requests show them.
// Request ids are read out of the real messages, so the demo also works in a workspace that has
// older requests in it (the ids go on from there).
import { say, use, useAll } from "../_shared/scripted.ts";
import type { MessageParam, Scenario, TurnContext } from "../_shared/types.ts";

const SLUG_JS = `export function slugify(text) {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join("-");
}
`;

const SLUG_TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import { slugify } from "../src/slug.js";

test("joins lowercase words with dashes", () => {
  assert.equal(slugify("Hello Team Protocols"), "hello-team-protocols");
});

test("drops punctuation and extra spaces", () => {
  assert.equal(slugify("  Ready, set... go!  "), "ready-set-go");
});
`;

const textOf = (m: MessageParam): string =>
  typeof m.content === "string"
    ? m.content
    : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");

/** What woke a teammate: its first prompt, or the mail it just read. */
const instruction = ({ request }: TurnContext): string =>
  textOf(
    [...request.messages].reverse().find((m) => m.role === "user" && textOf(m).trim()) ??
      request.messages[0],
  );

/** The request_id of the newest message of this type in some text. */
const requestId = (type: string, text: string): string =>
  [...text.matchAll(new RegExp(`type="${type}" request_id="(req_\\d+)"`, "g"))].at(-1)?.[1] ??
  "(no request id found)";

export default {
  summary:
    "two protocols on one state machine: alice approves her shutdown, bob's risky plan is rejected, charlie's plan is approved",
  prompts: [
    "Spawn alice as a coder to write src/slug.js. When she reports back, ask her to shut down.",
    "Spawn bob to refactor the auth module. It is risky, so he must send you a plan first. Reject it if it is too risky.",
    "Spawn charlie to add tests for src/slug.js. Ask him for a plan and approve it if it is sound. Then check his tests.",
  ],
  script: {
    lead: [
      // 1. alice: work, then the shutdown handshake
      use(
        "spawn",
        {
          name: "alice",
          role: "coder",
          prompt:
            "Write src/slug.js exporting slugify(text): the lowercase words of text joined by '-'. Check it, then report.",
        },
        "Starting alice.",
      ),
      use("inbox", { wait: true }, "I'll wait for her report."),
      use(
        "request_shutdown",
        { name: "alice", reason: "That was all for today, thank you." },
        "Her module is done. Asking her to shut down; she decides when it is safe.",
      ),
      use("inbox", { wait: true }),
      ({ lastResult }) =>
        say(
          `alice answered ${requestId("shutdown_response", lastResult())} with approve="true": ` +
            "she finished her turn and stopped. The request is approved in pending_requests.",
        ),

      // 2. bob: plan approval, rejected
      use(
        "spawn",
        {
          name: "bob",
          role: "refactoring specialist",
          prompt:
            "Refactor the auth module to use the new session store. This is risky: before you change anything, " +
            "send me your plan with submit_plan and wait for my review.",
        },
        "Starting bob; he has to send a plan before he touches anything.",
      ),
      use("inbox", { wait: true }),
      ({ lastResult }) =>
        use(
          "review_plan",
          {
            request_id: requestId("plan_approval_request", lastResult()),
            approve: false,
            feedback:
              "Too risky: no rewrite from scratch and no dropped table. Keep the public API, change one file at a time, " +
              "and put tests around the current behaviour first.",
          },
          "Deleting the module and dropping a table in one go is too much. Rejecting with feedback.",
        ),
      use("inbox", { wait: true }),
      ({ results }) =>
        say(
          `I rejected bob's plan (${requestId("plan_approval_request", results().join("\n"))}). ` +
            "He got the feedback and changed nothing.",
        ),

      // 3. charlie: asked for a plan with an ordinary message, plan approved, work done
      useAll(
        [
          {
            name: "spawn",
            input: {
              name: "charlie",
              role: "test writer",
              prompt:
                "You will add tests for src/slug.js. Read it first, then wait for instructions.",
            },
          },
          { name: "request_plan", input: { name: "charlie", about: "tests for src/slug.js" } },
        ],
        "Starting charlie and asking him for a plan. request_plan is an ordinary message, not a protocol.",
      ),
      use("inbox", { wait: true }),
      ({ lastResult }) =>
        use(
          "review_plan",
          {
            request_id: requestId("plan_approval_request", lastResult()),
            approve: true,
            feedback: "Sound and small. Go ahead.",
          },
          "A small plan with a clear check. Approving.",
        ),
      use("inbox", { wait: true }),
      use(
        "bash",
        { command: "node --test tests/slug.test.js 2>&1 | grep -E '^# (pass|fail)'" },
        "Running charlie's tests myself:",
      ),
      say(
        "alice is shut down (her shutdown request was approved), bob is idle after his plan was rejected, and " +
          "charlie is idle after his approved plan: tests/slug.test.js passes. Three requests, one state machine: " +
          "shutdown approved, one plan rejected, one plan approved. /team and /requests show the roster and the table.",
      ),
    ],
    alice: [
      use("write", { path: "src/slug.js", content: SLUG_JS }, "Writing the module."),
      use("bash", {
        command:
          "node -e \"import('./src/slug.js').then(m => console.log(m.slugify('Hello Team Protocols')))\"",
      }),
      ({ lastResult }) =>
        say(`src/slug.js is written: slugify('Hello Team Protocols') → ${lastResult()}.`),
      (ctx) =>
        use(
          "handle_shutdown",
          {
            request_id: requestId("shutdown_request", instruction(ctx)),
            approve: true,
            reason: "My work is finished and saved.",
          },
          "Nothing is half done, so I can stop.",
        ),
    ],
    bob: [
      use(
        "submit_plan",
        {
          plan:
            "1. Delete src/auth/ and rewrite it from scratch around the session store.\n" +
            "2. Drop the old sessions table in the same change.\n3. Update every caller at once.",
        },
        "Here is my plan; I'll wait for the review before touching anything.",
      ),
      ({ lastResult }) =>
        say(
          `Plan submitted (${/req_\d+/.exec(lastResult())?.[0]}). Waiting for the lead's review.`,
        ),
      (ctx) =>
        say(
          `My plan was rejected (${requestId("plan_approval_response", instruction(ctx))}). I changed nothing; ` +
            "I'll come back with a step-by-step plan that starts with tests.",
        ),
    ],
    charlie: [
      use("read", { path: "src/slug.js" }),
      say("I've read src/slug.js: one function, slugify. Ready."),
      use(
        "submit_plan",
        {
          plan:
            "Add tests/slug.test.js with node:test: one test for plain words, one for punctuation and extra spaces. " +
            "Run it with node --test. No change to src/.",
        },
        "The lead wants a plan first.",
      ),
      ({ lastResult }) =>
        say(`Plan submitted (${/req_\d+/.exec(lastResult())?.[0]}). Waiting for approval.`),
      use(
        "write",
        { path: "tests/slug.test.js", content: SLUG_TEST },
        "Approved. Writing the tests.",
      ),
      use("bash", {
        command: "node --test tests/slug.test.js 2>&1 | grep -E '^# (tests|pass|fail)'",
      }),
      ({ lastResult }) =>
        say(`tests/slug.test.js is in place: ${lastResult().split("\n").join(", ")}.`),
    ],
  },
} satisfies Scenario;
