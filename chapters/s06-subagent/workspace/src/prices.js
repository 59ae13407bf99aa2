// Prices: a fixed table of prices in cents by SKU; an unknown SKU throws.
const PRICES = { apple: 50, bread: 250, milk: 120 };

export function priceOf(sku) {
  if (!(sku in PRICES)) throw new Error(`unknown sku: ${sku}`);
  return PRICES[sku];
}
