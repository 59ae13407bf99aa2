// A model client that records: every request lands in the trace (its size by the shared rough
// rule, chapters/_shared/tokens.ts) and may pause under --step; a printer shows its answer as it
// streams. Ctrl-C aborts the call in flight.
import { InterruptedError, turnSignal, unlessInterrupted } from "./interrupt.ts";
import type { CreateParams, ModelClient } from "../_shared/types.ts";
import { roughTokens } from "../_shared/tokens.ts";
import type { Printer } from "./printer.ts";
import type { Recorder } from "./recorder.ts";
import { systemText } from "./text.ts";

/** A failed call as the trace keeps it: its HTTP status (a mid-stream error has its twin's,
 *  model.ts) and the server's own message, else the error's. */
function modelError(err: unknown): { status: number | null; message: string } {
  const { status, error } = (err ?? {}) as { status?: unknown; error?: { error?: unknown } };
  const detail = (error?.error as { message?: unknown } | undefined)?.message;
  return {
    status: typeof status === "number" && Number.isInteger(status) ? status : null,
    message:
      typeof detail === "string" && detail
        ? detail
        : err instanceof Error
          ? err.message
          : String(err),
  };
}

/** Wraps a model client so every request lands in the trace (and can pause under --step). */
export function recordModel(
  client: ModelClient,
  agent: string,
  io: Recorder,
  pause?: (what: string) => Promise<void>,
): ModelClient {
  return {
    messages: {
      async create(body: CreateParams) {
        const tools = (body.tools ?? []).map((t) => ("name" in t ? t.name : "?"));
        const system = systemText(body.system);
        const tokens = roughTokens(body.messages);
        io.step({
          kind: "request",
          agent,
          messages: body.messages.length,
          tokens,
          tools,
          system,
        });
        const n = body.messages.length;
        await pause?.(`call the model for ${agent} (${n} message${n === 1 ? "" : "s"})`);
        // Ctrl-C aborts the call in flight (and any later call of the same turn) at once.
        const signal = turnSignal();
        if (signal.aborted) throw new InterruptedError();
        const shown = (io as Partial<Printer>).call?.(agent, body.model);
        try {
          const message = await unlessInterrupted(
            client.messages.create(body, { signal, onStream: shown?.onStream }),
            signal,
          );
          shown?.done(message);
          return message;
        } catch (err) {
          // The recording says what went wrong between the request and what came next (s14's
          // retry, or the prompt); Ctrl-C is the REPL's to record (an `interrupted` step).
          if (!(err instanceof InterruptedError) && !signal.aborted)
            io.event("model_error", modelError(err), agent);
          throw err;
        } finally {
          shown?.close();
        }
      },
    },
  };
}
