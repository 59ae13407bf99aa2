// The trace contract: what a run records, step by step, and the file a recorded run is kept in
// (site/traces/<id>.json). The terminal printer (io.ts) writes traces, the step notes (notes.ts)
// key on their steps, the site and the tests read them; all of them import it from here, and it
// imports nothing of theirs.
import type { HarnessEvent } from "../_shared/events.ts";
import type { IO } from "../_shared/types.ts";

/** One step of a run. An `event` step is one of the harness's events (events.ts), by `type`. */
export type TraceEvent =
  | { kind: "user"; agent: string; text: string }
  | {
      kind: "request";
      agent: string;
      messages: number;
      /** The messages' estimated size: s05's rough rule, four characters a token. */
      tokens?: number;
      tools: string[];
      system?: string;
    }
  | {
      kind: "response";
      agent: string;
      stop_reason: string | null;
      text: string;
      calls: string[];
      /** The API's token counts for this call, when a real model (or a fake API) answered; the
       *  scripted model's are made up, so its runs leave them out. */
      usage?: TokenUsage;
    }
  | { kind: "tool_call"; agent: string; id: string; name: string; input: unknown }
  | {
      kind: "tool_result";
      agent: string;
      id: string;
      name: string;
      output: string;
      is_error: boolean;
    }
  | { kind: "note"; agent: string; text: string }
  | ({ kind: "event"; agent: string } & HarnessEvent);

/** What one model call cost, as the Messages API counts it. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** Prompt tokens read from the cache (billed at a tenth of the input price). */
  cache_read_input_tokens?: number;
  /** Prompt tokens written to the cache (billed at 1.25 times the input price). */
  cache_creation_input_tokens?: number;
}

/** An IO that keeps what it was told as a trace. */
export interface Recorder extends IO {
  readonly trace: readonly TraceEvent[];
  /** Adds one step to the trace (and to a recording, with --record). Everything that records a
   *  step goes through here. */
  step(event: TraceEvent): void;
}

/** The version of the trace file format. 1: event kinds as each chapter spelled them (dotted in
 *  s12) and no `version` field; 2: the kinds and data of events.ts. */
export const TRACE_VERSION = 2;

/** One recorded run, as committed in site/traces/<id>.json. */
export interface TraceFile {
  /** TRACE_VERSION when it was recorded. */
  version: number;
  /** "s13" */
  chapter: string;
  /** "s13-agent-teams" */
  name: string;
  /** The scenario's one-line summary. */
  summary: string;
  prompts: string[];
  /** Who acted, in order of first appearance ("lead" first). */
  agents: string[];
  /** Tools the lead's first request offered that the chapter's TOOLS does not list, as sent:
   *  tools that exist only at run time (appendix A's MCP server tools). Absent when there are none. */
  offered?: { name: string; description?: string; input_schema: unknown }[];
  /** The trace, normalised (site/lib/trace-normalize.ts). A request carries `system` only when
   *  that agent's system prompt changed since its previous request. */
  steps: TraceEvent[];
}

/** A trace file's text, read: refused when it was written in another version of the format (the
 *  steps would be read with the wrong vocabulary), so the reader records it again. */
export function parseTraceFile(text: string, file = "trace"): TraceFile {
  const trace = JSON.parse(text) as Partial<TraceFile>;
  const version = trace.version ?? 1;
  if (version !== TRACE_VERSION)
    throw new Error(
      `${file} is a version ${version} trace; this harness reads version ${TRACE_VERSION}: record it again (npm run traces)`,
    );
  return trace as TraceFile;
}

/** How a trace file is written: stable key order, two-space indent, trailing newline. */
export const serializeTrace = (trace: TraceFile) => `${JSON.stringify(trace, null, 2)}\n`;
