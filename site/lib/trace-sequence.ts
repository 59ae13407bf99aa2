// A recorded run as a mermaid sequence diagram of who told whom what (team chapters, appendix A's
// MCP server), and for each arrow and note the step it came from, so the player can light up the
// arrow of the current step. Its own words ("claims task 1", "result") come in the reader's
// language (i18n/ui.<locale>.json, `sequence.*`); what the run itself wrote (a message's type,
// a request id, a status) stays as it was. Pure: the TraceSequence component and the tests call it.
import { asText } from "../../chapters/_runner/text.ts";
import { otherEvent } from "../../chapters/_shared/events.ts";
import type { TraceEvent, TraceFile } from "../../chapters/_trace/contract.ts";
import { mermaidId, mermaidText } from "./mermaid.ts";
import { agentsOf } from "./trace-normalize.ts";
import { translator } from "./ui-text.ts";
import english from "../../i18n/ui.en.json" with { type: "json" };

/** The diagram's words in a language: `t("sequence.claims", { task: 1 })`. */
export type SequenceWords = (key: string, vars?: Record<string, string | number>) => string;
const ENGLISH: SequenceWords = translator(english as Record<string, string>, "en");

/** Participant ids mermaid accepts (agent names are plain words, but be safe). */
const participant = mermaidId;
/** Text mermaid draws character for character: '#', ';', '<' ... become entity codes (#35; ...). */
const label = mermaidText;
const serverId = (server: string) => participant(`mcp_${server}`);

type EventStep = Extract<TraceEvent, { kind: "event" }>;

/** A mermaid sequence diagram of who told whom what: one participant per agent, one arrow per
 *  mailbox message (its type, and its request_id when a protocol sent it) and per spawn; task
 *  claims, protocol state changes, shutdowns and recoveries (s14) as notes. An MCP server
 *  (appendix A) is a participant too: its start, each call the gate let through and its answer
 *  are arrows, a call the gate refused is a note. */
function buildSequence(
  trace: TraceFile,
  t: SequenceWords = ENGLISH,
): { code: string; stepOf: number[] } {
  // The diagram and its links, per language: built once per recorded run and translator.
  let byWords = sequences.get(trace);
  if (!byWords) sequences.set(trace, (byWords = new Map()));
  let built = byWords.get(t);
  if (!built) byWords.set(t, (built = sequenceOf(trace, t)));
  return built;
}
const sequences = new WeakMap<TraceFile, Map<SequenceWords, { code: string; stepOf: number[] }>>();

