// s14's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { both, exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s14", {
  s14: {
    "compacts after every 400, not only a too-long prompt": {
      classify: swap(
        "(err.status === 400 && /prompt is too long/i.test(err.message))",
        "err.status === 400",
      ),
    },
    "retries the 429 of a monthly spend cap": {
      classify: swap(
        '    if (err.status === 429 && err.errorCode === SPEND_CAP) return "fatal";\n',
        "",
      ),
    },
    "treats a dropped connection as fatal": {
      classify: swap(
        '  if (err instanceof APIConnectionError) return "transient"; // a dropped connection, a timeout\n',
        "",
      ),
    },
    "retries every error, a bad key too": {
      classify: swap(
        '  return "fatal"; // a bad request',
        '  return "transient"; // a bad request',
      ),
    },
    "doubles from the first try (2^attempt)": {
      backoff: swap("baseMs * 2 ** (attempt - 1)", "baseMs * 2 ** attempt"),
    },
    "grows linearly, not exponentially": {
      backoff: swap("baseMs * 2 ** (attempt - 1)", "baseMs * attempt"),
    },
    "jitter that can shorten a wait": {
      backoff: swap("(1 + 0.5 * random())", "(0.5 + random())"),
    },
    "no jitter (random() unused)": {
      backoff: swap(
        "return Math.min(maxMs, Math.round(exponential * (1 + 0.5 * random())));",
        "return Math.min(maxMs, Math.round(exponential));",
      ),
    },
    "forgets the cap": {
      backoff: swap(
        "return Math.min(maxMs, Math.round(exponential * (1 + 0.5 * random())));",
        "return Math.round(exponential * (1 + 0.5 * random()));",
      ),
    },
    "ignores retry-after: 0": {
      backoff: swap(
        "Number.isFinite(seconds) && seconds >= 0",
        "Number.isFinite(seconds) && seconds > 0",
      ),
    },
    "accepts a negative retry-after": {
      backoff: swap("Number.isFinite(seconds) && seconds >= 0", "Number.isFinite(seconds)"),
    },
    "retries an aborted request (no status taken for a dropped connection)": {
      classify: both(
        swap(
          '  if (err instanceof APIConnectionError) return "transient"; // a dropped connection, a timeout\n',
          "",
        ),
        swap(
          "(err.status !== undefined && err.status >= 500)",
          "err.status === undefined || err.status >= 500",
        ),
      ),
    },
    "reads the headers of a failure that has none": {
      backoff: swap('.headers?.get?.("retry-after")', '.headers!.get("retry-after")'),
    },
    "reads retry-after as milliseconds": {
      backoff: swap("Math.round(seconds * 1000)", "Math.round(seconds)"),
    },
    "does not cap retry-after": {
      backoff: swap(
        "? Math.min(maxMs, Math.round(seconds * 1000))",
        "? Math.round(seconds * 1000)",
      ),
    },
  },
  "s14.1": {
    "goes to the fallback model at the first overload": {
      resilient: swap(
        'if (kind === "transient" && attempt < maxTries) {',
        'if (kind === "transient" && attempt < maxTries && callEnv !== env) {',
      ),
    },
    "tries the fallback model after a fatal error too": {
      resilient: swap(
        'if (kind === "transient" && options.fallbackModel && callEnv === env) {',
        "if (options.fallbackModel && callEnv === env) {",
      ),
    },
  },
});
