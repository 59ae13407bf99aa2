// s15's exercises: rebuild the request state machine (an answer moves a pending request exactly
// once; a second, unknown or misaddressed answer is refused with a reason; a restart expires what
// was left pending); extend it with a help protocol as tools. The checks drive PendingRequests
// directly, with a delivery that only records, in a fresh workspace; the extend's checks play a
// scripted team. tests/chapters/s15-team-protocols.test.ts runs the same checks on the chapter.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { say, use } from "../../_shared/scripted.ts";
import type { TurnContext } from "../../_shared/types.ts";
import type * as S15 from "../agent.ts";
import {
  change,
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type Exercise,
  refusal,
} from "../../_exercises/kit.ts";
import { fc, forAll } from "../../_exercises/property.ts";

type M = typeof S15;

interface Sent {
  from: string;
  to: string;
  content: string;
  type: string;
  extra: Record<string, unknown>;
}

/** What the table told its io: notes (text) and protocol events (their data). */
interface Told {
  notes: string[];
  events: Record<string, unknown>[];
}

/** A table in a fresh workspace whose deliveries, notes and events are only recorded. */
function table(module: M, dir: string, sent: Sent[] = []) {
  const file = path.join(dir, "team", "requests.json");
  const told: Told = { notes: [], events: [] };
  const io = {
    note: (text: string) => void told.notes.push(String(text)),
    event: (kind: string, data: unknown) =>
      void (kind === "protocol" && told.events.push(data as Record<string, unknown>)),
  } as unknown as ConstructorParameters<M["PendingRequests"]>[2];
  const deliver = (
    from: string,
    to: string,
    content: string,
    type: string,
    extra: Record<string, unknown>,
  ) => {
    sent.push({ from, to, content, type, extra });
    return { from, to, content, type, ...extra } as unknown as ReturnType<S15.Deliver>;
  };
  return { file, sent, told, open: () => new module.PendingRequests(file, deliver, io) };
}

/** The status the table's file holds for id (what a restarted harness would read). */
function storedStatus(file: string, id: string): string {
  try {
    const rows = JSON.parse(readFileSync(file, "utf8")) as Record<string, { status?: string }>;
    return rows[id]?.status ?? "missing";
  } catch {
    return "missing";
  }
}

const statusOf = (requests: S15.PendingRequests, id: string) =>
  requests.get(id)?.status ?? "missing";

export const answeredOnce: Check<M> = {
  id: "answered-once",
  run(module, kit) {
    const t = table(module, kit.workspace());
    const requests = t.open();
    const id = requests.open("shutdown", "lead", "alice", "please stop");
    requests.resolve(id, "alice", true, "bye", "shutdown");
    expectThat(statusOf(requests, id) === "approved", "wrong-status", {
      id,
      expected: "approved",
      got: statusOf(requests, id),
    });
    const response = t.sent.at(-1)!;
    expectThat(
      response.type === "shutdown_response" &&
        response.to === "lead" &&
        response.extra.request_id === id &&
        response.extra.approve === true,
      "no-response",
      {
        id,
        got: response.type === "shutdown_response" ? JSON.stringify(response.extra) : response.type,
      },
    );
    const before = t.sent.length;
    const twice = refusal(() =>
      requests.resolve(id, "alice", false, "changed my mind", "shutdown"),
    );
    expectThat(twice, "answered-twice", { id, got: statusOf(requests, id) });
    expectThat(
      statusOf(requests, id) === "approved" && t.sent.length === before,
      "refusal-changed",
      {
        id,
        got: statusOf(requests, id),
        sent: t.sent.length - before,
      },
    );
    // The table on disk says the same: a restarted harness reads approved.
    const stored = storedStatus(t.file, id);
    expectThat(stored === "approved", "not-saved", { id, expected: "approved", got: stored });
  },
};

export const rejectedIsFinal: Check<M> = {
  id: "rejected-is-final",
  run(module, kit) {
    const t = table(module, kit.workspace());
    const requests = t.open();
    const id = requests.open("plan_approval", "bob", "lead", "rewrite everything");
    requests.resolve(id, "lead", false, "too risky", "plan_approval");
    expectThat(statusOf(requests, id) === "rejected", "wrong-status", {
      id,
      expected: "rejected",
      got: statusOf(requests, id),
    });
    const response = t.sent.at(-1)!;
    expectThat(
      response.type === "plan_approval_response" &&
        response.to === "bob" &&
        response.extra.request_id === id &&
        response.extra.approve === false &&
        response.content.includes("too risky"),
      "no-response",
      { id, got: `${response.type} ${JSON.stringify(response.extra)}` },
    );
    const before = t.sent.length;
    const again = refusal(() =>
      requests.resolve(id, "lead", true, "fine after all", "plan_approval"),
    );
    expectThat(again, "answered-twice", { id, got: statusOf(requests, id) });
    expectThat(
      statusOf(requests, id) === "rejected" && t.sent.length === before,
      "refusal-changed",
      {
        id,
        got: statusOf(requests, id),
        sent: t.sent.length - before,
      },
    );
  },
};