function sequenceOf(trace: TraceFile, t: SequenceWords): { code: string; stepOf: number[] } {
  const lines: string[] = [];
  // For each line after the participants, the step it came from (the player links the two).
  const stepOf: number[] = [];
  let at = 0;
  const add = (line: string) => {
    lines.push(line);
    stepOf.push(at);
  };
  const seen = new Set<string>();
  const servers: string[] = [];
  /** Each started server's tools, by the name the model calls them (its mcp_server event). */
  const serverTools = new Map<string, { server: string; tool: string }>();
  const steps = trace.steps;

  /** An MCP server's tool call: an arrow to the server and its answer back, or a refusal. */
  const serverCall = (
    step: Extract<TraceEvent, { kind: "tool_call" }>,
    { server, tool }: { server: string; tool: string },
  ) => {
    const rest = steps.slice(at + 1);
    const gate = rest.find(
      (s) => s.kind === "event" && s.type === "permission" && s.data.tool === step.name,
    );
    const result = rest.find((s) => s.kind === "tool_result" && s.id === step.id);
    const who = participant(step.agent);
    if (gate?.kind === "event" && gate.type === "permission" && gate.data.allowed === false) {
      add(`  Note over ${who}: ${label(t("sequence.refused", { tool: step.name }))}`);
      return;
    }
    add(`  ${who}->>${serverId(server)}: ${label(`tools/call ${tool}`)}`);
    if (result?.kind === "tool_result")
      add(
        `  ${serverId(server)}-->>${who}: ${label(t(result.is_error ? "sequence.error" : "sequence.result"))}`,
      );
  };

  /** A message between agents: an arrow, labelled with its type and request_id. */
  const message = (step: Extract<EventStep, { type: "mailbox_send" }>) => {
    const { from, to } = step.data;
    const type = step.data.type ?? "message";
    let requestId = step.data.request_id as string | undefined;
    if (!requestId && type !== "message") {
      // Protocol chapters record the request_id in a `protocol` event right after the send.
      const next = steps
        .slice(at + 1, at + 4)
        .find(
          (s) =>
            s.kind === "event" && s.type === "protocol" && s.data.from === from && s.data.to === to,
        );
      if (next?.kind === "event" && next.type === "protocol") requestId = next.data.request_id;
    }
    const dashed = /result|response|idle|ack/.test(type);
    add(
      `  ${participant(from)}${dashed ? "-->>" : "->>"}${participant(to)}: ${label(type)}${requestId ? ` ${label(requestId)}` : ""}`,
    );
    seen.add(step.agent).add(from).add(to);
  };

  /** What an event adds to the diagram; every kind is named, so a new one must be decided on. */
  const event = (step: EventStep) => {
    const note = (text: string) => {
      add(`  Note over ${participant(step.agent)}: ${label(text)}`);
      seen.add(step.agent);
    };
    switch (step.type) {
      case "mcp_server": {
        const { server, tools, offered = {} } = step.data;
        servers.push(server);
        for (const [name, tool] of Object.entries(offered)) serverTools.set(name, { server, tool });
        const who = participant(step.agent);
        add(`  ${who}->>${serverId(server)}: ${label(t("sequence.serverStart"))}`);
        add(`  ${serverId(server)}-->>${who}: ${label(tools.join(", ") || t("sequence.noTools"))}`);
        seen.add(step.agent);
        return;
      }
      case "mailbox_send":
        return message(step);
      case "protocol":
        if (!step.data.request_id) return;
        add(
          `  Note over ${participant(step.data.from)}: ${label(`${step.data.request_id} ${step.data.status}`)}`,
        );
        seen.add(step.agent).add(step.data.from).add(step.data.to);
        return;
      case "task_claimed":
        return note(t("sequence.claims", { task: step.data.task }));
      case "member_state":
        if (step.data.state === "shutdown") note(t("sequence.shutdown"));
        return;
      case "compacted":
        return note(t("sequence.compacted"));
      case "checkpoint":
        return note(t("sequence.checkpoint", { id: step.data.id }));
      case "rewind":
        return note(
          t(step.data.undo ? "sequence.undoRewind" : "sequence.rewind", {
            to: step.data.to,
            restore: step.data.restore,
          }),
        );
      case "session":
        return note(t("sequence.session", { action: step.data.action }));
      case "goal":
        return note(t("sequence.goal", { check: step.data.check }));
      case "goal_check":
        return note(
          t("sequence.goalCheck", { round: step.data.round, outcome: step.data.outcome }),
        );
      case "goal_end":
        return note(t("sequence.goalEnd", { reason: step.data.reason }));
      case "recovery": {
        const d = step.data;
        return note(
          "action" in d
            ? `${d.kind} ${d.action}`
            : t("sequence.retry", { kind: d.kind, attempt: d.attempt }),
        );
      }
      case "model_error":
        return note(
          step.data.status === null
            ? t("sequence.modelError")
            : t("sequence.modelErrorStatus", { status: step.data.status }),
        );
      case "interrupted":
        return note(t("sequence.interrupted"));
      // Not part of who told whom what:
      case "todos":
      case "task":
      case "job_started":
      case "permission":
      case "hook":
      case "background_result":
      case "worktree_create":
      case "task_bound":
      case "worktree_run":
      case "worktree_remove":
      case "task_completed":
      case "task_handed_back":
      case "mailbox_read":
      case "file_version":
        return;
      default:
        otherEvent(step);
    }
  };

  for (let i = 0; i < steps.length; i++) {
    at = i;
    const step = steps[i];
    if (step.kind === "tool_call" && step.name === "spawn") {
      const name = asText((step.input as { name?: unknown } | null)?.name);
      if (name) {
        seen.add(step.agent).add(name); // declared, so that it is drawn with its own name
        add(`  ${participant(step.agent)}-)${participant(name)}: ${label(t("sequence.spawn"))}`);
      }
    } else if (step.kind === "tool_call") {
      const call = serverTools.get(step.name);
      if (call) serverCall(step, call);
    } else if (step.kind === "event") event(step);
  }
  const order = agentsOf(trace.steps).filter((a) => seen.has(a) || a === "lead");
  const declare = (a: string) =>
    participant(a) === a ? `  participant ${a}` : `  participant ${participant(a)} as ${label(a)}`;
  const declareServer = (server: string) =>
    `  participant ${serverId(server)} as ${label(t("sequence.server", { server }))}`;
  const code = ["sequenceDiagram", ...order.map(declare), ...servers.map(declareServer), ...lines];
  return { code: code.join("\n"), stepOf };
}

/** The diagram, its words in the language of `t` (English when none is given). */
export function sequenceFromTrace(trace: TraceFile, t?: SequenceWords): string {
  return buildSequence(trace, t).code;
}

/** For the drawn diagram: the step each arrow (in the order mermaid draws them) and each note
 *  came from, so the player can light up the arrow of the current step, and an arrow can take
 *  the player to its step. */
export function sequenceLinks(trace: TraceFile): { messages: number[]; notes: number[] } {
  const { code, stepOf } = buildSequence(trace); // the same lines in every language
  const body = code.split("\n").slice(-stepOf.length || Infinity);
  const links = { messages: [] as number[], notes: [] as number[] };
  body.forEach((line, k) => {
    if (/^\s*Note over /.test(line)) links.notes.push(stepOf[k]);
    else if (/^\s*\S+?(?:--?>>|-\))\S/.test(line)) links.messages.push(stepOf[k]);
  });
  return links;
}
