/**
 * s15 · Team protocols
 *
 * s13's teammates talk in free text, and two conversations need more than that:
 *   - shutdown: stopping a teammate from outside could leave a file half written and the roster
 *     stale. The lead asks; the teammate agrees (its loop ends cleanly after the turn) or declines
 *     (it keeps working);
 *   - plan approval: a risky change should be reviewed before it starts. The teammate submits a
 *     plan; the lead approves it or rejects it with feedback.
 * Both have the same shape: a request with a fresh `request_id`, one response that carries the
 * same id, and a status that moves exactly once: pending → approved | rejected (or expired, when
 * the harness restarted before anyone answered). So there is one state machine, one table of
 * requests (`pending_requests`, persisted in `team/requests.json` in the harness's state folder,
 * out of the model's reach) and a registry of protocol types. A new protocol is one more entry in
 * the registry, not a new state machine.
 *
 * An answer is trusted because of where it comes from, not how it looks: only a protocol tool can
 * send one, the mailboxes are out of the model's reach, and s13 escapes every envelope, so no text
 * inside a message can pass for a message from the lead.
 *
 * The team itself (message bus, teammates, task board, lanes, the loop) is s13's runtime, imported
 * unchanged: this chapter plugs into its extension points (more tools for the lead and for the
 * teammates, with their handlers and rules).
 */
import path from "node:path";
import { BrokenStateError, readJson, writeJsonAtomic } from "../_shared/fsutil.ts";
import type { ToolHandler } from "../s02-tool-use/agent.ts";
import {
  createAgent as createTeamAgent,
  LEAD,
  LEAD_TOOLS as TEAM_LEAD_TOOLS,
  TEAMMATE_TOOLS as TEAM_TEAMMATE_TOOLS,
  type Team,
  type TeamAgent,
} from "../s13-agent-teams/agent.ts";
import type { Teammate } from "../s13-agent-teams/bookkeeping.ts";
import { combine, type TeamOptions } from "../s13-agent-teams/extension-points.ts";
import type { TeamMessage } from "../s13-agent-teams/mailbox.ts";
import type { AgentEnv, IO, Tool } from "../_shared/types.ts";

// #region protocols
/** A protocol is a pair of message types and a rule for who answers. Nothing else: the states,
 *  the ids and the bookkeeping are the same for every protocol. */
export interface Protocol {
  /** The message type of the request, e.g. "shutdown_request". */
  request: string;
  /** The message type of the answer, e.g. "shutdown_response". */
  response: string;
  /** Who answers: the lead, or the teammate the request was sent to. */
  resolver: "lead" | "teammate";
}

export const PROTOCOLS: Readonly<Record<string, Protocol>> = Object.freeze({
  shutdown: { request: "shutdown_request", response: "shutdown_response", resolver: "teammate" },
  plan_approval: {
    request: "plan_approval_request",
    response: "plan_approval_response",
    resolver: "lead",
  },
});
// #endregion protocols

// #region fsm
export type RequestStatus = "pending" | "approved" | "rejected" | "expired";

/** The whole state machine. A request starts pending; an answer approves or rejects it; a restart
 *  expires it; a final state has no way out. Every protocol uses this table and no other (and
 *  the site draws the chapter's state diagram from it). */
export const TRANSITIONS: Record<RequestStatus, readonly RequestStatus[]> = {
  pending: ["approved", "rejected", "expired"],
  approved: [],
  rejected: [],
  expired: [],
};

function transition(id: string, from: RequestStatus, to: RequestStatus): RequestStatus {
  if (!TRANSITIONS[from].includes(to))
    throw new Error(`request ${id} is already ${from}; it cannot become ${to}`);
  return to;
}
// #endregion fsm

// #region requests
/** One row of pending_requests. The table keeps every request, answered or not, so a late or a
 *  repeated answer can be refused with a reason. */
