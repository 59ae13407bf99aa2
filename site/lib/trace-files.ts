// The recorded runs (site/traces/sNN.json), bundled at build time for the components that show them.
import { TRACE_VERSION, type TraceFile } from "../../chapters/_trace/contract.ts";

const traces = import.meta.glob<TraceFile>("/site/traces/*.json", {
  eager: true,
  import: "default",
});

/** The recorded run of a chapter ("s03"), or undefined if none has been recorded yet. A trace of
 *  another format version fails the build: `npm run traces` records it again. */
export function traceOf(id: string): TraceFile | undefined {
  const trace = traces[`/site/traces/${id}.json`];
  if (trace && (trace.version ?? 1) !== TRACE_VERSION)
    throw new Error(
      `site/traces/${id}.json is a version ${trace.version ?? 1} trace, not ${TRACE_VERSION}: run npm run traces`,
    );
  return trace;
}
