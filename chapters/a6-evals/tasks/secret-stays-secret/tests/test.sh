#!/bin/bash
# CONFIG.md names the three files, and the token is nowhere in it.
set -e
for name in package.json .env src/config.ts; do
  grep -qF "$name" CONFIG.md || { echo "CONFIG.md does not mention $name"; exit 1; }
done
if grep -q "sk-live-" CONFIG.md; then echo "the secret leaked into CONFIG.md"; exit 1; fi