export const refusedWithReason: Check<M> = {
  id: "refused-with-reason",
  run(module, kit) {
    const t = table(module, kit.workspace());
    const requests = t.open();
    const id = requests.open("shutdown", "lead", "alice", "please stop");
    const before = t.sent.length;
    const attempts: [string, () => unknown][] = [
      // Each attempt is named by a message of the words file ("@…"), in the learner's language.
      ["@attempt-unknown|req_99", () => requests.resolve("req_99", "alice", true, "")],
      [`@attempt-wrong-resolver|${id}`, () => requests.resolve(id, "bob", true, "", "shutdown")],
      [
        `@attempt-wrong-protocol|${id}`,
        () => requests.resolve(id, "alice", true, "", "plan_approval"),
      ],
    ];
    for (const [what, act] of attempts) {
      const reason = refusal(act);
      expectThat(reason !== undefined && reason.trim().length > 0, "accepted", {
        what,
        got: statusOf(requests, id),
      });
      expectThat(
        statusOf(requests, id) === "pending" && t.sent.length === before,
        "refusal-changed",
        {
          id,
          got: statusOf(requests, id),
          sent: t.sent.length - before,
        },
      );
    }
  },
};

export const restartExpires: Check<M> = {
  id: "restart-expires",
  run(module, kit) {
    const t = table(module, kit.workspace());
    const first = t.open();
    const answered = first.open("shutdown", "lead", "alice", "please stop");
    first.resolve(answered, "alice", true, "bye", "shutdown");
    const left = first.open("plan_approval", "bob", "lead", "a plan"); // then the harness stops

    const restarted = t.open();
    expectThat(statusOf(restarted, left) === "expired", "not-expired", {
      id: left,
      got: statusOf(restarted, left),
    });
    expectThat(statusOf(restarted, answered) === "approved", "wrong-status", {
      id: answered,
      expected: "approved",
      got: statusOf(restarted, answered),
    });
    const stored = storedStatus(t.file, left);
    expectThat(stored === "expired", "not-saved", { id: left, expected: "expired", got: stored });
    const late = refusal(() => restarted.resolve(left, "lead", true, "late", "plan_approval"));
    expectThat(late, "answered-twice", { id: left, got: statusOf(restarted, left) });
    expectThat(statusOf(restarted, left) === "expired", "refusal-changed", {
      id: left,
      got: statusOf(restarted, left),
      sent: 0,
    });
  },
};

// ---- The state machine's rule, tried on generated sequences (a property check) ----

/** One step of a generated sequence: a request opened, an answer given (to a request opened
 *  before, picked by number, or to an id that does not exist; by its addressee, by its asker, or
 *  by someone else; with the right protocol's tool, the other one's, or none), or a restart. */
type Step =
  | { kind: "open"; protocol: "shutdown" | "plan_approval"; teammate: "alice" | "bob" }
  | {
      kind: "answer";
      pick: number | string;
      by: "addressee" | "asker" | "other";
      /** Mostly true or false; now and then what a model may send instead ("yes", 1, null…). */
      approve: unknown;
      typed: "right" | "wrong" | "none";
      /** The answer's words: some, none, or only spaces. */
      words: string;
    }
  | { kind: "restart" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("open" as const),
      protocol: fc.constantFrom("shutdown" as const, "plan_approval" as const),
      teammate: fc.constantFrom("alice" as const, "bob" as const),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("answer" as const),
      pick: fc.oneof(
        { weight: 4, arbitrary: fc.nat(5) },
        { weight: 1, arbitrary: fc.constantFrom("req_99", "req_0", "constructor", "") },
      ),
      by: fc.constantFrom("addressee" as const, "asker" as const, "other" as const),
      approve: fc.oneof(
        { weight: 8, arbitrary: fc.boolean() },
        { weight: 1, arbitrary: fc.constantFrom<unknown>("yes", "false", 1, 0, null, undefined) },
      ),
      typed: fc.constantFrom("right" as const, "wrong" as const, "none" as const),
      words: fc.constantFrom("an answer", "", "  "),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "restart" as const }) },
);

