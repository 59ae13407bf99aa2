// How an amount of cents is shown to a customer.
export function formatTotal(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}
