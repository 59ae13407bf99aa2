import assert from "node:assert/strict";
import test from "node:test";
import { mean } from "../src/math.js";

test("mean of an empty list is 0", () => assert.equal(mean([]), 0));
test("mean of a list is still its average", () => assert.equal(mean([2, 4, 9]), 5));
