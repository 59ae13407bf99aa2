// s15's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap } from "../support/exercises.ts";

exerciseSuite("s15", {
  s15: {
    "lets a request be answered twice (transition checks nothing)": {
      fsm: swap(
        "  if (!TRANSITIONS[from].includes(to))\n    throw new Error(`request ${id} is already ${from}; it cannot become ${to}`);\n",
        "",
      ),
    },
    "lets the asker answer its own request": {
      requests: swap("if (request.to !== by)", "if (request.to !== by && request.sender !== by)"),
    },
    "crashes with a TypeError on an unknown request id": {
      requests: swap(
        '    const request = Object.hasOwn(this.requests, id) ? this.requests[id] : undefined;\n    if (!request) throw new Error(`unknown request_id "${id}"${this.known()}`);\n',
        "    const request = this.requests[id];\n",
      ),
    },
    "checks the addressee only for an approval": {
      requests: swap("if (request.to !== by)", "if (approve && request.to !== by)"),
    },
    "lets anyone answer, not only the addressee": {
      requests: swap("if (request.to !== by)", "if (request.to !== by && request.sender === by)"),
    },
    "sends the response before the state machine says yes": {
      requests: swap(
        `    const status = transition(id, request.status, approve ? "approved" : "rejected");

    const protocol = this.protocol(request.type);
    const text = answer.trim() || \`\${request.type} \${id}: \${status}\`;
    this.deliver(by, request.sender, text, protocol.response, { request_id: id, approve });`,
        `    const protocol = this.protocol(request.type);
    const text = answer.trim() || \`\${request.type} \${id}\`;
    this.deliver(by, request.sender, text, protocol.response, { request_id: id, approve });
    const status = transition(id, request.status, approve ? "approved" : "rejected");`,
      ),
    },
    "forgets to save an answer": {
      requests: swap(
        "    Object.assign(request, { status, resolved_at: new Date().toISOString(), answer: text });\n    this.save();",
        "    Object.assign(request, { status, resolved_at: new Date().toISOString(), answer: text });",
      ),
    },
    "the response does not carry the request_id back": {
      requests: swap(
        "protocol.response, { request_id: id, approve }",
        "protocol.response, { approve }",
      ),
    },
    "a restart expires nothing": {
      requests: swap('.filter(([, r]) => r.status === "pending")', ".filter(() => false)"),
    },
    "expires on load but never saves it": {
      requests: swap("    if (leftovers.length) this.save();\n", ""),
    },
    "saves the table on every load, expired or not": {
      requests: swap("    if (leftovers.length) this.save();\n", "    this.save();\n"),
    },
    "expires a request with no answer saying why": {
      requests: swap(
        'const answer = "expired: the harness restarted first";',
        'const answer = "";',
      ),
    },
    "notes an expiry without naming the request": {
      requests: swap(
        "this.io?.note(`${id} (${who}) was pending when the harness stopped: expired`);",
        "this.io?.note(`a ${request.type} request was pending when the harness stopped: expired`);",
      ),
    },
    "takes any truthy approve from the model as a yes": {
      requests: swap(
        'if (typeof approve !== "boolean") throw new Error("approve must be true or false");',
        "",
      ),
    },
    "sends the answer as it came, blank or not": {
      requests: swap(
        "const text = answer.trim() || `${request.type} ${id}: ${status}`;",
        "const text = answer;",
      ),
    },
    "answers without telling the trace": {
      requests: swap(
        `    this.io?.event(
      "protocol",
      { request_id: id, type: request.type, from: by, to: request.sender, status },
      by,
    );
`,
        "",
      ),
    },
    "tells the trace who asked instead of who answered": {
      requests: swap(
        "{ request_id: id, type: request.type, from: by, to: request.sender, status }",
        "{ request_id: id, type: request.type, from: request.sender, to: by, status }",
      ),
    },
  },
  "s15.1": {
    "the help tools are offered but the request is never answered": {
      agent: swap(
        'approve !== false, String(answer ?? ""), "help")',
        'false, String(answer ?? ""), "help")',
      ),
    },
  },
});
