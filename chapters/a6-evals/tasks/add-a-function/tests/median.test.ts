import assert from "node:assert/strict";
import test from "node:test";
import { median } from "../src/math.js";

test("odd count", () => assert.equal(median([5, 1, 3]), 3));
test("even count", () => assert.equal(median([4, 1, 3, 2]), 2.5));
test("numbers sort as numbers", () => assert.equal(median([10, 9, 100]), 10));
test("empty list", () => assert.equal(median([]), 0));
test("the caller's list keeps its order", () => {
  const list = [3, 1, 2];
  median(list);
  assert.deepEqual(list, [3, 1, 2]);
});
