#!/bin/bash
# Both branches are in main's history, and both functions work.
set -e
test "$(git rev-parse --abbrev-ref HEAD)" = "main" || { echo "not on main"; exit 1; }
git merge-base --is-ancestor alice HEAD || { echo "alice is not merged"; exit 1; }
git merge-base --is-ancestor bob HEAD || { echo "bob is not merged"; exit 1; }
node --test tests/*.test.js
