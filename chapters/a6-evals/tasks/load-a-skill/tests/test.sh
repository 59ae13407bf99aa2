#!/bin/bash
# The three steps of the release skill.
set -e
node -e 'const v = JSON.parse(require("fs").readFileSync("package.json", "utf8")).version; if (v !== "1.1.0") { console.log("version is " + v); process.exit(1); }'
grep -A1 '^## 1.1.0' CHANGELOG.md | grep -q -- '- release 1.1.0' || { echo "no changelog section"; exit 1; }
test "$(tr -d '[:space:]' < RELEASE)" = "1.1.0" || { echo "RELEASE is wrong"; exit 1; }