export interface PendingRequest {
  /** The protocol: "shutdown", "plan_approval", or one registered later. */
  type: string;
  /** Who asked, and who must answer. */
  sender: string;
  to: string;
  status: RequestStatus;
  created_at: string;
  resolved_at?: string;
  /** What was asked (a reason, a plan) and what the answer said. */
  content: string;
  answer?: string;
}

/** How the table sends a protocol message: s13's `Team.send`, or anything with its shape. */
export type Deliver = (
  from: string,
  to: string,
  content: string,
  type: string,
  extra: Record<string, unknown>,
) => TeamMessage;

/** pending_requests: request_id → {type, sender, status, created_at, ...}, written atomically to
 *  one JSON file on every change, so a restarted harness still knows what was asked and answered. */
export class PendingRequests {
  private readonly protocols = new Map<string, Protocol>(Object.entries(PROTOCOLS));
  private readonly requests: Record<string, PendingRequest>;

  constructor(
    readonly file: string,
    private readonly deliver: Deliver,
    private readonly io?: Pick<IO, "event" | "note">,
  ) {
    this.requests = loadTable(file);
    this.expireLeftovers();
  }

  /** A request still pending when the table is loaded was asked by an earlier run: the teammates
   *  that could answer it lived in that process and are gone. It expires, so it blocks nothing. */
  private expireLeftovers(): void {
    const leftovers = Object.entries(this.requests).filter(([, r]) => r.status === "pending");
    for (const [id, request] of leftovers) {
      const status = transition(id, request.status, "expired");
      const answer = "expired: the harness restarted first";
      Object.assign(request, { status, resolved_at: new Date().toISOString(), answer });
      const who = `${request.type}, ${request.sender} → ${request.to}`;
      this.io?.note(`${id} (${who}) was pending when the harness stopped: expired`);
    }
    if (leftovers.length) this.save();
  }

  /** Adding a protocol: one more entry. Its requests go through the same open/resolve below. */
  register(name: string, protocol: Protocol): void {
    if (this.protocols.has(name))
      throw new Error(`a protocol named "${name}" is already registered`);
    const taken = [...this.protocols.values()].flatMap((p) => [p.request, p.response]);
    for (const type of [protocol.request, protocol.response]) {
      if (type === "message" || taken.includes(type))
        throw new Error(`message type "${type}" is already in use`);
    }
    this.protocols.set(name, { ...protocol });
  }

  /** Every message type that belongs to a protocol: `send` may not produce any of these. */
  messageTypes(): Set<string> {
    return new Set([...this.protocols.values()].flatMap((p) => [p.request, p.response]));
  }

  /** A request: a fresh id, a pending row, then one message to whoever must answer. */
  open(type: string, sender: string, to: string, content: string): string {
    const protocol = this.protocol(type);
    if ((protocol.resolver === "lead") !== (to === LEAD)) {
      throw new Error(
        `a ${type} request is answered by ${protocol.resolver === "lead" ? "the lead" : "a teammate"}, not by ${to}`,
      );
    }
    const duplicate = Object.entries(this.requests).find(
      ([, r]) => r.type === type && r.sender === sender && r.to === to && r.status === "pending",
    );
    if (duplicate)
      throw new Error(
        `${duplicate[0]} (${type}, ${sender} → ${to}) is still pending: wait for its answer`,
      );

    const id = this.nextId();
    this.requests[id] = {
      type,
      sender,
      to,
      status: "pending",
      created_at: new Date().toISOString(),
      content,
    };
    try {
      this.deliver(sender, to, content, protocol.request, { request_id: id });
    } catch (err) {
      delete this.requests[id]; // no message, no request
      throw err;
    }
    this.save();
    this.io?.event(
      "protocol",
      { request_id: id, type, from: sender, to, status: "pending" },
      sender,
    );
    return id;
  }

