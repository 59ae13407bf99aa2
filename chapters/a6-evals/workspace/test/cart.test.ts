import assert from "node:assert/strict";
import test from "node:test";
import { receipt } from "../src/cart.js";

test("a receipt lists each item and the total", () => {
  const items = [
    { name: "tea", cents: 350 },
    { name: "cake", cents: 425 },
  ];
  assert.equal(receipt(items), "tea $3.50\ncake $4.25\ntotal $7.75");
});
