#!/bin/bash
# The hidden tests pass only when all 2 of them report ok: a module that exits early on
# import would otherwise count as one passing test file.
run_tests() {
  local out code
  out=$(node --test --test-reporter=tap tests/*.test.js 2>&1)
  code=$?
  echo "$out" | grep -E '^\s*not ok|^# (pass|fail) '
  [ "$code" -eq 0 ] && echo "$out" | grep -qx "# pass 2"
}
run_tests
