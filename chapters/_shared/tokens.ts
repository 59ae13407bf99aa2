// How big a conversation is, roughly and for free: about four characters a token. s05 decides
// when to compact with it; the runner records each request's size with it (the trace's `tokens`,
// the player's context meter), so the two always agree.

/** `value`'s size in tokens, estimated from its JSON: four characters a token. */
export const roughTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4);
