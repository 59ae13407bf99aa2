import assert from "node:assert/strict";
import test from "node:test";
import { discount } from "../src/math.js";
import { formatCount } from "../src/format.js";

test("alice's discount", () => assert.equal(discount(1000, 15), 850));
test("bob's formatCount", () => assert.equal(formatCount(2), "2 items"));
