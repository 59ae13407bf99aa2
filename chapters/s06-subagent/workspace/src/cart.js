// Cart: adds up line items, using the price table in prices.js.
import { priceOf } from "./prices.js";

export function total(items) {
  return items.reduce((sum, { sku, qty }) => sum + priceOf(sku) * qty, 0);
}
