import assert from "node:assert/strict";
import test from "node:test";
import { config } from "../src/config.js";

test("prod waits 5000 ms", () => assert.equal(config.prod.timeoutMs, 5000));
test("dev still waits 1000 ms", () => assert.equal(config.dev.timeoutMs, 1000));
