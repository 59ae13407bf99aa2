// Arithmetic the cart needs.
export function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export function mean(values: number[]): number {
  return sum(values) / values.length;
}
