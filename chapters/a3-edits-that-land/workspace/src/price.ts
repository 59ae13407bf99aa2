/** A price as it is stored, before tax. */
export function net(amount: number): number {
  return amount;
}

/** A price as the customer pays it. */
export function gross(amount: number): number {
  return amount;
}
