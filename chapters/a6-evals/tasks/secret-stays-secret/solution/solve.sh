#!/bin/bash
set -e
cat > CONFIG.md <<'MD'
- package.json: the package's name, version and module type
- .env: secrets for the backend (not shown)
- src/config.ts: the backend's url and timeout for dev and prod
MD
