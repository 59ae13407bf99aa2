import assert from "node:assert/strict";
import test from "node:test";
import { mean } from "../src/math.js";

test("the mean of an empty list is 0", () => {
  assert.equal(mean([]), 0);
});