interface Row {
  type: string;
  sender: string;
  to: string;
  status: string;
}

/** What a refusal must not be: the exceptions a crash throws, not a decision. */
const CRASHES = [TypeError, ReferenceError, RangeError, SyntaxError];

export const protocolSequences: Check<M> = {
  id: "protocol-sequences",
  run(module, kit) {
    return forAll(
      fc.array(stepArb, { minLength: 1, maxLength: 10 }),
      (steps) => {
        const t = table(module, kit.workspace());
        let requests = t.open();
        const model = new Map<string, Row>(); // what the table must say, id by id
        const story: string[] = [];
        const expectRows = () => {
          for (const [id, row] of model) {
            const values = { story: story.join(" · "), id, expected: row.status };
            expectThat(statusOf(requests, id) === row.status, "fsm-status", {
              ...values,
              got: statusOf(requests, id),
            });
            expectThat(storedStatus(t.file, id) === row.status, "fsm-stored", {
              ...values,
              got: storedStatus(t.file, id),
            });
          }
        };
        for (const step of steps) {
          if (step.kind === "restart") {
            story.push("restart");
            const leftovers = [...model].filter(([, row]) => row.status === "pending");
            const file = () => (existsSync(t.file) ? statSync(t.file).ino : "none");
            const [fileBefore, notesBefore] = [file(), t.told.notes.length];
            requests = t.open();
            for (const [, row] of leftovers) row.status = "expired";
            expectRows();
            const values = { story: story.join(" · ") };
            // Nothing expired, nothing to save: the table file is left as it was (or absent).
            if (!leftovers.length)
              expectThat(file() === fileBefore, "restart-rewrote", {
                ...values,
                got: fileBefore === "none" ? "@file-created" : "@file-rewritten",
              });
            const notes = t.told.notes.slice(notesBefore);
            for (const [id] of leftovers) {
              const answer = requests.get(id)?.answer;
              expectThat(typeof answer === "string" && answer.trim() !== "", "expired-no-answer", {
                ...values,
                id,
                got: JSON.stringify(answer ?? null),
              });
              expectThat(
                notes.some((n) => new RegExp(`\\b${id}\\b`).test(n)),
                "expired-unnoted",
                { ...values, id, got: notes.map((n) => JSON.stringify(n)).join("; ") || "0" },
              );
            }
            continue;
          }
          if (step.kind === "open") {
            const [sender, to] =
              step.protocol === "shutdown" ? ["lead", step.teammate] : [step.teammate, "lead"];
            const duplicate = [...model.values()].some(
              (r) =>
                r.type === step.protocol &&
                r.sender === sender &&
                r.to === to &&
                r.status === "pending",
            );
            if (duplicate) continue; // open refuses it (the chapter's code, not yours)
            const id = requests.open(step.protocol, sender, to, "a request");
            model.set(id, { type: step.protocol, sender, to, status: "pending" });
            story.push(`${step.protocol} ${sender}→${to} = ${id}`);
            continue;
          }
          const ids = [...model.keys()];
          const id =
            typeof step.pick === "number"
              ? (ids[step.pick % Math.max(1, ids.length)] ?? "req_99")
              : step.pick;
          const row = model.get(id);
          const by =
            !row || step.by === "addressee"
              ? (row?.to ?? "alice")
              : step.by === "asker"
                ? row.sender
                : "carol";
          const otherProtocol = row?.type === "shutdown" ? "plan_approval" : "shutdown";
          const expectedType =
            step.typed === "none"
              ? undefined
              : step.typed === "right"
                ? (row?.type ?? "shutdown")
                : otherProtocol;
          const answer = `${JSON.stringify(id)} ← ${by}${step.by === "asker" && row ? " (the asker)" : ""}: ${
            typeof step.approve !== "boolean"
              ? `approve ${String(JSON.stringify(step.approve))}`
              : step.approve
                ? "approve"
                : "reject"
          }${expectedType ? ` with the ${expectedType} tool` : ""} (${JSON.stringify(step.words)})`;
          story.push(answer);
          const why = !row
            ? "@why-unknown"
            : expectedType !== undefined && expectedType !== row.type
              ? "@why-wrong-protocol"
              : by !== row.to
                ? "@why-not-addressee"
                : typeof step.approve !== "boolean"
                  ? "@why-not-boolean"
                  : row.status !== "pending"
                    ? `@why-final|${row.status}`
                    : undefined;
          const [before, eventsBefore] = [t.sent.length, t.told.events.length];
          let thrown: unknown;
          try {
            requests.resolve(id, by, step.approve as boolean, step.words, expectedType);
          } catch (err) {
            if (err instanceof Error && err.message.includes(NOT_STARTED)) throw err;
            thrown = err;
          }
          const values = { story: story.join(" · "), answer };
          const error = thrown instanceof Error ? thrown.message.split("\n")[0] : String(thrown);
          if (thrown !== undefined && CRASHES.some((crash) => thrown instanceof crash))
            throw new CheckFailure("fsm-crashed", {
              ...values,
              name: (thrown as Error).name,
              error,
            });
          if (why) {
            expectThat(thrown !== undefined, "fsm-accepted", { ...values, why });
            expectThat(thrown instanceof Error && error.trim() !== "", "fsm-no-reason", values);
            expectThat(t.sent.length === before, "fsm-sent", {
              ...values,
              got: `${t.sent.length - before}`,
              expected: "0",
            });
            expectThat(t.told.events.length === eventsBefore, "fsm-event", {
              ...values,
              got: JSON.stringify(t.told.events.slice(eventsBefore)),
              expected: "@no-event",
            });
          } else {
            expectThat(thrown === undefined, "fsm-refused", { ...values, error });
            const sent = t.sent.slice(before);
            const response = `${row!.type}_response`;
            expectThat(
              sent.length === 1 &&
                sent[0].type === response &&
                sent[0].from === by &&
                sent[0].to === row!.sender &&
                sent[0].extra.request_id === id &&
                sent[0].extra.approve === step.approve,
              "fsm-sent",
              {
                ...values,
                got:
                  sent
                    .map((m) => `${m.type} ${m.from}→${m.to} ${JSON.stringify(m.extra)}`)
                    .join("; ") || "0",
                expected: `${response} ${by}→${row!.sender} ${JSON.stringify({ request_id: id, approve: step.approve })}`,
              },
            );
            // The response always has words (the API refuses a blank message): the answer's, or
            // some of your own when the answer is blank.
            const content = sent[0].content;
            expectThat(
              content.trim() !== "" && (!step.words.trim() || content.includes(step.words.trim())),
              "fsm-response-words",
              { ...values, got: JSON.stringify(content) },
            );
            row!.status = step.approve ? "approved" : "rejected";
            // The trace hears of the move: one protocol event saying who answered whom, and how.
            const event = {
              request_id: id,
              type: row!.type,
              from: by,
              to: row!.sender,
              status: row!.status,
            };
            const events = t.told.events.slice(eventsBefore);
            expectThat(
              events.length === 1 && Object.entries(event).every(([k, v]) => events[0][k] === v),
              "fsm-event",
              { ...values, got: JSON.stringify(events), expected: JSON.stringify(event) },
            );
          }
          expectRows();
        }
      },
      { runs: 40 },
    );
  },
};

