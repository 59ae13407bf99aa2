// s11's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

/** The region with `from` replaced; throws if `from` is not in it (the chapter changed). */

exerciseSuite("s11", {
  s11: {
    "drain hands out the queue but leaves it full": {
      queue: swap("return this.queue.splice(0);", "return [...this.queue];"),
    },
    "injects the results in id order, not in the order they finished": {
      inject: swap(
        "const finished = jobs.drain();",
        "const finished = jobs.drain().sort((a, b) => a.id.localeCompare(b.id));",
      ),
    },
    "injects only the first result of the queue": {
      inject: swap("...finished.map(", "...finished.slice(0, 1).map("),
    },
    "injects each result as a message of its own": {
      inject: swap(
        '  messages.push({ role: "user", content: [{ type: "text", text: text.join("\\n") }] });',
        '  for (const job of finished)\n    messages.push({ role: "user", content: [{ type: "text", text: ["<background-results>", `${headline(job)}\\n${job.output}`, "</background-results>"].join("\\n") }] });',
      ),
    },
    "forgets the closing tag of the block": {
      inject: swap('    "</background-results>",\n', ""),
    },
    "names the first job in every background_result event": {
      inject: swap(
        'env.io.event("background_result", { id: job.id, status: job.status })',
        'env.io.event("background_result", { id: finished[0].id, status: job.status })',
      ),
    },
    "ends the turn with a result still queued when nothing runs": {
      inject: swap(
        "if (jobs.pending === 0 && jobs.running === 0) return true;",
        "if (jobs.running === 0) return true;",
      ),
    },
    "keeps the turn open after the session closed while it waited": {
      inject: swap(
        "    if (jobs.pending === 0) return true; // the session closed while we waited\n",
        "",
      ),
    },
    "ends the turn when nothing is queued, though a command still runs": {
      inject: swap(
        "if (jobs.pending === 0 && jobs.running === 0) return true;",
        "if (jobs.pending === 0) return true;",
      ),
    },
    "waits for the running command, then ends the turn before injecting its result": {
      inject: swap(
        "await jobs.nextResult();\n    if (jobs.pending === 0) return true;",
        "await jobs.nextResult();\n    return true;",
      ),
    },
  },
  "s11.1": {
    "lets the killed command's exit overwrite its status": {
      start: swap('        if (job.status === "killed") return;\n', ""),
    },
  },
});
