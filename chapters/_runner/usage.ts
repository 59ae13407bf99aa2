// What a session's model calls cost: the API's token counts per call, added up by agent (the
// lead, each teammate, each subagent) and priced from prices.ts. Only a real model's counts are
// kept: the scripted model's are made up.
import type { Message } from "../_shared/types.ts";
import type { TokenUsage } from "../_trace/contract.ts";
import { priceOf, PRICES_SOURCE, PRICES_TAKEN } from "./prices.ts";
import { oneLine } from "../_shared/visible.js";

interface Row {
  agent: string;
  model: string;
  calls: number;
  usage: Required<TokenUsage>;
}

const zero = (): Required<TokenUsage> => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

const n = (count: number) => count.toLocaleString("en-US");

/** One call's counts: `1,234 in · 56 out · 1,000 cache read · 20 cache write` (cache parts only
 *  when there are any). */
export function tokensText(u: TokenUsage): string {
  return [
    `${n(u.input_tokens)} in`,
    `${n(u.output_tokens)} out`,
    ...(u.cache_read_input_tokens ? [`${n(u.cache_read_input_tokens)} cache read`] : []),
    ...(u.cache_creation_input_tokens ? [`${n(u.cache_creation_input_tokens)} cache write`] : []),
  ].join(" · ");
}

/** Estimated US dollars for `u` on `model`, or undefined when its price is unknown. */
export function costOf(model: string, u: TokenUsage): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  return (
    (u.input_tokens * price.input +
      u.output_tokens * price.output +
      (u.cache_read_input_tokens ?? 0) * price.cacheRead +
      (u.cache_creation_input_tokens ?? 0) * price.cacheWrite) /
    1_000_000
  );
}

/** Dollars as a person reads an estimate: four decimals below a cent, two above. */
export const dollars = (cost: number) => `$${cost.toFixed(cost < 0.01 ? 4 : 2)}`;

export class UsageLedger {
  private readonly rows = new Map<string, Row>();

  add(name: string, model: string, usage: TokenUsage): void {
    // A teammate's name and the model id came from outside: shown, not obeyed.
    const [agent, id] = [oneLine(name), oneLine(model)];
    model = id;
    const key = `${agent}\u0000${model}`;
    const row = this.rows.get(key) ?? { agent, model, calls: 0, usage: zero() };
    row.calls++;
    for (const k of Object.keys(row.usage) as (keyof TokenUsage)[]) row.usage[k] += usage[k] ?? 0;
    this.rows.set(key, row);
  }

  get empty(): boolean {
    return this.rows.size === 0;
  }

  /** Every call added up; `cost` undefined if any model's price is unknown. */
  total(): { calls: number; usage: Required<TokenUsage>; cost: number | undefined } {
    const usage = zero();
    let calls = 0;
    let cost: number | undefined = 0;
    for (const row of this.rows.values()) {
      calls += row.calls;
      for (const k of Object.keys(usage) as (keyof TokenUsage)[]) usage[k] += row.usage[k];
      const c = costOf(row.model, row.usage);
      cost = c === undefined || cost === undefined ? undefined : cost + c;
    }
    return { calls, usage, cost };
  }

  /** The /usage report: a line per agent (and model), then the total. */
  report(): string {
    if (this.empty) return "No model calls yet.";
    const rows = [...this.rows.values()];
    const width = Math.max(...rows.map((r) => r.agent.length), "total".length);
    const line = (name: string, calls: number, usage: TokenUsage, cost: number | undefined) =>
      `  ${name.padEnd(width)}  ${String(calls).padStart(3)} call${calls === 1 ? " " : "s"}  ${tokensText(usage)}  ${cost === undefined ? "price unknown" : `≈ ${dollars(cost)}`}`;
    const unknown = [...new Set(rows.filter((r) => !priceOf(r.model)).map((r) => r.model))];
    const total = this.total();
    return [
      ...rows.map((r) =>
        line(
          rows.filter((o) => o.agent === r.agent).length > 1 ? `${r.agent} (${r.model})` : r.agent,
          r.calls,
          r.usage,
          costOf(r.model, r.usage),
        ),
      ),
      ...(rows.length > 1 ? [line("total", total.calls, total.usage, total.cost)] : []),
      unknown.length
        ? `  (no price known for ${unknown.join(", ")}: tokens only)`
        : `  (estimated from the prices of ${PRICES_TAKEN}, ${PRICES_SOURCE})`,
    ].join("\n");
  }

  /** The line printed on exit. */
  summary(): string {
    const { calls, usage, cost } = this.total();
    return `session: ${calls} model call${calls === 1 ? "" : "s"}, ${tokensText(usage)}${cost === undefined ? " (price unknown)" : `, ≈ ${dollars(cost)}`}`;
  }
}

/** The counts a trace keeps of a message's `usage` (the API sends more: service tier, ...). */
export function tokenUsage(usage: Message["usage"] | undefined): TokenUsage | undefined {
  if (!usage || typeof usage.input_tokens !== "number") return undefined;
  // Nothing in and nothing out is a server that does not count, not a free call.
  if (!usage.input_tokens && !usage.output_tokens) return undefined;
  const counts: TokenUsage = {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens ?? 0,
  };
  if (usage.cache_read_input_tokens) counts.cache_read_input_tokens = usage.cache_read_input_tokens;
  if (usage.cache_creation_input_tokens)
    counts.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  return counts;
}
