import assert from "node:assert/strict";
import test from "node:test";
import { formatPrice } from "../src/format.js";
import { receipt } from "../src/cart.js";

test("formatPrice shows cents as dollars", () => assert.equal(formatPrice(1999), "$19.99"));
test("the receipt still prints", () =>
  assert.equal(receipt([{ name: "tea", cents: 350 }]), "tea $3.50\ntotal $3.50"));
