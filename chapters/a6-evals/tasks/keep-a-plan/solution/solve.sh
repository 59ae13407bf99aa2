#!/bin/bash
set -e
cat >> src/math.ts <<'TS'

export function max(values: number[]): number {
  return Math.max(...values);
}
TS
cat > test/max.test.ts <<'TS'
import assert from "node:assert/strict";
import test from "node:test";
import { max } from "../src/math.js";

test("max", () => assert.equal(max([3, 9, 2]), 9));
TS
sed -i 's/^# Changelog$/# Changelog\n\n## Unreleased\n- add max/' CHANGELOG.md