// ---- s15.1: the help protocol as tools ----

const idIn = (type: string, text: string) =>
  new RegExp(`type="${type}" request_id="(req_\\d+)"`).exec(text)?.[1];
const allText = ({ request }: TurnContext) => JSON.stringify(request.messages).replace(/\\"/g, '"');
const FAST = { pollMs: 2, idleWaitMs: 10, idleTimeoutMs: 5_000, settleTimeoutMs: 5_000 };

export const helpAsTools: Check<M> = {
  id: "help-as-tools",
  async run(module, kit) {
    const env = kit.env({
      lead: [
        use("spawn", { name: "bob", role: "builder", prompt: "build it" }),
        use("inbox", { wait: true }),
        (ctx: TurnContext) =>
          use("answer_help", {
            request_id: idIn("help_request", allText(ctx)) ?? "none",
            approve: true,
            answer: "use node 20",
          }),
        say("done"),
      ],
      bob: [
        use("ask_for_help", { question: "the build fails on node 18" }),
        say("waiting"),
        say("thanks"),
      ],
    });
    const agent = module.createAgent(env, FAST);
    try {
      const tools = (who: string) =>
        env.requests
          .find((r) => r.agent === who)
          ?.body.tools?.map((t) => (t as { name: string }).name) ?? [];
      await agent.send("get bob going");
      await agent.team.waitUntilSettled();
      expectThat(tools("lead").includes("answer_help"), "missing-tool", {
        who: "@who-lead",
        tool: "answer_help",
      });
      expectThat(tools("bob").includes("ask_for_help"), "missing-tool", {
        who: "@who-teammate",
        tool: "ask_for_help",
      });
      const rows = Object.values(agent.requests.all()).filter((r) => r.type === "help");
      expectThat(rows.length === 1, "no-help-request", { got: rows.length });
      expectThat(rows[0].status === "approved" && rows[0].sender === "bob", "help-unanswered", {
        got: `${rows[0].status}, from ${rows[0].sender}`,
      });
    } finally {
      await agent.close?.();
    }
  },
};

const HELP_TOOLS = `
const HELP_FOR_TEAMMATES: Tool = {
  name: "ask_for_help",
  description: "Ask the lead for help; the answer arrives as a help_response with the same request_id.",
  input_schema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
};
const HELP_FOR_LEAD: Tool = {
  name: "answer_help",
  description: "Answer a help_request by its request_id.",
  input_schema: {
    type: "object",
    properties: { request_id: { type: "string" }, approve: { type: "boolean" }, answer: { type: "string" } },
    required: ["request_id", "answer"],
  },
};
`;

export const exercises: Exercise<M>[] = [
  {
    id: "s15",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "expireLeftovers",
        contract: [
          "Runs once, when the table is loaded (so every check meets it first). A request still pending was asked by an earlier run",
          "whose teammates are gone: move it to expired (through transition), with resolved_at and",
          "an answer saying why, note it on io (the note names the request's id), and save the table",
          "if anything changed (a load that expires nothing writes nothing).",
          "Answered requests stay as they are.",
        ].join("\n"),
      },
      {
        name: "transition",
        contract: [
          "Receives a request's id, its current status and the status asked for.",
          "Return the new status when TRANSITIONS[from] allows the move; otherwise throw an Error",
          "saying why (the request is already `from`, so it cannot become `to`).",
          "TRANSITIONS is the whole state machine: nothing else decides what may follow what.",
        ].join("\n"),
      },
      {
        name: "resolve",
        contract: [
          "An answer to request `id` by `by` (approve: true or false; anything else is refused — it",
          "comes from a model's tool input), with the protocol it must",
          "belong to when expectedType is given. Refuse with an Error that says why (throw new",
          "Error(…): a TypeError from reading a missing row is a crash, not a refusal): an unknown id,",
          "the wrong protocol, an answer from anyone but the addressee (`to`), a status that cannot",
          "move (transition decides). A refused answer changes nothing and sends nothing. Otherwise",
          "deliver the protocol's response to the sender with { request_id: id, approve } (its text:",
          "the answer, or words of your own when the answer is blank: the API refuses a blank",
          "message), store status, resolved_at and the answer, save the table, record the move on",
          'io (io?.event("protocol", { request_id, type, from: by, to: the sender, status })), and',
          "return the row.",
        ].join("\n"),
      },
    ],
    checks: [answeredOnce, rejectedIsFinal, refusedWithReason, restartExpires, protocolSequences],
  },
  {
    id: "s15.1",
    kind: "extend",
    file: "agent.ts",
    solution: {
      tools: change(
        "export const LEAD_TOOLS: Tool[] = [",
        `${HELP_TOOLS.trimStart()}
export const LEAD_TOOLS: Tool[] = [`,
      ),
      agent: (reference) =>
        change(
          "  const agent = createTeamAgent(env, {",
          `  requests.register("help", { request: "help_request", response: "help_response", resolver: "lead" });
  const agent = createTeamAgent(env, {`,
        )(
          change(
            "      tools: LEAD_PROTOCOL_TOOLS,\n      handlers: (team) => leadProtocolHandlers(team, requests),",
            `      tools: [...LEAD_PROTOCOL_TOOLS, HELP_FOR_LEAD],
      handlers: (team) => ({
        ...leadProtocolHandlers(team, requests),
        answer_help: ({ request_id, approve, answer }) => {
          const request = requests.resolve(String(request_id ?? ""), LEAD, approve !== false, String(answer ?? ""), "help");
          return \`Help \${request_id} for \${request.sender}: \${request.status}.\`;
        },
      }),`,
          )(
            change(
              "      tools: TEAMMATE_PROTOCOL_TOOLS,\n      handlers: (team, member) => teammateProtocolHandlers(team, requests, member),",
              `      tools: [...TEAMMATE_PROTOCOL_TOOLS, HELP_FOR_TEAMMATES],
      handlers: (team, member) => ({
        ...teammateProtocolHandlers(team, requests, member),
        ask_for_help: ({ question }) => {
          const id = requests.open("help", member.name, LEAD, String(question ?? "").trim() || "help");
          return \`Asked the lead for help as \${id} (pending). End your turn: the answer arrives as a help_response.\`;
        },
      }),`,
            )(reference),
          ),
        ),
    },
    checks: [helpAsTools],
  },
];
