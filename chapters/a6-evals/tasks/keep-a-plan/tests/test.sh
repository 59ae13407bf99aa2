#!/bin/bash
# All three steps: the function works, a test names it, the changelog says so.
set -e
test -f test/max.test.ts || { echo "no test/max.test.ts"; exit 1; }
grep -q "max" test/max.test.ts
grep -A1 '^## Unreleased' CHANGELOG.md | grep -q -- '- add max' || { echo "no changelog entry"; exit 1; }
node --test tests/*.test.js
