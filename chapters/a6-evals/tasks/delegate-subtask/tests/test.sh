#!/bin/bash
set -e
expected=$'src/legacy/m10.ts\nsrc/legacy/m15.ts\nsrc/legacy/m20.ts\nsrc/legacy/m25.ts\nsrc/legacy/m30.ts'
actual=$(grep -v '^[[:space:]]*$' LEGACY.md)
if [ "$actual" != "$expected" ]; then
  echo "LEGACY.md lists:"; echo "$actual"; exit 1
fi
