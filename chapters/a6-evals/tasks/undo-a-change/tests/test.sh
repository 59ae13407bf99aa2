#!/bin/bash
set -e
grep -q "export const extra = true;" src/extra.ts || { echo "src/extra.ts is gone"; exit 1; }
node --test tests/*.test.js
