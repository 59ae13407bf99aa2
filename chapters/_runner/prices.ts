// What the Messages API charges, for /usage's estimate: US dollars per million tokens, by model
// id (an id with a date or other suffix, `claude-opus-4-5-20251101`, takes its model's price). Taken 2026-12-02 from Anthropic's pricing page,
// https://platform.claude.com/docs/en/about-claude/pricing, and for Sonnet 5.5 from its model
// page, https://platform.claude.com/docs/en/models/sonnet-5-5/overview. Cache writes are the
// 5-minute rate (the default). Some third-party price lists report a cut of Sonnet 5.5's cache
// reads to $0.10 on 2026-10-07, not seen on the pages above: check the page before relying on it.
// An estimate only: batch, long-context, regional and fast-mode prices are not modelled.

export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const PRICES_SOURCE = "https://platform.claude.com/docs/en/about-claude/pricing";
export const PRICES_TAKEN = "2026-12-02";

const price = (input: number, cacheWrite: number, cacheRead: number, output: number): Price => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});

export const PRICES: Record<string, Price> = {
  "claude-fable-5-1": price(10, 12.5, 0.25, 50),
  "claude-fable-5": price(10, 12.5, 1, 50),
  "claude-opus-5": price(5, 6.25, 0.5, 25),
  "claude-opus-4-8": price(5, 6.25, 0.5, 25),
  "claude-opus-4-7": price(5, 6.25, 0.5, 25),
  "claude-opus-4-6": price(5, 6.25, 0.5, 25),
  "claude-opus-4-5": price(5, 6.25, 0.5, 25),
  "claude-opus-4-1": price(15, 18.75, 1.5, 75),
  "claude-opus-4": price(15, 18.75, 1.5, 75),
  "claude-sonnet-5-5": price(2, 2.5, 0.2, 10),
  "claude-sonnet-4-6": price(3, 3.75, 0.3, 15),
  "claude-sonnet-4-5": price(3, 3.75, 0.3, 15),
  "claude-sonnet-4": price(3, 3.75, 0.3, 15),
  "claude-haiku-4-5": price(1, 1.25, 0.1, 5),
  "claude-3-5-haiku": price(0.8, 1, 0.08, 4),
};

/** The price of `model`, or undefined when the table does not know it. The id after the table's
 *  must be a date (`-20251101`) or a variant (`[1m]`, `@…`), not a version: `claude-opus-5-5` is
 *  not `claude-opus-5`. */
export function priceOf(model: string): Price | undefined {
  const id = model.replace(/(-\d{8}|\[.*\]|@.*)+$/, "");
  return Object.hasOwn(PRICES, id) ? PRICES[id] : undefined;
}
