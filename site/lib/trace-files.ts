// The recorded runs (site/traces/sNN.json), bundled at build time for the components that show them.
import type { TraceFile } from "./traces";

const traces = import.meta.glob<TraceFile>("/site/traces/*.json", {
  eager: true,
  import: "default",
});

/** The recorded run of a chapter ("s03"), or undefined if none has been recorded yet. */
export const traceOf = (id: string): TraceFile | undefined => traces[`/site/traces/${id}.json`];
