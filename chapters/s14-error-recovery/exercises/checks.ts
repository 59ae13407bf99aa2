// s14's exercises: rebuild the sorting of failures and the waits (classify, backoffDelay,
// retryAfterMs); extend the retries with a fallback model. The behaviours are the curriculum's for
// s14, and tests/chapters/s14-error-recovery.test.ts runs the same ones against the chapter's code.
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk/core/error";
import { fail, say, use } from "../../_shared/scripted.ts";
import type { MessageParam, ScriptedTurn } from "../../_shared/types.ts";
import type * as S14 from "../agent.ts";
import {
  change,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckEnv,
  type CheckKit,
  type Exercise,
  refusal,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S14;

const LEAD = "lead";
const overloaded = () => fail(529, "overloaded_error", "Overloaded");
const text = (m: MessageParam | undefined): string =>
  !m
    ? ""
    : typeof m.content === "string"
      ? m.content
      : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The lead's requests, as the scripted model recorded them. */
const leadRequests = (env: CheckEnv) => env.requests.filter((r) => r.agent === LEAD);

/** Plays `script` on the lead of a fresh team whose waits are recorded, not slept; closes the team.
 *  `options` is spread as it is, so an extend's own option reaches the agent. */
async function play(
  module: M,
  kit: CheckKit,
  script: ScriptedTurn[],
  options: Record<string, unknown> = {},
) {
  const env = kit.env({ lead: script });
  const delays: number[] = [];
  const agent = module.createAgent(env, {
    pollMs: 2,
    idleWaitMs: 10,
    settleTimeoutMs: 5_000,
    baseDelayMs: 100,
    maxDelayMs: 8_000,
    sleep: async (ms: number) => void delays.push(ms),
    ...options,
  });
  let failed: unknown;
  try {
    await agent.send("go");
  } catch (err) {
    failed = err;
  } finally {
    await agent.close?.();
  }
  // A stub's "not started" ends the turn like any error: it goes on up, as not started.
  if (errorText(failed).includes(NOT_STARTED)) throw failed;
  const answer = text(agent.messages.at(-1));
  return { env, delays, failed, answer };
}

function expectAnswered(failed: unknown, answer: string, expected: string) {
  expectThat(failed === undefined, "call-gave-up", { got: errorText(failed) });
  expectThat(answer === expected, "wrong-answer", { got: answer, expected });
}

/** An API error as the SDK throws it (retry-after in seconds; an error_code in its details). */
const apiError = (status: number, type: string, message: string, errorCode?: string) =>
  APIError.generate(
    status,
    {
      type: "error",
      error: { type, message, ...(errorCode ? { details: { error_code: errorCode } } : {}) },
    },
    message,
    new Headers(),
  );

export const overloadBackoff: Check<M> = {
  id: "overload-backoff",
  async run(module, kit) {
    // The worst jitter for growth: the first wait as long as it can be, the second as short.
    const jitter = [0.999, 0];
    const { env, delays, failed, answer } = await play(
      module,
      kit,
      [overloaded(), overloaded(), say("made it")],
      { random: () => jitter.shift() ?? 0 },
    );
    expectThat(leadRequests(env).length === 3, "wrong-tries", {
      got: leadRequests(env).length,
      expected: 3,
    });
    expectAnswered(failed, answer, "made it");
    expectThat(delays.length === 2, "wrong-waits", {
      got: delays.join(", ") || "none",
      expected: 2,
    });
    // base 100 ms: try 1 waits 100–150 ms, try 2 waits 200–300 ms
    for (const [i, low] of [100, 200].entries()) {
      const high = low * 1.5;
      expectThat(delays[i] >= low && delays[i] <= high, "delay-out-of-range", {
        attempt: i + 1,
        got: delays[i],
        low,
        high,
      });
    }
    expectThat(delays[1] > delays[0], "wait-not-longer", { first: delays[0], second: delays[1] });
  },
};

export const backoffCapped: Check<M> = {
  id: "backoff-capped",
  run(module) {
    for (let attempt = 1; attempt <= 4; attempt++) {
      const expected = 500 * 2 ** (attempt - 1);
      const got = module.backoffDelay(attempt, 500, 60_000, () => 0);
      expectThat(got === expected, "backoff-not-doubling", { attempt, got, expected });
    }
    const got = module.backoffDelay(10, 500, 8_000, () => 0.9);
    expectThat(got === 8_000, "backoff-not-capped", { got, cap: 8_000 });
  },
};

export const retryAfterWins: Check<M> = {
  id: "retry-after",
  async run(module, kit) {
    const { delays, failed, answer } = await play(module, kit, [
      fail(529, "overloaded_error", "Overloaded", 0.25),
      fail(529, "overloaded_error", "Overloaded", 120),
      say("made it"),
    ]);
    expectAnswered(failed, answer, "made it");
    const expected = [250, 8_000];
    expectThat(delays.join() === expected.join(), "retry-after-ignored", {
      got: delays.join(", ") || "none",
      expected: expected.join(", "),
    });
  },
};

export const classifiesFailures: Check<M> = {
  id: "classify-kinds",
  run(module) {
    const cases: [string, unknown, S14.FailureKind][] = [
      ["529 overloaded", apiError(529, "overloaded_error", "Overloaded"), "transient"],
      ["503 unavailable", apiError(503, "api_error", "unavailable"), "transient"],
      ["500 server error", apiError(500, "api_error", "internal error"), "transient"],
      ["429 rate limit", apiError(429, "rate_limit_error", "slow down"), "transient"],
      [
        "a dropped connection",
        new APIConnectionError({ message: "Connection error." }),
        "transient",
      ],
      [
        "400 prompt is too long",
        apiError(
          400,
          "invalid_request_error",
          "prompt is too long: 214903 tokens > 200000 maximum",
        ),
        "too_long",
      ],
      [
        "413 request too large",
        apiError(413, "request_too_large", "Request too large"),
        "too_long",
      ],
      [
        "429 monthly spend cap",
        apiError(429, "rate_limit_error", "usage limits reached", module.SPEND_CAP),
        "fatal",
      ],
      ["400 bad request", apiError(400, "invalid_request_error", "max_tokens: too large"), "fatal"],
      ["401 bad key", apiError(401, "authentication_error", "invalid x-api-key"), "fatal"],
      ["404 unknown model", apiError(404, "not_found_error", "model: nope"), "fatal"],
      ["a bug (a plain Error)", new Error("x is undefined"), "fatal"],
    ];
    for (const [error, err, expected] of cases) {
      const got = module.classify(err);
      expectThat(got === expected, "wrong-kind", { error, got: String(got), expected });
    }
  },
};

export const tooLongCompacts: Check<M> = {
  id: "too-long-compacts",
  async run(module, kit) {
    const { env, failed, answer } = await play(module, kit, [
      use("bash", { command: "echo lots of output" }),
      fail(400, "invalid_request_error", "prompt is too long: 214903 tokens > 200000 maximum"),
      say("SUMMARY: ran echo"),
      say("done after compaction"),
    ]);
    expectAnswered(failed, answer, "done after compaction");
    const retry = leadRequests(env).at(-1)!.body.messages;
    expectThat(
      retry.length === 1 && text(retry[0]).includes("SUMMARY: ran echo"),
      "not-compacted",
      {
        got: retry.length,
      },
    );
  },
};

// ---- The rules, tried on generated failures and waits (property checks) ----

/** A generated failure, and the kind the contract gives it. */
interface Failure {
  what: string;
  make: () => unknown;
  kind: S14.FailureKind;
}

const TOO_LONG_MESSAGE = "prompt is too long: 214903 tokens > 200000 maximum";

/** Any status the API answers with, any message (a too-long one too), with or without the spend
 *  cap's error_code; the kind follows the contract, step by step. */
const apiFailureArb = (spendCap: string): fc.Arbitrary<Failure> =>
  fc
    .record({
      status: fc.constantFrom(400, 401, 403, 404, 413, 422, 429, 500, 502, 503, 504, 529),
      tooLong: fc.boolean(),
      capped: fc.boolean(),
    })
    .map(({ status, tooLong, capped }) => {
      const message = tooLong ? TOO_LONG_MESSAGE : "something went wrong";
      const kind: S14.FailureKind =
        status === 413 || (status === 400 && tooLong)
          ? "too_long"
          : status === 429 && capped
            ? "fatal"
            : status === 429 || status >= 500
              ? "transient"
              : "fatal";
      return {
        what: `${status} "${message}"${capped ? ` (error_code ${spendCap})` : ""}`,
        make: () => apiError(status, "api_error", message, capped ? spendCap : undefined),
        kind,
      };
    });

const otherFailures: Failure[] = [
  {
    what: "a dropped connection (APIConnectionError)",
    make: () => new APIConnectionError({ message: "Connection error." }),
    kind: "transient",
  },
  {
    what: "a connection timeout (APIConnectionTimeoutError)",
    make: () => new APIConnectionTimeoutError(),
    kind: "transient",
  },
  {
    what: "a request the person aborted (APIUserAbortError, Ctrl-C)",
    make: () => new APIUserAbortError(),
    kind: "fatal",
  },
  { what: "a bug (TypeError)", make: () => new TypeError("x is undefined"), kind: "fatal" },
  { what: 'a thrown string ("boom")', make: () => "boom", kind: "fatal" },
];

export const classifyAny: Check<M> = {
  id: "classify-any",
  run(module) {
    const failures = fc.oneof(apiFailureArb(module.SPEND_CAP), fc.constantFrom(...otherFailures));
    return forAll(
      failures,
      ({ what, make, kind }) => {
        const got = module.classify(make());
        expectThat(got === kind, "wrong-kind", { error: what, got: String(got), expected: kind });
      },
      { runs: 60 },
    );
  },
};

/** A retry-after header as a server may send it: seconds (0 and fractions too), a negative number,
 *  or something that is not a number; or no header at all. */
const retryAfterArb = fc.oneof(
  fc.nat(2_000).map((quarters) => String(quarters / 4)),
  fc.constantFrom("0", "-1", "-0.5", "soon", "Wed, 21 Oct 2026 07:28:00 GMT"),
  fc.constant(undefined),
);

/** Failures that carry no headers at all: the server said nothing, so the backoff decides. */
const headerless: [what: string, make: () => unknown][] = [
  ["a dropped connection (APIConnectionError)", () => new APIConnectionError({ message: "x" })],
  ["a request the person aborted (APIUserAbortError)", () => new APIUserAbortError()],
  ["a bug (TypeError)", () => new TypeError("x is undefined")],
  ['a thrown string ("boom")', () => "boom"],
];

export const retryAfterAny: Check<M> = {
  id: "retry-after-any",
  run(module) {
    for (const [what, make] of headerless) {
      let got: number | undefined;
      const threw = refusal(() => {
        got = module.retryAfterMs(make(), 8_000);
      });
      expectThat(threw === undefined && got === undefined, "retry-after-headerless", {
        error: what,
        got: threw === undefined ? String(got) : `an error: ${threw}`,
      });
    }
    return forAll(
      fc.record({ header: retryAfterArb, maxMs: fc.integer({ min: 1_000, max: 60_000 }) }),
      ({ header, maxMs }) => {
        const err = APIError.generate(
          529,
          { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
          "Overloaded",
          new Headers(header === undefined ? {} : { "retry-after": header }),
        );
        const seconds = header === undefined ? NaN : Number(header);
        const expected =
          Number.isFinite(seconds) && seconds >= 0
            ? Math.min(maxMs, Math.round(seconds * 1000))
            : undefined;
        const got = module.retryAfterMs(err, maxMs);
        expectThat(got === expected, "retry-after-wrong", {
          header: header === undefined ? "(none)" : JSON.stringify(header),
          maxMs,
          got: String(got),
          expected: String(expected),
        });
      },
      { runs: 60 },
    );
  },
};

export const backoffAny: Check<M> = {
  id: "backoff-any",
  run(module) {
    const cases = fc.record({
      attempt: fc.integer({ min: 1, max: 8 }),
      baseMs: fc.integer({ min: 1, max: 2_000 }),
      maxMs: fc.integer({ min: 100, max: 60_000 }),
      r1: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      r2: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    });
    return forAll(
      cases,
      ({ attempt, baseMs, maxMs, r1, r2 }) => {
        const got = module.backoffDelay(attempt, baseMs, maxMs, () => r1);
        const exponential = baseMs * 2 ** (attempt - 1);
        // base · 2^(attempt − 1), lengthened by random() · 50 %, capped; any rounding will do.
        const expected = Math.min(maxMs, exponential * (1 + 0.5 * r1));
        const values = {
          attempt,
          baseMs,
          maxMs,
          random: r1.toFixed(3),
          got,
          expected: Math.round(expected),
        };
        expectThat(
          Number.isInteger(got) && got <= maxMs && Math.abs(got - expected) <= 1,
          "backoff-outside",
          values,
        );
        // Every wait longer than the one before, whatever the jitter, until the cap.
        const next = module.backoffDelay(attempt + 1, baseMs, maxMs, () => r2);
        expectThat(next > got || next === maxMs, "backoff-not-growing", {
          ...values,
          next,
          random2: r2.toFixed(3),
        });
      },
      { runs: 60 },
    );
  },
};

// #region extend checks
const FALLBACK = "fallback-model";

export const fallbackAfterThird: Check<M> = {
  id: "fallback-after-third",
  async run(module, kit) {
    const { env, failed, answer } = await play(
      module,
      kit,
      [overloaded(), overloaded(), overloaded(), say("rescued")],
      { fallbackModel: FALLBACK },
    );
    const models = leadRequests(env).map((r) => r.body.model);
    const expected = [env.modelId, env.modelId, env.modelId, FALLBACK];
    expectThat(models.join() === expected.join(), "fallback-models", {
      got: models.join(", "),
      expected: expected.join(", "),
    });
    expectAnswered(failed, answer, "rescued");
  },
};

export const fallbackOnlyOverload: Check<M> = {
  id: "fallback-only-transient",
  async run(module, kit) {
    const { env, failed } = await play(
      module,
      kit,
      [fail(401, "authentication_error", "invalid x-api-key"), say("never reached")],
      { fallbackModel: FALLBACK },
    );
    const models = leadRequests(env).map((r) => r.body.model);
    expectThat(failed !== undefined && models.length === 1, "fallback-on-fatal", {
      got: models.join(", "),
    });
  },
};
// #endregion extend checks

export const exercises: Exercise<M>[] = [
  {
    id: "s14",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "classify",
        contract: [
          "Receives whatever a model call threw. Return its kind: transient (overloaded 529, any other",
          "5xx, a 429 rate limit, an APIConnectionError): wait and try again; too_long (413, or a 400",
          'whose message says "prompt is too long"): compact, then retry; fatal for everything else —',
          "including the 429 whose err.errorCode is SPEND_CAP (a monthly cap: waiting does not clear",
          "it), a request the person aborted (APIUserAbortError: never retried) and every other 4xx",
          "or non-API error: trying again would fail the same way.",
        ].join("\n"),
      },
      {
        name: "backoffDelay",
        contract: [
          "The wait in ms before try attempt + 1 (attempt counts from 1): baseMs doubled for each try",
          "after the first (base · 2^(attempt − 1)), plus up to 50 % jitter from random() (0 ≤ x < 1),",
          "rounded, never more than maxMs. Jitter only lengthens a wait: agents that failed together",
          "come back apart, and every wait is still longer than the one before.",
        ].join("\n"),
      },
      {
        name: "retryAfterMs",
        contract: [
          "The server may say how long to wait: err.headers (a Headers, when there is one) can hold",
          "retry-after, in seconds (0.25 is allowed). Return it in ms, rounded and capped at maxMs,",
          "or undefined when there is no header or it is not a number ≥ 0 (then the backoff decides).",
          "retry-after: 0 means now (0 ms); a negative one is not a wait.",
        ].join("\n"),
      },
    ],
    checks: [
      classifiesFailures,
      classifyAny,
      overloadBackoff,
      backoffCapped,
      backoffAny,
      retryAfterWins,
      retryAfterAny,
      tooLongCompacts,
    ],
  },
  {
    id: "s14.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      resilient: (reference) =>
        [
          change(
            "export function resilientCall(options: RecoveryOptions = {}): CallModel {",
            `/** s14.1: the model to try once more with when the last try of an overload fails. */
export interface FallbackOptions extends RecoveryOptions {
  fallbackModel?: string;
}

export function resilientCall(options: FallbackOptions = {}): CallModel {`,
          ),
          change(
            "  options: RecoveryOptions,\n): Promise<Message> {",
            "  options: FallbackOptions,\n): Promise<Message> {",
          ),
          change(
            "  let compacted = false;\n",
            "  let compacted = false;\n  let callEnv = env; // the fallback model, once the last try has failed\n",
          ),
          change("return await plainCall(env, call);", "return await plainCall(callEnv, call);"),
          change(
            '      if (kind === "transient") io.note(',
            `      if (kind === "transient" && options.fallbackModel && callEnv === env) {
        io.note(\`\${errorLine(err)} — try \${attempt}/\${maxTries} failed, one more with \${options.fallbackModel}\`);
        callEnv = { ...env, modelId: options.fallbackModel };
        continue;
      }
      if (kind === "transient") io.note(`,
          ),
        ].reduce((text, edit) => edit(text), reference),
    },
    checks: [fallbackAfterThird, fallbackOnlyOverload, overloadBackoff],
  },
];