  /** An answer: only the addressee may give it, only once, and only with the tool of its protocol.
   *  The response carries the same request_id back to whoever asked. */
  resolve(
    id: string,
    by: string,
    approve: boolean,
    answer: string,
    expectedType?: string,
  ): PendingRequest {
    const request = Object.hasOwn(this.requests, id) ? this.requests[id] : undefined;
    if (!request) throw new Error(`unknown request_id "${id}"${this.known()}`);
    if (expectedType && request.type !== expectedType)
      throw new Error(`${id} is a ${request.type} request, not ${expectedType}`);
    if (request.to !== by)
      throw new Error(`${id} was sent to ${request.to}; only ${request.to} can answer it`);
    if (typeof approve !== "boolean") throw new Error("approve must be true or false");
    const status = transition(id, request.status, approve ? "approved" : "rejected");

    const protocol = this.protocol(request.type);
    const text = answer.trim() || `${request.type} ${id}: ${status}`;
    this.deliver(by, request.sender, text, protocol.response, { request_id: id, approve });
    Object.assign(request, { status, resolved_at: new Date().toISOString(), answer: text });
    this.save();
    this.io?.event(
      "protocol",
      { request_id: id, type: request.type, from: by, to: request.sender, status },
      by,
    );
    return request;
  }

  get(id: string): PendingRequest | undefined {
    return this.requests[id];
  }

  all(): Record<string, PendingRequest> {
    return structuredClone(this.requests);
  }

  /** What the REPL's /requests shows. */
  table(): string {
    const rows = Object.entries(this.requests).map(
      ([id, r]) =>
        `${id.padEnd(7)} ${r.type.padEnd(14)} ${`${r.sender} → ${r.to}`.padEnd(20)} ${r.status.padEnd(9)} ` +
        `${r.created_at.slice(11, 19)}  ${r.content.split("\n")[0].slice(0, 50)}`,
    );
    return rows.length ? rows.join("\n") : "(no requests yet)";
  }

  private protocol(type: string): Protocol {
    const protocol = this.protocols.get(type);
    if (!protocol)
      throw new Error(
        `unknown protocol "${type}" (known: ${[...this.protocols.keys()].join(", ")})`,
      );
    return protocol;
  }

  /** req_1, req_2, ...: short enough for a model to copy, and they go on after a restart. */
  private nextId(): string {
    const numbers = Object.keys(this.requests).map((id) =>
      Number(/^req_(\d+)$/.exec(id)?.[1] ?? 0),
    );
    return `req_${Math.max(0, ...numbers) + 1}`;
  }

  private known(): string {
    const pending = Object.entries(this.requests)
      .filter(([, r]) => r.status === "pending")
      .map(([id]) => id);
    return pending.length ? ` (pending: ${pending.join(", ")})` : " (nothing is pending)";
  }

  private save(): void {
    writeJsonAtomic(this.file, this.requests);
  }
}

/** The saved table, or an empty one on the first start. Valid JSON of another shape (null, a list,
 *  a row without a status) is a clear error naming the file and the problem, not a TypeError at the
 *  first request. */
