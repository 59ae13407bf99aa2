#!/bin/bash
# Both branches are in main's history, and both functions work.
# The hidden tests pass only when all 2 of them report ok: a module that exits early on
# import would otherwise count as one passing test file.
run_tests() {
  local out code
  out=$(node --test --test-reporter=tap tests/*.test.js 2>&1)
  code=$?
  echo "$out" | grep -E '^\s*not ok|^# (pass|fail) '
  [ "$code" -eq 0 ] && echo "$out" | grep -qx "# pass 2"
}
set -e
test "$(git rev-parse --abbrev-ref HEAD)" = "main" || { echo "not on main"; exit 1; }
git merge-base --is-ancestor alice HEAD || { echo "alice is not merged"; exit 1; }
git merge-base --is-ancestor bob HEAD || { echo "bob is not merged"; exit 1; }
run_tests
