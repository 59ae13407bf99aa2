import assert from "node:assert/strict";
import test from "node:test";
import { formatTotal } from "../src/format.js";

test("prices are dollars again", () => assert.equal(formatTotal(350), "$3.50"));
