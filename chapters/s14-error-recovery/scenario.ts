// The offline demo for s14: the API misbehaves on purpose, and every failure is a real one — the
// scripted model throws the same errors the real API would (529 overloaded, 400 prompt too long)
// or stops a reply at max_tokens. Watch the harness wait, compact, re-inject an identity, give up
// without losing the task, and finally ask the lead to continue a cut-off answer.
import { fail, say, use } from "../_shared/scripted.ts";
import type { Scenario, ScriptedReply } from "../_shared/types.ts";
import type { RecoveryOptions } from "./agent.ts";

const overloaded = (): ScriptedReply => fail(529, "overloaded_error", "Overloaded");
/** An overload whose response says how long to wait (a retry-after header of 0.1 s:
 *  short, so the demo stays brisk; a real API says how long it needs). */
const overloadedRetryAfter = (): ScriptedReply => fail(529, "overloaded_error", "Overloaded", 0.1);

const LOG =
  [
    "09:00:01 INFO  server started on :8080",
    "09:00:07 ERROR db timeout after 5000 ms (query: list_orders)",
    "09:00:09 WARN  slow response 1840 ms GET /orders",
    "09:00:12 ERROR upstream 502 from payments",
    "09:00:15 ERROR db timeout after 5000 ms (query: list_orders)",
    "09:00:20 INFO  health check ok",
  ].join("\n") + "\n";

const NOTES = `# server.log — what went wrong

- 2 × db timeout on \`list_orders\` (09:00:07, 09:00:15): the query needs an index or a longer timeout.
- 1 × upstream 502 from payments (09:00:12): retry with backoff on the client side.
`;

export default {
  summary:
    "overloads are retried with growing waits (or as long as retry-after says), a too-long prompt is compacted (the teammate keeps its identity), " +
    "a teammate that gives up keeps its task, and a cut-off answer is continued",
  prompts: [
    "Have a teammate summarise the errors in server.log into notes.md. (The API is flaky today.)",
  ],
  // The demo's backoff: base 200 ms instead of 500 and a fixed jitter (+25 %), so it waits 250 ms,
  // then 500 ms, the same every time. A run against the real API keeps the defaults.
  agentOptions: { baseDelayMs: 200, random: () => 0.5 } satisfies RecoveryOptions,
  script: {
    lead: [
      overloaded(),
      overloaded(),
      use(
        "write",
        { path: "server.log", content: LOG },
        "The API is answering again. First the log to analyse:",
      ),
      use("task_create", {
        subject: "Summarise server.log",
        description:
          "Read server.log and write notes.md listing each error, how often, and a likely fix.",
      }),
      use("spawn", {
        name: "alice",
        role: "log analyst",
        prompt: "Hello alice. Say hello, then take the task from the board.",
      }),
      use("inbox", { wait: true }, "I'll wait until alice is done or stuck."),
      ({ lastResult }) => {
        const failed = /<message from="alice" type="result" ok="false" task="(\d+)"/.exec(
          lastResult(),
        );
        return failed
          ? use(
              "send",
              {
                to: "alice",
                content: `The API should be back now. Please try task #${failed[1]} again.`,
              },
              "alice gave up but still holds her task, so nothing is lost. Asking her to try again:",
            )
          : say("alice finished on her own.");
      },
      use("inbox", { wait: true }),
      {
        text: "Done. alice read server.log and wrote notes.md. Found: two database timeouts on list_orders",
        stop_reason: "max_tokens",
      },
      say(
        " (09:00:07 and 09:00:15) and one 502 from the payments upstream (09:00:12). notes.md suggests an index for " +
          "list_orders and client-side retries for payments.",
      ),
    ],
    alice: [
      say("alice here, ready."),
      use("read", { path: "server.log" }, "My task: summarise server.log. Reading it."),
      // The log "was huge": the next request no longer fits the context window.
      fail(400, "invalid_request_error", "prompt is too long: 214903 tokens > 200000 maximum"),
      // The compaction's summary call (alice's own model):
      say(
        "alice (log analyst) claimed task #1: summarise server.log into notes.md. She read server.log: two db " +
          "timeouts on list_orders at 09:00:07 and 09:00:15, one upstream 502 from payments at 09:00:12. Next: write notes.md.",
      ),
      // This time the API says how long to wait: retry-after replaces the backoff.
      overloadedRetryAfter(),
      overloadedRetryAfter(),
      overloadedRetryAfter(),
      // The lead's message brings her back to work on the task she kept:
      use(
        "write",
        { path: "notes.md", content: NOTES },
        "Trying again: writing notes.md from my summary.",
      ),
      say(
        "notes.md is written: 2 db timeouts on list_orders and 1 upstream 502 from payments, each with a likely fix.",
      ),
    ],
  },
} satisfies Scenario;
