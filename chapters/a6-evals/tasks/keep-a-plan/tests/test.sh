#!/bin/bash
# All three steps: the function works, a test names it, the changelog says so.
# The hidden tests pass only when all 3 of them report ok: a module that exits early on
# import would otherwise count as one passing test file.
run_tests() {
  local out code
  out=$(node --test --test-reporter=tap tests/*.test.js 2>&1)
  code=$?
  echo "$out" | grep -E '^\s*not ok|^# (pass|fail) '
  [ "$code" -eq 0 ] && echo "$out" | grep -qx "# pass 3"
}
set -e
test -f test/max.test.ts || { echo "no test/max.test.ts"; exit 1; }
grep -q "max" test/max.test.ts
grep -A1 '^## Unreleased' CHANGELOG.md | grep -q -- '- add max' || { echo "no changelog entry"; exit 1; }
run_tests