function loadTable(file: string): Record<string, PendingRequest> {
  type Row = Partial<Record<keyof PendingRequest, unknown>> | null;
  let table: Record<string, Row> | null;
  try {
    table = readJson<Record<string, Row> | null>(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  const broken = (problem: string) =>
    new BrokenStateError(
      `state file ${file} is not a request table (${problem}); fix or delete it`,
    );
  if (!table || typeof table !== "object" || Array.isArray(table))
    throw broken("expected a JSON object: request_id → request");
  for (const [id, row] of Object.entries(table)) {
    const ok =
      row &&
      typeof row === "object" &&
      [row.type, row.sender, row.to, row.content].every((v) => typeof v === "string") &&
      Object.keys(TRANSITIONS).includes(String(row.status));
    if (!ok)
      throw broken(
        `${id} needs a type, sender, to, content and a status (${Object.keys(TRANSITIONS).join(", ")})`,
      );
  }
  return table as Record<string, PendingRequest>;
}
// #endregion requests

// #region tools
const LEAD_PROTOCOL_TOOLS: Tool[] = [
  {
    name: "request_shutdown",
    description:
      "Ask a teammate to shut down. It answers with a shutdown_response (same request_id) in your " +
      "inbox: approved means it has stopped cleanly, rejected means it keeps working.",
    input_schema: {
      type: "object",
      properties: { name: { type: "string" }, reason: { type: "string" } },
      required: ["name"],
    },
  },
  {
    name: "request_plan",
    description:
      "Ask a teammate (with an ordinary message) to send you a plan with submit_plan before it changes anything.",
    input_schema: {
      type: "object",
      properties: {
        name: { type: "string" },
        about: { type: "string", description: "what the plan is for" },
      },
      required: ["name"],
    },
  },
  {
    name: "review_plan",
    description:
      "Approve or reject a plan_approval_request by its request_id. The teammate receives your " +
      "decision and feedback as a plan_approval_response.",
    input_schema: {
      type: "object",
      properties: {
        request_id: { type: "string" },
        approve: { type: "boolean" },
        feedback: { type: "string" },
      },
      required: ["request_id", "approve"],
    },
  },
];

const TEAMMATE_PROTOCOL_TOOLS: Tool[] = [
  {
    name: "handle_shutdown",
    description:
      "Answer a shutdown_request by its request_id. approve: true ends your work after this turn; " +
      "false keeps you working (give a reason).",
    input_schema: {
      type: "object",
      properties: {
        request_id: { type: "string" },
        approve: { type: "boolean" },
        reason: { type: "string" },
      },
      required: ["request_id", "approve"],
    },
  },
  {
    name: "submit_plan",
    description:
      "Send the lead a plan for approval before a risky change. Then end your turn: the decision " +
      "arrives as a plan_approval_response.",
    input_schema: { type: "object", properties: { plan: { type: "string" } }, required: ["plan"] },
  },
];

export const LEAD_TOOLS: Tool[] = [...TEAM_LEAD_TOOLS, ...LEAD_PROTOCOL_TOOLS];
export const TOOLS = LEAD_TOOLS;
export const TEAMMATE_TOOLS: Tool[] = [...TEAM_TEAMMATE_TOOLS, ...TEAMMATE_PROTOCOL_TOOLS];

const LEAD_PROTOCOLS = `Protocols: request_shutdown asks a teammate to stop; its shutdown_response arrives in your inbox.
A plan_approval_request in your inbox waits for review_plan with its request_id (approve, with feedback
when you reject). request_plan asks a teammate for a plan; it is an ordinary message.`;

const TEAMMATE_PROTOCOLS = `Protocols: a shutdown_request is answered with handle_shutdown and its request_id.
Before a risky change (deleting or rewriting files, touching many files), or when the lead asks for a plan,
call submit_plan and end your turn; start the change only after a plan_approval_response with approve="true".`;
// #endregion tools

// #region lead-handlers
function leadProtocolHandlers(team: Team, requests: PendingRequests): Record<string, ToolHandler> {
  return {
    request_shutdown: ({ name, reason }) => {
      const member = liveMember(team, name);
      const id = requests.open(
        "shutdown",
        LEAD,
        member.name,
        String(reason ?? "").trim() || "Please finish up and shut down.",
      );
      return `Shutdown request ${id} sent to ${member.name} (pending). Its shutdown_response will arrive in your inbox.`;
    },
    // Not a protocol: an ordinary message. The protocol starts when the teammate calls submit_plan.
    request_plan: ({ name, about }) => {
      const member = liveMember(team, name);
      const topic = String(about ?? "").trim();
      team.send(
        LEAD,
        member.name,
        `Before you change anything${topic ? ` for: ${topic}` : ""}, send me your plan with ` +
          "submit_plan and wait for my review.",
      );
      return `Asked ${member.name} for a plan (an ordinary message: nothing is pending until it calls submit_plan).`;
    },
    review_plan: ({ request_id, approve, feedback }) => {
      const request = requests.resolve(
        String(request_id ?? ""),
        LEAD,
        approve as boolean,
        String(feedback ?? ""),
        "plan_approval",
      );
      return `Plan ${request_id} from ${request.sender}: ${request.status}. It receives your decision as a plan_approval_response.`;
    },
    send: guardedSend(team, LEAD, requests),
  };
}

function liveMember(team: Team, name: unknown): Teammate {
  const member = team.members.get(String(name ?? ""));
  if (!member)
    throw new Error(
      `no teammate named "${String(name)}" (team: ${[...team.members.keys()].join(", ") || "nobody yet"})`,
    );
  if (member.state === "shutdown") throw new Error(`${member.name} has already shut down`);
  return member;
}
// #endregion lead-handlers

// #region teammate-handlers
function teammateProtocolHandlers(
  team: Team,
  requests: PendingRequests,
  member: Teammate,
): Record<string, ToolHandler> {
  return {
    handle_shutdown: ({ request_id, approve, reason }) => {
      const request = requests.resolve(
        String(request_id ?? ""),
        member.name,
        approve as boolean,
        String(reason ?? ""),
        "shutdown",
      );
      if (request.status === "rejected")
        return `You declined shutdown ${request_id}; keep working.`;
      // The loop checks this before its next model call: the turn ends here, cleanly, and the task
      // it held goes back to the board for someone else (nobody owns work for a teammate that is gone).
      team.stop(member.name, { handBack: true });
      const task = member.task === null ? "" : ` Task #${member.task} goes back to the board.`;
      return `You approved shutdown ${request_id}. Your work ends now.${task}`;
    },
    submit_plan: ({ plan }) => {
      const text = String(plan ?? "").trim();
      if (!text) throw new Error("a plan needs some content");
      const id = requests.open("plan_approval", member.name, LEAD, text);
      return (
        `Plan submitted as ${id} (pending). End your turn now: the lead's plan_approval_response will arrive ` +
        "as your next message. Do not start the change before it is approved."
      );
    },
    send: guardedSend(team, member.name, requests),
  };
}
// #endregion teammate-handlers

// #region guard
/** `send` stays what it was in s13 (s13's own send tool): an ordinary message. A protocol message
 *  can only come from a protocol tool, which goes through the state machine, so nobody can fake an
 *  approval with send. */
function guardedSend(team: Team, from: string, requests: PendingRequests): ToolHandler {
  const send = team.sendTool(from);
  return (input, context) => {
    const { type, request_id } = input;
    if ((type !== undefined && type !== "message") || request_id !== undefined) {
      const forged = requests.messageTypes().has(String(type))
        ? `"${String(type)}" is a protocol message type`
        : "send has no type or request_id";
      throw new Error(
        `send carries ordinary messages only (${forged}): answer a request with its own tool`,
      );
    }
    return send(input, context);
  };
}
// #endregion guard

// #region agent
export interface ProtocolAgent extends TeamAgent {
  requests: PendingRequests;
}

/** s13's team with the two protocols plugged in, and /requests to look at the table. A caller's own
 *  extensions of either side (the capstone guards the teammates' base tools) are kept: s13's
 *  `combine` adds the protocols to them, the same way on both sides. */
export function createAgent(env: AgentEnv, options: TeamOptions = {}): ProtocolAgent {
  const requests = new PendingRequests(
    path.join(env.stateDir, "team", "requests.json"),
    (from, to, content, type, extra) => agent.team.send(from, to, content, type, extra), // s13's one way to send
    env.io,
  );
  const agent = createTeamAgent(env, {
    ...options,
    lead: combine(options.lead, {
      tools: LEAD_PROTOCOL_TOOLS,
      handlers: (team) => leadProtocolHandlers(team, requests),
      instructions: LEAD_PROTOCOLS,
    }),
    teammates: combine(options.teammates, {
      tools: TEAMMATE_PROTOCOL_TOOLS,
      handlers: (team, member) => teammateProtocolHandlers(team, requests, member),
      instructions: TEAMMATE_PROTOCOLS,
    }),
  });
  const commands = {
    ...agent.commands,
    "/requests": {
      help: "pending_requests: every protocol request and its status",
      run: () => requests.table(),
    },
  };
  return { ...agent, requests, commands };
}
// #endregion agent
