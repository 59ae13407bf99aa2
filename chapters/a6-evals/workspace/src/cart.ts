// A cart: items with a price in cents, and the receipt they print.
import { sum } from "./math.js";
import { formatTotal } from "./format.js";

export interface Item {
  name: string;
  cents: number;
}

export function total(items: Item[]): number {
  return sum(items.map((item) => item.cents));
}

export function receipt(items: Item[]): string {
  const lines = items.map((item) => `${item.name} ${formatTotal(item.cents)}`);
  return [...lines, `total ${formatTotal(total(items))}`].join("\n");
}
