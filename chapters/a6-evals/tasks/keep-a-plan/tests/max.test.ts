import assert from "node:assert/strict";
import test from "node:test";
import { max } from "../src/math.js";

test("the largest value", () => assert.equal(max([3, 9, 2]), 9));
test("negative values", () => assert.equal(max([-3, -9]), -3));
test("an empty list", () => assert.equal(max([]), -Infinity));
